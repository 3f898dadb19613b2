// Topics page. Expects #page-data (frontend/payloads/topics.py):
//   {easiest: [{slug, topic, category, mean, low, high, models}], hardest: [... same, hardest first]}
// A dot: the mean accuracy across models; a grey band: from the worst to the best model (the paper's Figs. 14-15).
// The band is a spread of models, not a confidence interval, so it is drawn and named differently from one.
"use strict";
if (window.MMLU) window.MMLU.boot("#topics-form select[name=benchmark]", (M, data) => {

  function dots(name, rows, color) {
    if (!rows.length) return;
    const labels = rows.map((t) => M.shortLabel(t.topic, M.narrow() ? 22 : 36));
    const band = {x: [], y: []};
    rows.forEach((t, i) => { band.x.push(t.low, t.high, null); band.y.push(labels[i], labels[i], null); });
    const layout = {
      height: 110 + 28 * rows.length, margin: {l: 10, r: 16, t: 10, b: 40}, showlegend: true,
      xaxis: M.accuracyAxis(rows.flatMap((t) => [t.low, t.high]), "accuracy across models (%)"),
      yaxis: {autorange: "reversed", automargin: true, type: "category", categoryorder: "array", categoryarray: labels},
    };
    M.draw(name, [{
      type: "scatter", mode: "lines", name: "range: worst to best model", x: band.x, y: band.y,
      line: {color: "rgba(95,107,119,0.45)", width: 7}, hoverinfo: "skip",
    }, {
      type: "scatter", mode: "markers", name: "mean across models", x: rows.map((t) => t.mean), y: labels,
      marker: {color: color, size: 10, line: {color: "#fff", width: 1}},
      customdata: rows.map((t) => [t.topic, t.category, t.low, t.high, t.models]),
      hovertemplate: "%{customdata[0]} (%{customdata[1]})<br>mean %{x}% over %{customdata[4]} models, " +
                     "worst %{customdata[2]}%, best %{customdata[3]}%<extra></extra>",
    }], M.withChance(layout, "x"));
  }
  dots("easiest", data.easiest, M.palette.green);
  dots("hardest", data.hardest, M.palette.vermillion);
});
