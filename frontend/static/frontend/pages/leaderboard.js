// Leaderboard page. Expects #page-data from frontend/payloads/leaderboard.py:
//   {benchmark, benchmark_name, split, shots, sealed, measured, csv, model_url,
//    fields: names of the row columns, rows: [[hub_id, revision, precision#, params, model_type#, flags,
//    n, correct|null, accuracy, ci95_low, ci95_high, rank|null, source#, run_id], ...],
//    lookups: {precision: [...], model_type: [...], source: ["measured", paper label, ...]}, notes: {run_id: text}}
// (# = index into lookups; flags bit 1 = flagged, bit 2 = possible contamination.)
// Filters, search, sorting and re-ranking run here on those rows; the URL keeps the state.
(function () {
  "use strict";
  const M = window.MMLU;
  const data = M && M.pageData();
  if (!data) return;

  const F = {};
  data.fields.forEach((name, i) => { F[name] = i; });
  const L = data.lookups;
  const Z95 = 1.959963984540054;
  const ON_DEVICE_MAX = 3e9;
  const TOP = 20;
  const SIZE_LABEL = {mini: "Mini", small: "Small", medium: "Medium", large: "Large"};
  const DEFAULT_DIR = {rank: 1, name: 1, accuracy: -1, n: -1, params: 1, model_type: 1, precision: 1};
  const API_SORTS = {rank: "rank", name: "name", accuracy: "accuracy", params: "params"};
  const NARROW_HIDDEN = ["interval", "n", "size_class", "model_type", "precision", "revision"];

  function sizeClass(params) {
    if (params === null || params === undefined) return null;
    const b = params / 1e9;
    return b < 5 ? "mini" : b < 13 ? "small" : b < 50 ? "medium" : "large";
  }

  const all = data.rows.map((r) => {
    const n = r[F.n], acc = r[F.accuracy];
    // The sealed split withholds `correct`; ranks then use the count the rounded accuracy implies.
    const correct = r[F.correct] !== null ? r[F.correct] : (n && acc !== null ? Math.round(acc / 100 * n) : 0);
    return {
      hub: r[F.hub_id], rev: r[F.revision], precision: L.precision[r[F.precision]] || "", params: r[F.params],
      size: sizeClass(r[F.params]), type: L.model_type[r[F.model_type]] || "", flagged: (r[F.flags] & 1) === 1,
      contamination: (r[F.flags] & 2) === 2, n: n, correct: correct, acc: acc, lo: r[F.ci95_low],
      hi: r[F.ci95_high], serverRank: r[F.rank], source: L.source[r[F.source]], reported: r[F.source] !== 0,
      run: r[F.run_id], note: data.notes[r[F.run_id]] || "", rank: null, tied: false,
    };
  });

  const form = document.getElementById("leaderboard-filters");
  const table = document.getElementById("leaderboard-table");
  const tbody = table.tBodies[0];
  const chooser = document.getElementById("column-chooser");
  const csvLink = document.querySelector("a.csv-link");
  const params = new URLSearchParams(window.location.search);
  const sort = {key: "rank", dir: 1};
  const wanted = (params.get("sort") || "").replace(/^-/, "");
  if (wanted in DEFAULT_DIR) {
    sort.key = wanted;
    sort.dir = params.get("sort").startsWith("-") ? -1 : 1;
  }
  let hidden = params.has("hide") ? params.get("hide").split(",").filter(Boolean) : (M.narrow() ? NARROW_HIDDEN : []);

  function filters() {
    const e = form.elements;
    return {size: e.size_class.value, onDevice: e.on_device.checked, type: e.model_type.value,
            precision: e.precision.value, flagged: e.flagged.value, search: e.search.value.trim().toLowerCase(),
            reported: e.include_reported.checked};
  }

  function keep(r, f) {
    if (r.reported) return f.reported;  // the paper's rows carry no size/type/precision: shown on request only
    if (f.size && r.size !== f.size) return false;
    if (f.onDevice && (r.params === null || r.params > ON_DEVICE_MAX)) return false;
    if (f.type && r.type !== f.type) return false;
    if (f.precision && r.precision !== f.precision) return false;
    if (f.flagged === "true" && !r.flagged) return false;
    if (f.flagged === "false" && r.flagged) return false;
    return true;
  }

  // The server's test (results/ranking.py): pooled two-proportion z-test, two-sided 95%.
  function significantlyHigher(c1, n1, c2, n2) {
    if (!n1 || !n2) return false;
    const p1 = c1 / n1, p2 = c2 / n2, pooled = (c1 + c2) / (n1 + n2);
    const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    return se > 0 && (p1 - p2) / se > Z95;
  }

  function rank(rows, useServer) {
    if (useServer) {
      rows.forEach((r) => { r.rank = r.serverRank; });
    } else {
      // Only a row with a higher proportion can be significantly higher: compare against those.
      const order = rows.slice().sort((a, b) => b.correct / (b.n || 1) - a.correct / (a.n || 1));
      order.forEach((a, k) => {
        let above = 0;
        for (let m = 0; m < k; m++) {
          const b = order[m];
          if (significantlyHigher(b.correct, b.n, a.correct, a.n)) above++;
        }
        a.rank = 1 + above;
      });
    }
    const counts = {};
    rows.forEach((r) => { counts[r.rank] = (counts[r.rank] || 0) + 1; });
    rows.forEach((r) => { r.tied = counts[r.rank] > 1; });
  }

  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  const SORTS = {
    rank: (a, b) => a.rank - b.rank || (b.acc || 0) - (a.acc || 0) || cmp(a.hub, b.hub),
    name: (a, b) => cmp(a.hub.toLowerCase(), b.hub.toLowerCase()) || cmp(a.precision, b.precision),
    accuracy: (a, b) => (a.acc || 0) - (b.acc || 0) || cmp(a.hub, b.hub),
    n: (a, b) => (a.n || 0) - (b.n || 0) || cmp(a.hub, b.hub),
    params: (a, b) => (a.params || 0) - (b.params || 0) || cmp(a.hub, b.hub),
    model_type: (a, b) => cmp(a.type, b.type) || cmp(a.hub, b.hub),
    precision: (a, b) => cmp(a.precision, b.precision) || cmp(a.hub, b.hub),
  };

  function sorted(rows) {
    const by = SORTS[sort.key];
    const out = rows.slice().sort((a, b) => sort.dir * by(a, b));
    if (sort.key === "params") {  // models without a parameter count go last either way
      return out.filter((r) => r.params !== null).concat(out.filter((r) => r.params === null));
    }
    return out;
  }

  function paramsText(p) {
    if (p === null || p === undefined) return "–";
    return p >= 1e9 ? (p / 1e9).toFixed(p >= 1e10 ? 0 : 1) + "B" : Math.round(p / 1e6) + "M";
  }

  function intervalBar(r) {
    if (r.lo === null || r.hi === null) return "";
    return '<span class="ci-bar" aria-hidden="true"><span style="left:' + r.lo + "%;width:" +
      Math.max(0.5, r.hi - r.lo) + '%"></span><i style="left:' + r.acc + '%"></i></span>';
  }

  function rowHtml(r, band, groupStart) {
    const places = data.sealed ? 1 : 2;
    const name = r.reported ? M.esc(r.hub)
      : '<a href="' + M.esc(data.model_url + r.hub.split("/").map(encodeURIComponent).join("/") + "/") + '">' +
        M.esc(r.hub) + "</a>";
    let badges = "";
    if (r.flagged) {
      const why = r.contamination ? "possible contamination: validation above test by more than 3 standard errors"
        : "flagged by an admin";
      badges += ' <a class="badge flag" href="' + M.esc(data.contamination_url) + '" title="' + why + '">⚑ <span>' +
        (r.contamination ? "possible contamination" : "flagged") + "</span></a>";
    }
    if (r.reported) badges += ' <span class="badge reported" title="' + M.esc(r.source) + '">reported by the paper</span>';
    const note = r.note ? '<br><small class="ladder-note">' + M.esc(r.note) + "</small>" : "";
    const cls = ["band-" + band];
    if (groupStart) cls.push("group-start");
    if (r.reported) cls.push("reported");
    return '<tr data-hub-id="' + M.esc(r.hub) + '" class="' + cls.join(" ") + '">' +
      '<td class="num">' + r.rank + (r.tied ? '<span class="tie" title="tied: not significantly different">=</span>' : "") + "</td>" +
      '<th scope="row">' + name + badges + note + "</th>" +
      '<td class="num">' + M.num(r.acc, places) + "</td>" +
      '<td class="interval">' + (r.lo === null ? "–" : M.num(r.lo, places) + "–" + M.num(r.hi, places)) + intervalBar(r) + "</td>" +
      '<td class="num">' + (r.n || "–") + "</td>" +
      '<td class="num">' + paramsText(r.params) + "</td>" +
      "<td>" + (SIZE_LABEL[r.size] || "–") + "</td>" +
      "<td>" + M.esc(r.type || "–") + "</td>" +
      "<td>" + M.esc(r.precision || "–") + "</td>" +
      "<td><code>" + M.esc(r.rev || "–") + "</code></td></tr>";
  }

  function renderTable(rows) {
    const html = [];
    let band = 0, last = null;
    rows.forEach((r, i) => {
      const byRank = sort.key === "rank";
      const start = byRank && i > 0 && r.rank !== last;
      if (start) band = 1 - band;
      last = r.rank;
      html.push(rowHtml(r, byRank ? band : 0, start));
    });
    tbody.innerHTML = html.join("");  // only model rows in the body: an empty result is said below the table
    const none = document.getElementById("no-rows");
    none.hidden = rows.length > 0;
    none.textContent = emptyText();
    table.querySelectorAll("th[data-sort]").forEach((th) => {
      if (th.dataset.sort === sort.key) th.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
  }

  function renderChart(rows) {
    const top = rows.filter((r) => r.acc !== null).sort((a, b) => b.acc - a.acc || cmp(a.hub, b.hub)).slice(0, TOP);
    const seen = {};
    top.forEach((r) => { seen[r.hub] = (seen[r.hub] || 0) + 1; });
    top.forEach((r) => {
      r.label = M.shortLabel(r.hub, M.narrow() ? 22 : 40) + (seen[r.hub] > 1 ? " · " + (r.precision || r.source) : "");
    });
    const trace = (subset, name, color, symbol) => ({
      type: "scatter", mode: "markers", name: name + " (95% interval)", x: subset.map((r) => r.acc), y: subset.map((r) => r.label),
      customdata: subset.map((r) => [M.esc(r.hub), r.lo === null ? "no interval" : M.num(r.lo) + "–" + M.num(r.hi), r.rank]),
      hovertemplate: "%{customdata[0]}<br>%{x}% (95%: %{customdata[1]}), rank %{customdata[2]}<extra></extra>",
      error_x: {type: "data", symmetric: false, color: color, thickness: 1.5, width: 3,
                array: subset.map((r) => (r.hi === null ? 0 : r.hi - r.acc)),
                arrayminus: subset.map((r) => (r.lo === null ? 0 : r.acc - r.lo))},
      marker: {color: color, size: 9, symbol: symbol, line: {color: color, width: 1.5}},
    });
    const groups = [[top.filter((r) => !r.reported && !r.flagged), "measured here", M.palette.blue, "circle"],
                    [top.filter((r) => !r.reported && r.flagged), "measured, flagged", M.palette.vermillion, "x"],
                    [top.filter((r) => r.reported), "reported by the paper", M.palette.orange, "diamond-open"]];
    const kept = groups.filter((g, i) => g[0].length || i === 0);  // the measured trace stays, even empty
    const traces = kept.map((g) => trace(g[0], g[1], g[2], g[3]));
    M.draw("leaderboard", traces, M.withChance({
      height: Math.max(220, 70 + 24 * top.length),
      margin: {l: 10, r: 16, t: 10, b: 50},
      xaxis: M.accuracyAxis(top.flatMap((r) => [r.acc, r.lo, r.hi])),
      yaxis: {type: "category", categoryorder: "array", categoryarray: top.map((r) => r.label),
              autorange: "reversed", automargin: true},
      showlegend: true,
      annotations: top.length ? [] : [{text: emptyText(), showarrow: false,
                                       xref: "paper", yref: "paper", x: 0.5, y: 0.5}],
    }, "x"));
    return top;
  }

  // An empty board is not the filters' doing: say which it is, and how to fill it.
  function emptyText() {
    if (data.measured) return "No model matches these filters.";
    return "No model has been evaluated on " + data.benchmark_name + " (" + data.split + ", " + data.shots +
      "-shot) yet; submitted models appear here once scored." +
      (all.length && !filters().reported ? " Tick “Show the paper's reported rows” for the paper's figures." : "");
  }

  function summaryText(rows, top) {
    const measured = rows.filter((r) => !r.reported).length;
    const reported = rows.length - measured;
    if (!rows.length) return emptyText();
    const best = top[0];
    const first = rows.filter((r) => r.rank === 1).length;
    return rows.length + " rows shown (" + measured + " measured" + (reported ? ", " + reported + " reported by the paper" : "") +
      "). The chart shows the " + top.length + " most accurate. Highest: " + best.hub + " at " + M.num(best.acc, data.sealed ? 1 : 2) + "%" +
      (best.lo === null ? "" : " (95% interval " + M.num(best.lo, data.sealed ? 1 : 2) + "–" + M.num(best.hi, data.sealed ? 1 : 2) + ")") +
      ". " + first + (first === 1 ? " row holds" : " rows share") + " rank 1.";
  }

  function stateQuery(f, forApi) {
    const q = new URLSearchParams();
    const e = form.elements;
    if (forApi || e.benchmark.value !== "mobile-mmlu") q.set("benchmark", e.benchmark.value);
    if (forApi || e.split.value !== "validation") q.set("split", e.split.value);
    if (forApi || e.shots.value !== "0") q.set("shots", e.shots.value);
    if (f.size) q.set("size_class", f.size);
    if (f.onDevice) q.set("on_device", "true");
    if (f.type) q.set("model_type", f.type);
    if (f.precision) q.set("precision", f.precision);
    if (f.flagged) q.set("flagged", f.flagged);
    if (f.search) q.set("search", e.search.value.trim());
    if (f.reported) q.set("include_reported", "true");
    const sortValue = (sort.dir < 0 ? "-" : "") + sort.key;
    if (forApi) {
      if (API_SORTS[sort.key]) q.set("sort", (sort.dir < 0 ? "-" : "") + API_SORTS[sort.key]);
      q.set("format", "csv");
    } else {
      if (sortValue !== "rank") q.set("sort", sortValue);
      if (hidden.length && hidden.join(",") !== (M.narrow() ? NARROW_HIDDEN : []).join(",")) q.set("hide", hidden.join(","));
    }
    return q.toString();
  }

  function update() {
    const f = filters();
    const shown = all.filter((r) => keep(r, f));
    const everything = !f.reported && shown.length === data.measured;  // the server ranked exactly this set
    rank(shown, everything);
    const rows = sorted(f.search ? shown.filter((r) => r.hub.toLowerCase().includes(f.search)) : shown);
    renderTable(rows);
    const top = renderChart(rows);
    M.summarize("leaderboard", summaryText(rows, top));
    document.getElementById("row-count").textContent = rows.length + " of " + all.length + " rows shown.";
    const query = stateQuery(f, false);
    window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : ""));
    csvLink.href = data.csv + "?" + stateQuery(f, true);
  }

  function applyColumns() {
    const heads = Array.from(table.tHead.rows[0].cells);
    const css = hidden.map((key) => {
      const index = heads.findIndex((th) => th.dataset.col === key);
      return index < 0 ? "" : "#leaderboard-table tr > :nth-child(" + (index + 1) + ") { display: none; }";
    }).join("\n");
    let style = document.getElementById("column-style");
    if (!style) {
      style = document.createElement("style");
      style.id = "column-style";
      document.head.appendChild(style);
    }
    style.textContent = css;
    chooser.querySelectorAll("input[data-column]").forEach((box) => { box.checked = !hidden.includes(box.dataset.column); });
  }

  // Board switches load another board (keeping filters, sort and columns); the other controls filter what is here.
  ["benchmark", "split", "shots"].forEach((name) => {
    form.elements[name].addEventListener("change", () => {
      const query = stateQuery(filters(), false);
      window.location.assign(window.location.pathname + (query ? "?" + query : ""));
    });
  });
  form.addEventListener("submit", (event) => { event.preventDefault(); update(); });
  let timer = null;
  form.addEventListener("input", (event) => {
    if (["benchmark", "split", "shots"].includes(event.target.name)) return;
    clearTimeout(timer);
    timer = setTimeout(update, event.target.name === "search" ? 150 : 0);
  });
  form.addEventListener("change", (event) => {
    if (["benchmark", "split", "shots"].includes(event.target.name)) return;
    clearTimeout(timer);
    update();
  });
  table.tHead.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    const th = button && button.closest("th[data-sort]");
    if (!th) return;
    const key = th.dataset.sort;
    if (sort.key === key) sort.dir = -sort.dir;
    else { sort.key = key; sort.dir = DEFAULT_DIR[key]; }
    update();
  });
  chooser.addEventListener("change", (event) => {
    const key = event.target.dataset.column;
    if (!key) return;
    hidden = event.target.checked ? hidden.filter((k) => k !== key) : hidden.concat([key]);
    applyColumns();
    update();
  });

  applyColumns();
  update();
})();
