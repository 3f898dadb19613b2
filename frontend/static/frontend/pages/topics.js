// Topics page. Expects #page-data (frontend/payloads/topics.py):
//   {easiest: [{slug, topic, category, mean, low, high, models}], hardest: [... same, hardest first]}
// Bars: mean accuracy across models; whiskers: the lowest and highest model (the paper's Figs. 14-15).
(function () {
  "use strict";
  const select = document.querySelector("#topics-form select[name=benchmark]");
  if (select) select.addEventListener("change", () => select.form.submit());
  const M = window.MMLU;
  const data = M && M.pageData();
  if (!data) return;

  function bars(name, rows, color) {
    if (!rows.length) return;
    M.draw(name, [{
      type: "bar", orientation: "h", y: rows.map((t) => M.shortLabel(t.topic, M.narrow() ? 22 : 36)),
      x: rows.map((t) => t.mean), marker: {color: color},
      error_x: {type: "data", symmetric: false, color: "#333", thickness: 1,
                array: rows.map((t) => t.high - t.mean), arrayminus: rows.map((t) => t.mean - t.low)},
      customdata: rows.map((t) => [t.topic, t.category, t.low, t.high, t.models]),
      hovertemplate: "%{customdata[0]} (%{customdata[1]})<br>mean %{x}% over %{customdata[4]} models, " +
                     "range %{customdata[2]}–%{customdata[3]}%<extra></extra>",
    }], {
      height: 80 + 28 * rows.length, margin: {l: 10, r: 16, t: 10, b: 40}, showlegend: false,
      xaxis: {title: {text: "mean accuracy across models (%)"}, range: [0, 100], gridcolor: "#e5e7eb"},
      yaxis: {autorange: "reversed", automargin: true, type: "category"},
    });
  }
  bars("easiest", data.easiest, M.palette.green);
  bars("hardest", data.hardest, M.palette.vermillion);
})();
