// Shared helpers for the page scripts (window.MMLU): the colour-blind-safe Okabe–Ito palette, Plotly
// defaults, the one axis rule of accuracy charts with its chance line, the page data from json_script,
// number formatting and HTML escaping.
// Tables and text are the page: no page loads the chart library in its HTML. This script fetches it (the file
// its own script tag names in data-plotly, from this site) once the page has loaded and a chart comes near the
// viewport, and draws each chart as it comes near; a reader who never scrolls to a chart never pays for it.
(function () {
  "use strict";
  const LIBRARY = document.currentScript && document.currentScript.dataset.plotly;
  const NEAR = "400px 0px";  // a chart this close below (or above) the viewport is drawn before it is reached
  const palette = {blue: "#0072B2", orange: "#E69F00", green: "#009E73", vermillion: "#D55E00",
                   purple: "#CC79A7", sky: "#56B4E9", yellow: "#F0E442", black: "#000000", grey: "#5f6b77"};
  const series = [palette.blue, palette.orange, palette.green, palette.vermillion, palette.purple,
                  palette.sky, palette.black, palette.yellow];
  // No mode bar: its buttons are focusable, and a focusable control inside the chart's role=img container is
  // invisible to assistive technology (axe: nested-interactive). Zoom stays on drag, reset on double-click; the
  // table and the CSV beside every chart carry its figures.
  const config = {responsive: true, displaylogo: false, displayModeBar: false};
  const MIN_FONT = 11;  // px: no chart text smaller (ticks, legends, labels inside shapes)
  const grid = "#e5e7eb";

  // One axis rule for every accuracy chart: the data (intervals included) and chance, padded, never narrower
  // than MIN_SPAN points so sub-point noise is not blown up, within 0–100.
  const CHANCE = 25, MIN_SPAN = 10;
  function accuracyRange(values) {
    const xs = values.filter((v) => v !== null && v !== undefined && isFinite(v)).concat([CHANCE]);
    let lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
    const pad = Math.max(2, 0.05 * (hi - lo));
    lo -= pad; hi += pad;
    if (hi - lo < MIN_SPAN) { const mid = (lo + hi) / 2; lo = mid - MIN_SPAN / 2; hi = mid + MIN_SPAN / 2; }
    if (lo < 0) { hi = Math.min(100, hi - lo); lo = 0; }
    if (hi > 100) { lo = Math.max(0, lo - (hi - 100)); hi = 100; }
    return [lo, hi];
  }

  function accuracyAxis(values, title, extra) {
    return Object.assign({title: {text: title || "accuracy (%)"}, range: accuracyRange(values), gridcolor: grid,
                          zeroline: false}, extra || {});
  }

  // The 25% chance line as a labelled dashed line across an accuracy axis ("x" or "y"), merged into a layout.
  function withChance(layout, axis) {
    const line = {type: "line", line: {color: palette.grey, dash: "dash", width: 1.5}, layer: "below"};
    const label = {text: "chance (25%)", showarrow: false, font: {size: MIN_FONT, color: palette.grey}};
    if (axis === "x") {
      Object.assign(line, {xref: "x", yref: "paper", x0: CHANCE, x1: CHANCE, y0: 0, y1: 1});
      Object.assign(label, {xref: "x", yref: "paper", x: CHANCE, y: 0, yanchor: "bottom", xanchor: "left", xshift: 3});
    } else {
      Object.assign(line, {xref: "paper", yref: "y", x0: 0, x1: 1, y0: CHANCE, y1: CHANCE});
      Object.assign(label, {xref: "paper", yref: "y", x: 1, y: CHANCE, xanchor: "right", yanchor: "bottom"});
    }
    layout.shapes = (layout.shapes || []).concat([line]);
    layout.annotations = (layout.annotations || []).concat([label]);
    return layout;
  }

  function layoutWith(layout) {
    const base = {
      margin: {l: 10, r: 10, t: 10, b: 40}, font: {family: "system-ui, sans-serif", size: 12, color: "#1b1f24"},
      paper_bgcolor: "#ffffff", plot_bgcolor: "#ffffff", hoverlabel: {bgcolor: "#ffffff"},
      legend: {orientation: "h", x: 0, y: 1.01, yanchor: "bottom"},  // above the plot: clear of axis titles
      uniformtext: {minsize: MIN_FONT, mode: "hide"},  // text inside bars and sectors: hidden rather than tiny
    };
    const out = Object.assign(base, layout || {});
    out.margin = Object.assign({l: 10, r: 10, t: 10, b: 40}, (layout || {}).margin || {});
    return out;
  }

  // The chart library, fetched once: after the load event (the page is interactive before any chart is parsed),
  // with a plain script element from this site.
  let library = null;
  function loadLibrary() {
    if (!library) {
      library = new Promise((resolve) => {
        if (document.readyState === "complete") resolve();
        else window.addEventListener("load", () => resolve(), {once: true});
      }).then(() => new Promise((resolve, reject) => {
        if (window.Plotly) { resolve(); return; }
        if (!LIBRARY) { reject(new Error("no data-plotly on the charts.js script tag")); return; }
        const script = document.createElement("script");
        script.src = LIBRARY;
        script.onload = () => (window.Plotly ? resolve() : reject(new Error("the chart library defined no Plotly")));
        script.onerror = () => reject(new Error("the chart library did not load"));
        document.head.appendChild(script);
      }));
    }
    return library;
  }

  // Each chart's latest figure until it is drawn; a chart is drawn once it comes near the viewport.
  const pending = new Map();
  function render(el) {
    const figure = pending.get(el);
    if (!figure) return;
    pending.delete(el);
    const fn = el.dataset.drawn ? window.Plotly.react : window.Plotly.newPlot;
    fn(el, figure[0], layoutWith(figure[1]), config);
    el.dataset.drawn = "1";
  }
  function failed(el) {
    pending.delete(el);
    el.textContent = "The chart could not be drawn; the summary and the table have the figures.";
  }
  function drawWhenNear(el) {
    loadLibrary().then(() => render(el), () => failed(el));
  }
  const observer = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    entries.forEach((entry) => {
      if (!entry.isIntersecting) return;
      observer.unobserve(entry.target);
      drawWhenNear(entry.target);
    });
  }, {rootMargin: NEAR}) : null;

  // Draws (first call) or updates (later calls) the chart container #chart-<name>: at once when it is drawn
  // already, else when it comes near the viewport (the latest figure asked for).
  function draw(name, traces, layout) {
    const el = document.getElementById("chart-" + name);
    if (!el) return null;
    pending.set(el, [traces, layout]);
    if (el.dataset.drawn && window.Plotly) render(el);
    else if (observer) observer.observe(el);
    else drawWhenNear(el);  // no IntersectionObserver: after the load event
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

  // A chart page's start (pages/*.js): the selects matching `selects` (none when null) submit their form on
  // change (its <noscript> button does that without a script); then draw(MMLU, data) runs with #page-data,
  // when the page has one.
  function boot(selects, draw) {
    if (selects) document.querySelectorAll(selects).forEach((s) => s.addEventListener("change", () => s.form.submit()));
    const data = pageData();
    if (data) draw(window.MMLU, data);
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

  window.MMLU = {palette, series, draw, summarize, pageData, boot, num, esc, shortLabel, wrapLabel, narrow, MIN_FONT, grid,
                 CHANCE, accuracyRange, accuracyAxis, withChance};
})();
