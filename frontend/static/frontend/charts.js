// Shared helpers for the page scripts (window.MMLU): the colour-blind-safe Okabe–Ito palette, Plotly
// defaults, the page data from json_script, number formatting and HTML escaping. Loaded after Plotly.
(function () {
  "use strict";
  const palette = {blue: "#0072B2", orange: "#E69F00", green: "#009E73", vermillion: "#D55E00",
                   purple: "#CC79A7", sky: "#56B4E9", yellow: "#F0E442", black: "#000000", grey: "#5f6b77"};
  const series = [palette.blue, palette.orange, palette.green, palette.vermillion, palette.purple,
                  palette.sky, palette.black, palette.yellow];
  // On a phone the mode bar would sit on the legend (both top right); zoom there is by pinch anyway.
  const config = {responsive: true, displaylogo: false, modeBarButtonsToRemove: ["select2d", "lasso2d"],
                  displayModeBar: window.matchMedia("(max-width: 600px)").matches ? false : "hover"};

  function layoutWith(layout) {
    const base = {
      margin: {l: 10, r: 10, t: 10, b: 40}, font: {family: "system-ui, sans-serif", size: 12, color: "#1b1f24"},
      paper_bgcolor: "#ffffff", plot_bgcolor: "#ffffff", hoverlabel: {bgcolor: "#ffffff"},
      legend: {orientation: "h", x: 0, y: 1.01, yanchor: "bottom"},  // above the plot: clear of axis titles
    };
    const out = Object.assign(base, layout || {});
    out.margin = Object.assign({l: 10, r: 10, t: 10, b: 40}, (layout || {}).margin || {});
    return out;
  }

  // Draws (first call) or updates (later calls) the chart container #chart-<name>.
  function draw(name, traces, layout) {
    const el = document.getElementById("chart-" + name);
    if (!el) return null;
    if (!window.Plotly) {
      el.textContent = "The chart could not be drawn; the summary and the table have the figures.";
      return null;
    }
    const fn = el.dataset.drawn ? window.Plotly.react : window.Plotly.newPlot;
    fn(el, traces, layoutWith(layout), config);
    el.dataset.drawn = "1";
    return el;
  }

  function summarize(name, text) {
    const el = document.getElementById("summary-" + name);
    if (el) el.textContent = text;
  }

  function pageData() {
    const el = document.getElementById("page-data");
    return el ? JSON.parse(el.textContent) : null;
  }

  function num(x, places) {
    return x === null || x === undefined ? "–" : Number(x).toFixed(places === undefined ? 1 : places);
  }

  const escapes = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
  function esc(s) {
    return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g, (c) => escapes[c]);
  }

  // Long model ids shortened for axis labels (the hover text keeps the full id). Escaped: Plotly reads
  // a little HTML in labels, and a model id is the submitter's text.
  function shortLabel(s, max) {
    max = max || 28;
    s = String(s);
    return esc(s.length > max ? "…" + s.slice(s.length - max + 1) : s);
  }

  // Breaks a label into lines of about `width` characters at spaces (Plotly draws <br> as a line break).
  function wrapLabel(s, width) {
    const lines = [];
    let line = "";
    String(s).split(" ").forEach((word) => {
      if (line && (line + " " + word).length > width) { lines.push(line); line = word; }
      else line = line ? line + " " + word : word;
    });
    if (line) lines.push(line);
    return lines.map(esc).join("<br>");
  }

  function narrow() {
    return window.matchMedia("(max-width: 600px)").matches;
  }

  window.MMLU = {palette, series, draw, summarize, pageData, num, esc, shortLabel, wrapLabel, narrow};
})();
