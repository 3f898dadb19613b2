// Shared helpers for the page scripts (window.MMLU): the colour-blind-safe Okabe–Ito palette, Plotly
// defaults, the one axis rule of accuracy charts with its chance line, the page data from json_script,
// number formatting and HTML escaping.
// Tables and text are the page: no page loads the chart library in its HTML. This script fetches it (the file
// its own script tag names in data-plotly, from this site) once the page has loaded and the browser is idle, and
// only for a chart the reader comes to; a reader who never scrolls to a chart never pays for it.
// - A wide screen: each chart is drawn as it comes within NEAR of the viewport.
// - A phone (a narrow screen: the library's parsing and drawing cost seconds of a mid-range phone's main thread):
//   a chart is drawn once it is in view after the reader has scrolled, or when the reader asks (the chart's
//   "Draw the chart" button, partials/chart.html); a chart in the first view waits for either. The first view is
//   the page's text and tables, interactive at once, and never a chart's paint.
(function () {
  "use strict";
  const LIBRARY = document.currentScript && document.currentScript.dataset.plotly;
  const NEAR = "400px 0px";  // a wide screen: a chart this close below (or above) the viewport is drawn before it is reached
  const PHONE = window.matchMedia("(max-width: 600px)").matches;  // narrow() at the page's start
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

  // The chart library, fetched once: after the load event and once the browser is idle (the page is interactive
  // before any chart is parsed), with a plain script element from this site.
  let library = null;
  function idle() {
    return new Promise((resolve) => {
      if ("requestIdleCallback" in window) window.requestIdleCallback(() => resolve(), {timeout: 1000});
      else window.setTimeout(resolve, 0);
    });
  }
  function loadLibrary() {
    if (!library) {
      library = new Promise((resolve) => {
        if (document.readyState === "complete") resolve();
        else window.addEventListener("load", () => resolve(), {once: true});
      }).then(idle).then(() => new Promise((resolve, reject) => {
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

  // Each chart's latest figure (traces, layout, then) until it is drawn; `then(el)` runs after each drawing.
  const pending = new Map();
  function askButton(el) {
    return document.querySelector('button.chart-draw[data-chart="' + el.dataset.chart + '"]');
  }
  function render(el) {
    const figure = pending.get(el);
    if (!figure) return;
    pending.delete(el);
    const fn = el.dataset.drawn ? window.Plotly.react : window.Plotly.newPlot;
    el.dataset.drawn = "1";
    const button = askButton(el);
    if (button) button.hidden = true;
    const drawn = fn(el, figure[0], layoutWith(figure[1]), config);
    if (figure[2]) Promise.resolve(drawn).then(() => figure[2](el));
  }
  function failed(el) {
    pending.delete(el);
    const button = askButton(el);
    if (button) button.hidden = true;
    el.textContent = "The chart could not be drawn; the summary and the table have the figures.";
  }
  function drawSoon(el) {
    if (observer) observer.unobserve(el);
    loadLibrary().then(() => render(el), () => failed(el));
  }
  const observer = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    entries.forEach((entry) => { if (entry.isIntersecting) drawSoon(entry.target); });
  }, {rootMargin: PHONE ? "0px" : NEAR}) : null;

  // A phone: charts are watched from the reader's first scroll on; until then each waits behind its button.
  let watching = !PHONE;
  const waiting = new Set();
  function watch(el) {
    if (!observer) drawSoon(el);  // no IntersectionObserver: after the load event
    else if (watching) observer.observe(el);
    else waiting.add(el);
  }
  if (PHONE) {
    window.addEventListener("scroll", function started() {
      window.removeEventListener("scroll", started);
      watching = true;
      waiting.forEach((el) => { if (pending.has(el)) observer.observe(el); });
      waiting.clear();
    }, {passive: true});
    document.addEventListener("click", (event) => {
      const button = event.target.closest && event.target.closest("button.chart-draw");
      const el = button && document.getElementById("chart-" + button.dataset.chart);
      if (!el || !pending.has(el)) return;
      button.disabled = true;
      button.textContent = "Drawing the chart…";
      drawSoon(el);
    });
  }

  // Draws (first call) or updates (later calls) the chart container #chart-<name>: at once when it is drawn
  // already, else when the reader comes to it (the latest figure asked for). `then(el)`, when given, runs after
  // each drawing (the chart's own touches that need its drawn text, as ondevice.js's label spacing).
  function draw(name, traces, layout, then) {
    const el = document.getElementById("chart-" + name);
    if (!el) return null;
    pending.set(el, [traces, layout, then]);
    if (el.dataset.drawn && window.Plotly) { render(el); return el; }
    const button = PHONE && askButton(el);
    if (button) button.hidden = false;
    watch(el);
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

  // Text labels of trace `index` (its `labels`, one per point) that would overlap, after a drawing: each label is
  // kept above its point where it is clear of the labels kept before it, else put below its point, else left out
  // (the hover and the table still name the point). Plotly places chart text without avoiding collisions.
  function spaceLabels(el, index, labels) {
    const boxes = () => {
      const out = new Map();
      el.querySelectorAll(".scatterlayer g.trace").forEach((g) => {
        const cd = g.__data__;
        if (!cd || !cd[0] || cd[0].trace.index !== index) return;
        g.querySelectorAll("g.textpoint").forEach((t, k) => {
          const r = t.getBoundingClientRect();
          if (r.width && r.height) out.set(t.__data__ && t.__data__.i !== undefined ? t.__data__.i : k, r);
        });
      });
      return out;
    };
    const clear = (r, kept) => kept.every((o) => r.right <= o.left || o.right <= r.left || r.bottom <= o.top
                                                 || o.bottom <= r.top);
    const apply = (text, position) => window.Plotly.restyle(el, {text: [text], textposition: [position]}, [index]);
    const first = boxes(), kept = [], text = labels.slice(), position = labels.map(() => "top center");
    labels.forEach((_, i) => {
      const r = first.get(i);
      if (!r) return;
      if (clear(r, kept)) kept.push(r);
      else position[i] = "bottom center";
    });
    if (position.every((p) => p === "top center")) return Promise.resolve();
    return apply(text, position).then(() => {  // below its point, a label can still meet another: leave it out
      const now = boxes(), placed = [];
      labels.forEach((_, i) => {
        const r = now.get(i);
        if (!r) return;
        if (clear(r, placed)) placed.push(r);
        else text[i] = "";
      });
      return text.every((t, i) => t === labels[i]) ? null : apply(text, position);
    });
  }

  function narrow() {
    return window.matchMedia("(max-width: 600px)").matches;
  }

  window.MMLU = {palette, series, draw, spaceLabels, summarize, pageData, boot, num, esc, shortLabel, wrapLabel, narrow, MIN_FONT, grid,
                 CHANCE, accuracyRange, accuracyAxis, withChance};
})();
