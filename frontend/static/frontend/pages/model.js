// Model page. Expects #page-data (frontend/payloads/model.py), present only for an open-split run:
//   {hub_id, run_id, benchmark, split, shots, variant,
//    categories: [{key, name, n, correct, accuracy, ci95_low, ci95_high}],
//    subcategories: [{... same, category}],
//    variants: {names: [variant], columns: ["Overall", category names...], z: [[accuracy per column] per variant]},
//    summaries: {radar, subcategories, variants}}
// The run chooser (select[name=run]) loads another run's page. Figures show one decimal, as the page's tables.
// The topic table is sorted by sortable.js, which does not wait for Plotly.
"use strict";
if (window.MMLU) window.MMLU.boot("#run-chooser select[name=run]", (M, data) => {
  const P = M.palette;

  // Category radar (the paper's Fig. 13): closed polygon over the categories.
  const cats = data.categories;
  if (cats.length) {
    const theta = cats.map((c) => M.wrapLabel(c.name, M.narrow() ? 10 : 16));
    M.draw("radar", [{
      type: "scatterpolar", mode: "lines+markers", fill: "toself", name: "accuracy by category",
      r: cats.map((c) => c.accuracy).concat([cats[0].accuracy]), theta: theta.concat([theta[0]]),
      customdata: cats.map((c) => [c.name, c.ci95_low, c.ci95_high, c.n]).concat([[cats[0].name, cats[0].ci95_low, cats[0].ci95_high, cats[0].n]]),
      hovertemplate: "%{customdata[0]}: %{r:.1f}% (95%: %{customdata[1]:.1f}–%{customdata[2]:.1f}, n=%{customdata[3]})<extra></extra>",
      line: {color: P.blue}, marker: {color: P.blue, size: 6}, fillcolor: "rgba(0,114,178,0.15)",
    }, {
      type: "scatterpolar", mode: "lines", name: "chance (25%)", hoverinfo: "skip",
      r: theta.concat([theta[0]]).map(() => M.CHANCE), theta: theta.concat([theta[0]]),
      line: {color: P.grey, dash: "dash", width: 1.5},
    }], {
      height: M.narrow() ? 380 : 460, margin: M.narrow() ? {l: 60, r: 60, t: 50, b: 40} : {l: 80, r: 80, t: 50, b: 40},
      showlegend: true,
      // The radial labels sit between two categories so they never cover a category's name.
      polar: {radialaxis: {range: M.accuracyRange(cats.map((c) => c.accuracy)), ticksuffix: "%",
                           angle: 90 - 180 / cats.length, tickangle: 90 - 180 / cats.length,
                           tickfont: {size: M.MIN_FONT}},
              angularaxis: {tickfont: {size: M.narrow() ? M.MIN_FONT : 12}}},
    });
  }

  // Subcategory accuracy as dots with 95% intervals: dots, not bars, because the axis follows the data (the
  // shared rule) and a bar cut short of zero would exaggerate. The hover names each subcategory's category.
  const subs = data.subcategories;
  if (subs.length) {
    M.draw("subcategories", [{
      type: "scatter", mode: "markers", name: "accuracy, with its 95% interval", y: subs.map((s) => s.name),
      x: subs.map((s) => s.accuracy), marker: {color: P.blue, size: 8},
      customdata: subs.map((s) => [s.category, s.ci95_low, s.ci95_high, s.n]),
      error_x: {type: "data", symmetric: false, color: P.blue, thickness: 1.5, width: 3,
                array: subs.map((s) => s.ci95_high - s.accuracy), arrayminus: subs.map((s) => s.accuracy - s.ci95_low)},
      hovertemplate: "%{y} (%{customdata[0]}): %{x:.1f}%<br>95%: %{customdata[1]:.1f}–%{customdata[2]:.1f}, n=%{customdata[3]}<extra></extra>",
    }], M.withChance({
      height: 110 + 22 * subs.length, margin: {l: 10, r: 16, t: 10, b: 45}, showlegend: true,
      xaxis: M.accuracyAxis(subs.flatMap((s) => [s.ci95_low, s.ci95_high])),
      yaxis: {type: "category", categoryorder: "array", categoryarray: subs.map((s) => s.name),
              autorange: "reversed", automargin: true, tickfont: {size: M.MIN_FONT}},
    }, "x"));
  }

  // Order robustness (the paper's Fig. 16): accuracy per answer order (rows) overall and per category. One order
  // has no spread to show: the page says so instead (payloads/model.py).
  const v = data.variants;
  if (v.names.length >= 2) {
    const columns = v.columns.map((c) => M.shortLabel(c, M.narrow() ? 12 : 22));
    M.draw("variants", [{
      type: "heatmap", z: v.z, x: columns, y: v.names, colorscale: "Cividis",  // scaled to this run's range
      texttemplate: M.narrow() ? "" : "%{z:.1f}", textfont: {size: M.MIN_FONT},  // no gaps: see compare.js
      colorbar: {title: {text: "accuracy (%)"}, thickness: 10},
      hovertemplate: "%{y}, %{x}: %{z:.1f}%<extra></extra>",
    }], {
      height: 90 + 32 * v.names.length, margin: {l: 10, r: 10, t: 10, b: 10},
      xaxis: {side: "top", tickangle: M.narrow() ? -60 : -30, automargin: true},
      yaxis: {autorange: "reversed", automargin: true},
    });
  }
});
