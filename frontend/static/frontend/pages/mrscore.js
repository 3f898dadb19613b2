// MRScore page. Expects #page-data (frontend/payloads/mrscore.py):
//   {benchmark, source: "judge"|"paper", histogram: [10 counts of question scores 1..10] | null,
//    published_histogram: [10 counts of the paper's topic scores] | null, n_scored, mean,
//    topics: [{slug, topic, category, n, mrscore, low, high, published, accuracy, score, bin}],
//    bins: [{label, topics}], provenance: {...} | null, judge_is_demo}
"use strict";
if (window.MMLU) window.MMLU.boot("#mrscore-form select[name=benchmark]", (M, data) => {
  const P = M.palette;
  const labels = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
  // The paper's bins (Table 9), one colour each on both charts.
  const binColour = {">= 7": P.green, "5-6.9": P.blue, "3-4.9": P.orange, "< 3": P.vermillion};
  const binName = {">= 7": "≥ 7", "5-6.9": "5–6.9", "3-4.9": "3–4.9", "< 3": "< 3"};

  // The paper's Fig. 9: how many questions got each score (bins coloured like its Table 9, named in the legend).
  const counts = data.histogram || data.published_histogram;
  if (counts) {
    const binOf = (i) => (i + 1 >= 7 ? ">= 7" : i + 1 >= 5 ? "5-6.9" : i + 1 >= 3 ? "3-4.9" : "< 3");
    // One trace per bin, so the legend names each colour.
    const traces = data.bins.map((b) => {
      const idx = labels.map((_, i) => i).filter((i) => binOf(i) === b.label);
      return {type: "bar", name: "MRScore " + binName[b.label], x: idx.map((i) => labels[i]), y: idx.map((i) => counts[i]),
              marker: {color: binColour[b.label]}, hovertemplate: "score %{x}: %{y}<extra></extra>"};
    });
    M.draw("histogram", traces, {
      height: 320, margin: {l: 50, r: 10, t: 10, b: 50}, showlegend: true, barmode: "overlay",
      xaxis: {title: {text: data.histogram ? "question MRScore (1–10)" : "published topic MRScore (1–10)"}, type: "category",
              categoryorder: "array", categoryarray: labels},
      yaxis: {title: {text: data.histogram ? "questions" : "topics"}, gridcolor: M.grid},
    });
  }

  // Accuracy against MRScore per topic, one trace per bin.
  const pts = data.topics.filter((t) => t.score !== null && t.accuracy !== null);
  const traces = data.bins.map((b) => {
    const rows = pts.filter((t) => t.bin === b.label);
    return {
      type: "scatter", mode: "markers", name: "MRScore " + binName[b.label], x: rows.map((t) => t.score),
      y: rows.map((t) => t.accuracy), hovertext: rows.map((t) => t.topic),
      marker: {color: binColour[b.label], size: 9, line: {width: 1, color: "#fff"}},
      hovertemplate: "%{hovertext}<br>MRScore %{x}, mean accuracy %{y}%<extra></extra>",
    };
  }).filter((t) => t.x.length);
  if (traces.length) {
    M.draw("scatter", traces, M.withChance({
      height: M.narrow() ? 420 : 460, margin: {l: 50, r: 10, t: 10, b: 50},
      xaxis: {title: {text: data.source === "judge" ? "topic MRScore (our judge)" : "topic MRScore (paper)"},
              gridcolor: M.grid},
      yaxis: M.accuracyAxis(pts.map((t) => t.accuracy), "mean accuracy across models (%)"),
    }, "y"));
  }
});
