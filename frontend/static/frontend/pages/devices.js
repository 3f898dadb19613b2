// Device speed reports (issue 25). Expects #device-data (frontend/payloads/devices.py), either
//   a file's model page: {devices: [{name, median, values: [tokens/s], outliers: [tokens/s], n, spread}], label}
//     -> #chart-device-speeds: generation speed by device, each counted report a dot, the median a diamond, outliers
//        (left out until reviewed) open circles;
//   or the per-device board: {board: {points: [{hub, file, quant, gen, acc, lo, hi, n, pareto}], scope, label}}
//     -> #chart-device-board: accuracy against the devices' generation speed, the Pareto frontier as a step line.
// Device and file names are people's text: escaped (M.esc) wherever Plotly reads HTML.
"use strict";
(function () {
  const M = window.MMLU, el = document.getElementById("device-data");
  if (!M || !el) return;
  const data = JSON.parse(el.textContent), P = M.palette, narrow = M.narrow();

  function bySpeed(devices) {
    const names = devices.map((d) => M.shortLabel(d.name, narrow ? 16 : 30));
    const dots = (key) => devices.flatMap((d, i) => d[key].map(() => names[i]));
    const values = (key) => devices.flatMap((d) => d[key]);
    const traces = [{
      type: "scatter", mode: "markers", name: "a report", x: values("values"), y: dots("values"),
      marker: {color: P.blue, size: 7, opacity: 0.7}, hovertemplate: "%{y}: %{x:.1f} tokens/s<extra>a report</extra>",
    }, {
      type: "scatter", mode: "markers", name: "confirmed figure: median of the people who agree", y: names,
      x: devices.map((d) => d.median), marker: {color: P.vermillion, size: 12, symbol: "diamond"},
      customdata: devices.map((d) => [d.n, d.spread]),
      hovertemplate: "%{y}: median %{x:.1f} tokens/s (confirmed by %{customdata[0]} people, %{customdata[1]})<extra></extra>",
    }];
    if (devices.some((d) => d.outliers.length)) {
      traces.push({type: "scatter", mode: "markers", name: "outlier or not agreeing, left out", x: values("outliers"),
                   y: dots("outliers"), marker: {color: P.grey, size: 9, symbol: "circle-open"},
                   hovertemplate: "%{y}: %{x:.1f} tokens/s<extra>outlier</extra>"});
    }
    M.draw("device-speeds", traces, {
      height: 120 + 34 * devices.length, margin: {l: 10, r: 16, t: 10, b: 50}, showlegend: true,
      xaxis: {title: {text: M.wrapLabel("generation tokens/s (llama-bench tg), people's own devices", narrow ? 36 : 90)},
              rangemode: "tozero", gridcolor: M.grid, automargin: true},
      yaxis: {type: "category", automargin: true, autorange: "reversed", tickfont: {size: M.MIN_FONT}},
    });
  }

  function board(b) {
    const placed = b.points.filter((p) => p.gen !== null && p.acc !== null);
    const steps = placed.filter((p) => p.pareto).sort((p, q) => q.gen - p.gen);
    // Speeds an order of magnitude apart (a toy file beside a real one) on a log axis: on a linear one the slower
    // files sit on the axis.
    const speeds = placed.map((p) => p.gen).filter((v) => v > 0);
    const log = speeds.length > 1 && Math.max.apply(null, speeds) > 10 * Math.min.apply(null, speeds);
    M.draw("device-board", [{
      type: "scatter", mode: "markers", name: "files (95% intervals)", x: placed.map((p) => p.gen),
      y: placed.map((p) => p.acc), hovertext: placed.map((p) => M.esc(p.file) + (p.quant ? " · " + M.esc(p.quant) : "")),
      customdata: placed.map((p) => [M.num(p.lo, 2) + "–" + M.num(p.hi, 2), p.n]),
      hovertemplate: "%{hovertext}<br>%{x:.1f} tokens/s (confirmed by %{customdata[1]} people) · %{y}% (95%: %{customdata[0]})<extra></extra>",
      error_y: {type: "data", symmetric: false, color: P.grey, thickness: 1.2, width: 2,
                array: placed.map((p) => p.hi - p.acc), arrayminus: placed.map((p) => p.acc - p.lo)},
      marker: {color: P.blue, size: 9},
    }, {
      type: "scatter", mode: "lines+markers+text",
      name: M.wrapLabel("Pareto frontier: no file is both faster and more accurate", narrow ? 36 : 90),
      x: steps.map((p) => p.gen), y: steps.map((p) => p.acc), line: {shape: "hv", color: P.vermillion, width: 2},
      marker: {color: P.vermillion, size: 11, symbol: "diamond-open"}, hoverinfo: "skip", cliponaxis: false,
      text: steps.map((p) => M.shortLabel(p.quant || p.file, 14)), textposition: "top center",
      textfont: {size: M.MIN_FONT, color: P.vermillion},
    }], M.withChance({
      height: narrow ? 400 : 440, margin: {l: 56, r: 16, t: 10, b: 60}, showlegend: true,
      xaxis: Object.assign({title: {text: M.wrapLabel("generation tokens/s on " + b.scope + " (reported"
                                                      + (log ? ", log scale)" : ")"), narrow ? 40 : 90)},
                            gridcolor: M.grid, automargin: true}, log ? {type: "log"} : {rangemode: "tozero"}),
      yaxis: M.accuracyAxis(placed.flatMap((p) => [p.acc, p.lo, p.hi])),
    }, "y"));
  }

  if (data.devices) bySpeed(data.devices);
  if (data.board) board(data.board);
})();
