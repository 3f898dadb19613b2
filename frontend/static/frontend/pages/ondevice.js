// On-device board page. Expects #page-data (frontend/payloads/ondevice.py):
//   {chart: {points: [{hub, file, quant, gb, gen, acc, lo, hi}], size: [point index, smallest file first],
//            speed: [point index, fastest first], labels: [cost profile labels], size_note, speed_note},
//    summaries: {size, speed}}
// Two scatters of the files the filters keep, accuracy (with 95% intervals) against file size and against generation
// speed, each with its Pareto frontier as a labelled step line: from the best-placed file on the cost axis, along to
// the next frontier file, then up to its accuracy (the best accuracy to be had within that size, or at that speed).
// Frontier labels that would overlap (files of nearly the same size or speed) move below their point or are left
// out (M.spaceLabels); the hover and the table name every file.
"use strict";
if (window.MMLU) window.MMLU.boot("#ondevice-filters select", (M, data) => {
  const P = M.palette, c = data.chart, narrow = M.narrow();
  const label = (p) => M.shortLabel(p.quant || p.file, 14);

  function draw(name, axis, x, frontier, note, hoverUnit) {
    const placed = c.points.filter((p) => x(p) !== null && p.acc !== null);
    if (!placed.length) return;
    const hover = "%{hovertext}<br>%{x} " + hoverUnit + " · %{y}% (95%: %{customdata})<extra></extra>";
    const files = {
      type: "scatter", mode: "markers", name: "files (95% intervals)", x: placed.map(x), y: placed.map((p) => p.acc),
      hovertext: placed.map((p) => M.esc(p.file) + (p.quant ? " · " + M.esc(p.quant) : "")),
      customdata: placed.map((p) => M.num(p.lo, 2) + "–" + M.num(p.hi, 2)), hovertemplate: hover,
      error_y: {type: "data", symmetric: false, color: P.grey, thickness: 1.2, width: 2,
                array: placed.map((p) => p.hi - p.acc), arrayminus: placed.map((p) => p.acc - p.lo)},
      marker: {color: P.blue, size: 9, line: {width: 1, color: P.blue}},
    };
    const steps = frontier.map((i) => c.points[i]);
    const labels = steps.map(label);
    const line = {
      type: "scatter", mode: "lines+markers+text", name: M.wrapLabel(note, narrow ? 36 : 90), x: steps.map(x),
      y: steps.map((p) => p.acc), line: {shape: "hv", color: P.vermillion, width: 2},
      marker: {color: P.vermillion, size: 11, symbol: "diamond-open"},
      text: labels, textposition: "top center", cliponaxis: false, hoverinfo: "skip",
      textfont: {size: M.MIN_FONT, color: P.vermillion},
    };
    M.draw(name, [files, line], M.withChance({
      height: narrow ? 400 : 440, margin: {l: 56, r: 16, t: 10, b: 50}, showlegend: true,
      legend: {orientation: "h", x: 0, y: 1.02, yanchor: "bottom"},
      xaxis: Object.assign({automargin: true}, axis),
      yaxis: M.accuracyAxis(placed.flatMap((p) => [p.acc, p.lo, p.hi])),
    }, "y"), (el) => M.spaceLabels(el, 1, labels));
  }

  const speedTitle = "generation tokens/s"
    + (c.labels.length === 1 ? " (" + c.labels[0] + ")" : " (server CPU: a proxy, not a phone)");
  draw("pareto-size", {type: "log", title: {text: "file size (GB, log scale)"}, gridcolor: M.grid},
       (p) => (p.gb === null ? null : Number(p.gb.toPrecision(3))), c.size, c.size_note, "GB");
  draw("pareto-speed", {title: {text: M.wrapLabel(speedTitle, narrow ? 40 : 90)}, gridcolor: M.grid,
                        rangemode: "tozero"}, (p) => p.gen, c.speed, c.speed_note, "tokens/s");
});
