// Mobile vs general page. Expects #page-data (frontend/payloads/mobile_general.py):
//   {mobile, general (benchmark names), highlight (a hub id in lower case, or ""),
//    measured: [[hub_id, general_acc, general_low, general_high, mobile_acc, mobile_low, mobile_high,
//                mobile_rank, general_rank, rank_change]], paper: [the same, intervals null]}
// One scatter: the models measured here with their 95% intervals both ways, the paper's Table 2 as a separate
// trace of its own marker, the equal-accuracy diagonal and the chance lines.
"use strict";
if (window.MMLU) window.MMLU.boot("#mobile-general-form select, #mobile-general-form input[type=checkbox]", (M, data) => {
  const P = M.palette;
  const hover = "%{hovertext}<br>" + M.esc(data.general) + " %{x}% · " + M.esc(data.mobile) + " %{y}%"
    + "<br>rank %{customdata[1]} on " + M.esc(data.general) + ", %{customdata[0]} on " + M.esc(data.mobile)
    + " (change %{customdata[2]})<extra>%{fullData.name}</extra>";
  const trace = (rows, name, color, symbol, size, intervals) => {
    const t = {
      type: "scatter", mode: "markers", name: name, x: rows.map((p) => p[1]), y: rows.map((p) => p[4]),
      hovertext: rows.map((p) => M.esc(p[0])), customdata: rows.map((p) => [p[7], p[8], (p[9] > 0 ? "+" : "") + p[9]]),
      hovertemplate: hover, marker: {color: color, symbol: symbol, size: size, line: {width: 1.5, color: color}},
    };
    if (intervals) {
      const bar = (lo, hi, mid) => ({type: "data", symmetric: false, color: color, thickness: 1.2, width: 2,
                                     array: rows.map((p) => p[hi] - p[mid]), arrayminus: rows.map((p) => p[mid] - p[lo])});
      t.error_x = bar(2, 3, 1);
      t.error_y = bar(5, 6, 4);
    }
    return t;
  };
  const chosen = data.measured.filter((p) => p[0].toLowerCase() === data.highlight);
  const others = data.measured.filter((p) => p[0].toLowerCase() !== data.highlight);
  const traces = [];
  if (others.length || !chosen.length) traces.push(trace(others, "measured here (95% intervals)", P.blue, "circle", 9, true));
  if (chosen.length) traces.push(Object.assign(trace(chosen, M.esc(chosen[0][0]) + " (measured here)", P.vermillion,
                                                     "star", 14, true),
    {mode: "markers+text", text: chosen.map((p) => M.shortLabel(p[0].split("/").pop(), 18)), textposition: "top center",
     textfont: {size: M.MIN_FONT}}));
  traces.push(trace(data.paper, "paper, Table 2 (reported, not measured here)", P.orange, "diamond-open", 9, false));
  const values = [];
  data.measured.forEach((p) => values.push(p[1], p[2], p[3], p[4], p[5], p[6]));
  data.paper.forEach((p) => values.push(p[1], p[4]));
  const range = M.accuracyRange(values);
  const layout = {
    height: M.narrow() ? 420 : 520, margin: {l: 56, r: 10, t: 10, b: 50}, showlegend: true,
    xaxis: M.accuracyAxis(values, data.general + " accuracy (%)", {range: range}),
    yaxis: M.accuracyAxis(values, data.mobile + " accuracy (%)", {range: range}),
    shapes: [{type: "line", xref: "x", yref: "y", x0: range[0], y0: range[0], x1: range[1], y1: range[1],
              line: {color: P.grey, dash: "dot", width: 1}, layer: "below"}],
    annotations: [{text: "equal accuracy", showarrow: false, xref: "x", yref: "y", x: range[1], y: range[1],
                   xanchor: "right", yanchor: "bottom", font: {size: M.MIN_FONT, color: P.grey}}],
  };
  M.draw("mobile-general", traces, M.withChance(M.withChance(layout, "x"), "y"));
});
