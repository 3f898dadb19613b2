// A topic's page. Expects #page-data (frontend/payloads/topics.py topic_chart):
//   {models: [[hub_id, precision, accuracy, ci95_low, ci95_high, n], ...] (best first, at most 30), total}
"use strict";
if (window.MMLU) window.MMLU.boot(null, (M, data) => {
  if (!data.models.length) return;
  const rows = data.models;
  const counts = {};
  rows.forEach((r) => { counts[r[0]] = (counts[r[0]] || 0) + 1; });
  const labels = rows.map((r) => M.shortLabel(r[0], M.narrow() ? 22 : 40) + (counts[r[0]] > 1 ? " · " + r[1] : ""));
  M.draw("topic", [{
    type: "scatter", mode: "markers", name: "accuracy, with its 95% interval", x: rows.map((r) => r[2]), y: labels,
    hovertext: rows.map((r) => M.esc(r[0])),
    marker: {color: M.palette.blue, size: 9},
    error_x: {type: "data", symmetric: false, color: M.palette.blue, thickness: 1.5, width: 3,
              array: rows.map((r) => r[4] - r[2]), arrayminus: rows.map((r) => r[2] - r[3])},
    customdata: rows.map((r) => [r[3], r[4], r[5]]),
    hovertemplate: "%{hovertext}: %{x}% (95%: %{customdata[0]}–%{customdata[1]}, n=%{customdata[2]})<extra></extra>",
  }], M.withChance({
    height: Math.max(220, 100 + 24 * rows.length), margin: {l: 10, r: 16, t: 10, b: 50}, showlegend: true,
    xaxis: M.accuracyAxis(rows.flatMap((r) => [r[3], r[4]])),
    yaxis: {type: "category", categoryorder: "array", categoryarray: labels, autorange: "reversed", automargin: true},
  }, "x"));
});
