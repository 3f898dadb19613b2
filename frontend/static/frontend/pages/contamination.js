// Contamination page. Expects #page-data (frontend/payloads/contamination.py):
//   {benchmark, shots, delta0 (points), total,
//    delta: [[hub_id, revision, precision, delta, ci95_low, ci95_high, z, flagged 0/1], ...] (lowest z first, ≤ 40),
//    history: [[date, mean_delta, models], ...] (drawn from 3 points on)}
"use strict";
if (window.MMLU) window.MMLU.boot("#contamination-form select", (M, data) => {
  const P = M.palette;

  const rows = data.delta;
  if (rows.length) {
    const counts = {};
    rows.forEach((r) => { counts[r[0]] = (counts[r[0]] || 0) + 1; });
    const labels = rows.map((r) => M.shortLabel(r[0], M.narrow() ? 20 : 36) + (counts[r[0]] > 1 ? " @" + r[1].slice(0, 7) + " " + r[2] : ""));
    const trace = (subset, name, color, symbol) => ({
      type: "scatter", mode: "markers", name: name, x: subset.map((r) => r[3]), y: subset.map((r) => r.label),
      hovertext: subset.map((r) => M.esc(r[0] + " @ " + r[1] + " · " + r[2])), customdata: subset.map((r) => [r[4], r[5], r[6]]),
      hovertemplate: "%{hovertext}<br>Δ %{x} points (95%: %{customdata[0]} to %{customdata[1]}), z %{customdata[2]}<extra></extra>",
      marker: {color: color, size: 9, symbol: symbol},
      error_x: {type: "data", symmetric: false, color: color, thickness: 1.5, width: 3,
                array: subset.map((r) => r[5] - r[3]), arrayminus: subset.map((r) => r[3] - r[4])},
    });
    rows.forEach((r, i) => { r.label = labels[i]; });
    const flagged = rows.filter((r) => r[7]), clean = rows.filter((r) => !r[7]);
    const traces = [];
    if (clean.length) traces.push(trace(clean, "not flagged (Δ with its 95% interval)", P.blue, "circle"));
    if (flagged.length) traces.push(trace(flagged, "possible contamination (Δ with its 95% interval)", P.vermillion, "x"));
    M.draw("delta", traces, {
      height: Math.max(220, 80 + 24 * rows.length), margin: {l: 10, r: 16, t: 10, b: 50},
      xaxis: {title: {text: "Δ = test − validation (points)"}, zeroline: true, zerolinecolor: "#1b1f24", gridcolor: "#e5e7eb"},
      yaxis: {type: "category", categoryorder: "array", categoryarray: labels, autorange: "reversed", automargin: true},
      shapes: data.delta0 ? [{type: "line", xref: "x", yref: "paper", x0: data.delta0, x1: data.delta0, y0: 0, y1: 1,
                              line: {color: P.grey, dash: "dot", width: 1.5}}] : [],
      annotations: data.delta0 ? [{text: "δ₀ (expected Δ)", showarrow: false, xref: "x", yref: "paper", x: data.delta0,
                                   y: 0, yanchor: "bottom", xanchor: "left", xshift: 3,
                                   font: {size: M.MIN_FONT, color: P.grey}}] : [],
    });
  }

  // A time series needs at least three points; with fewer the server shows what is missing instead of a chart.
  const h = data.history;
  if (h.length >= 3) {
    M.draw("history", [{
      type: "scatter", mode: "lines+markers", name: "mean Δ", x: h.map((p) => p[0]), y: h.map((p) => p[1]),
      customdata: h.map((p) => p[2]), line: {color: P.blue}, marker: {color: P.blue, size: 6},
      hovertemplate: "%{x}: mean Δ %{y} points over %{customdata} models<extra></extra>",
    }], {
      height: 300, margin: {l: 50, r: 10, t: 10, b: 50}, showlegend: false,
      xaxis: {type: "date", tickformat: "%Y-%m-%d", gridcolor: M.grid},
      yaxis: {title: {text: "mean Δ (points)"}, zeroline: true, zerolinecolor: "#1b1f24", gridcolor: "#e5e7eb"},
    });
  }
});
