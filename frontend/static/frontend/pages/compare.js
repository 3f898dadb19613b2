// Compare page. Expects #page-data (frontend/payloads/compare.py):
//   {heatmap: {models: [hub_id], topics: [name], slugs: [slug], z: [[accuracy|null per topic] per model],
//              n: [[questions per topic] per model]},
//    scatter: {benchmark, measured: [[hub_id, params_b, accuracy, chosen 0/1, flagged 0/1 (only where chosen)]],
//              paper_mobile_mmlu: [[hub_id, params_b, accuracy]], paper_mmlu: [[hub_id, params_b, accuracy]]}}
(function () {
  "use strict";
  const form = document.getElementById("compare-form");
  const add = document.getElementById("add-model");
  if (form && add) {
    // Picking an id from the list adds it to the comma-separated field.
    add.addEventListener("change", () => {
      const value = add.value.trim();
      if (!value) return;
      const field = form.elements.models;
      const ids = field.value.split(",").map((s) => s.trim()).filter(Boolean);
      if (!ids.includes(value)) ids.push(value);
      field.value = ids.join(", ");
      add.value = "";
    });
  }
  const M = window.MMLU;
  const data = M && M.pageData();
  if (!data) return;
  const P = M.palette;

  const h = data.heatmap;
  if (h.models.length) {
    const narrow = M.narrow();
    // Phones: topics down the side (80 rows), models across; desktop: the paper's layout, models as rows.
    const z = narrow ? h.topics.map((_, j) => h.models.map((_, i) => h.z[i][j])) : h.z;
    const models = h.models.map((m) => M.shortLabel(m, narrow ? 14 : 30));
    M.draw("heatmap", [{
      type: "heatmap", z: z, x: narrow ? models : h.topics, y: narrow ? h.topics : models,
      // No xgap/ygap: without gaps Plotly draws one pixel per cell and scales the image up, so the heatmap never
      // becomes the page's largest paint (an image counts at its own size), drawn late or not.
      colorscale: "Cividis", zmin: 0, zmax: 100,
      colorbar: {title: {text: "accuracy (%)", side: "right"}, thickness: 10},
      hovertemplate: "%{y} · %{x}: %{z}%<extra></extra>",
    }], {
      height: narrow ? 18 * h.topics.length + 160 : 200 + 34 * h.models.length,
      margin: {l: 10, r: 10, t: 10, b: 10},
      xaxis: {tickangle: -60, automargin: true, tickfont: {size: M.MIN_FONT}, side: narrow ? "top" : "bottom"},
      yaxis: {automargin: true, autorange: "reversed", tickfont: {size: M.MIN_FONT}},
    });
  }

  const s = data.scatter;
  const chosen = s.measured.filter((p) => p[3]), others = s.measured.filter((p) => !p[3]);
  const points = (rows, name, color, symbol, size, extra) => Object.assign({
    type: "scatter", mode: "markers", name: name, x: rows.map((p) => p[1]), y: rows.map((p) => p[2]),
    hovertext: rows.map((p) => M.esc(p[0]) + (p[4] ? " ⚑ flagged" : "")), marker: {color: color, symbol: symbol, size: size, line: {width: 1, color: color}},
    hovertemplate: "%{hovertext}<br>%{x}B parameters · %{y}%<extra>" + M.esc(name) + "</extra>",
  }, extra || {});
  const traces = [];
  if (others.length) traces.push(points(others, "other models measured here", "rgba(95,107,119,0.35)", "circle", 5));
  traces.push(points(s.paper_mmlu, "paper: MMLU", P.vermillion, "square-open", 8));
  traces.push(points(s.paper_mobile_mmlu, "paper: Mobile-MMLU", P.orange, "diamond", 8));
  traces.push(points(chosen, "compared (measured here, " + s.benchmark + ")", P.blue, "circle", 11,
                     {mode: "markers+text", textposition: "top center", textfont: {size: M.MIN_FONT},
                      text: chosen.map((p) => (p[4] ? "⚑ " : "") + M.shortLabel(p[0].split("/").pop(), 18))}));
  M.draw("scatter", traces, M.withChance({
    height: M.narrow() ? 400 : 480, margin: {l: 50, r: 10, t: 10, b: 50},
    xaxis: {type: "log", title: {text: "parameters (billions, log scale)"}, gridcolor: M.grid,
            tickvals: [0.5, 1, 2, 3, 5, 10, 20, 30, 70, 100], ticktext: ["0.5", "1", "2", "3", "5", "10", "20", "30", "70", "100"]},
    yaxis: M.accuracyAxis(traces.flatMap((t) => t.y)),
  }, "y"));
})();
