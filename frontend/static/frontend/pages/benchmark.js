// A benchmark's page. Expects #page-data (frontend/views/benchmarks.py taxonomy_chart):
//   {ids: [...], labels: [...], parents: [... "" for a category], values: [topic population or 0], counts, total}
"use strict";
if (window.MMLU) window.MMLU.boot(null, (M, data) => {
  if (!data.ids.length) return;
  M.draw("taxonomy", [{
    type: "sunburst", ids: data.ids, labels: data.labels.map((l) => M.esc(l)), parents: data.parents,
    values: data.values, branchvalues: "remainder", maxdepth: 2, insidetextorientation: "radial",
    insidetextfont: {size: 12},  // sectors too small for 11 px hide their label (uniformtext); hover and the table name them
    hovertemplate: "%{label}: %{value:,} questions<extra></extra>",
  }], {
    height: M.narrow() ? 380 : 520, margin: {l: 0, r: 0, t: 10, b: 10},
    sunburstcolorway: M.series, extendsunburstcolors: true,
  });
});
