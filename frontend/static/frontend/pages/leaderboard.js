// Leaderboard page. The server filters, ranks, sorts and pages the board (frontend/payloads/leaderboard.py) and
// sends it as HTML rows, readable before and without this script. This script only makes that quicker and adds
// what needs a script:
//   - filters apply as they change, and the board's links (sort headers, column sets, pages, the flagged toggle)
//     are followed, by asking the same URL for the board alone (?fragment=board) and swapping it in;
//     the URL keeps the state (history), so a reload or a shared link shows the same board;
//   - ☆ pins a row to the top of every page (pin=hub,... in the URL);
//   - ticked rows open in Compare (at most 8);
//   - the chart (charts.js fetches Plotly after the load event, once the chart is near the viewport: the table
//     never waits for it) is drawn from #board-chart: [[hub_id, accuracy, ci95_low, ci95_high, rank|null, flagged 0/1, reported 0/1,
//     precision], ...] (the filtered board's most accurate rows) and its text summary.
(function () {
  "use strict";
  const M = window.MMLU;
  const region = document.getElementById("board");
  const form = document.getElementById("leaderboard-filters");
  if (!M || !region || !form) return;
  region.classList.add("js");

  const BOARD_FIELDS = ["benchmark", "split", "shots"];  // another board: a new page, not a fragment
  const DEFAULTS = {benchmark: "mobile-mmlu", split: "validation", shots: "0"};
  const MAX_COMPARE = 8;
  const picked = [];
  let pending = null;

  function pathWith(params) {
    const query = params.toString();
    return window.location.pathname + (query ? "?" + query : "");
  }

  // The form's state as the page's query: empty fields and board defaults left out; sort, columns and pins
  // ride along in hidden fields; a change of filters starts again at page 1.
  function formParams() {
    const q = new URLSearchParams();
    new FormData(form).forEach((value, name) => {
      if (value !== "" && DEFAULTS[name] !== value) q.append(name, value);
    });
    return q;
  }

  function syncForm(params) {
    Array.from(form.elements).forEach((el) => {
      if (!el.name || BOARD_FIELDS.includes(el.name)) return;
      if (el.type === "checkbox") el.checked = params.getAll(el.name).includes(el.value);
      else if (el.type === "hidden" || document.activeElement !== el) el.value = params.get(el.name) || "";
    });
    ["sort", "columns", "pin"].forEach((name) => {
      let field = form.querySelector("input[type=hidden][name=" + name + "]");
      if (params.get(name) && !field) {
        field = document.createElement("input");
        field.type = "hidden";
        field.name = name;
        form.appendChild(field);
      }
      if (field) {
        if (params.get(name)) field.value = params.get(name);
        else field.remove();
      }
    });
  }

  function load(url, history, focusSelector) {
    const target = new URL(url, window.location.href);
    const params = new URLSearchParams(target.search);
    params.delete("fragment");
    const fragment = new URLSearchParams(params);
    fragment.set("fragment", "board");
    if (pending) pending.abort();
    pending = new AbortController();
    region.setAttribute("aria-busy", "true");
    return fetch(window.location.pathname + "?" + fragment.toString(), {signal: pending.signal,
                                                                      headers: {Accept: "text/html"}})
      .then((response) => {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then((html) => {
        region.innerHTML = html;
        region.removeAttribute("aria-busy");
        if (history === "push") window.history.pushState(null, "", pathWith(params));
        else if (history === "replace") window.history.replaceState(null, "", pathWith(params));
        syncForm(params);
        restorePicks();
        drawChart();
        if (focusSelector) {
          const el = region.querySelector(focusSelector);
          if (el) el.focus();
        }
      })
      .catch((error) => {
        if (error.name === "AbortError") return;
        window.location.assign(pathWith(params));  // the server's page has the same board
      });
  }

  // --- filters -----------------------------------------------------------------------------------------------
  let timer = null;
  function apply(delay) {
    clearTimeout(timer);
    timer = setTimeout(() => load(pathWith(formParams()), "replace"), delay);
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    load(pathWith(formParams()), "push");
  });
  form.addEventListener("input", (event) => {
    const name = event.target.name;
    if (name === "search" || name === "params_min" || name === "params_max") apply(250);
  });
  form.addEventListener("change", (event) => {
    const name = event.target.name;
    if (BOARD_FIELDS.includes(name)) {
      window.location.assign(pathWith(formParams()));
    } else if (name !== "search" && name !== "params_min" && name !== "params_max") {
      apply(0);
    }
  });

  // --- the board's links, pins and picks -----------------------------------------------------------------------
  region.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-nav]");
    if (link && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      const th = link.closest("th[data-sort]");
      const pager = link.closest(".pager");
      const focus = th ? "th[data-sort='" + th.dataset.sort + "'] a"
        : pager ? ".pager a[aria-current]" : link.closest(".presets") ? ".presets a[aria-current]" : null;
      load(link.getAttribute("href"), "push", focus);
      return;
    }
    const pin = event.target.closest("button.pin");
    if (pin) {
      const params = new URLSearchParams(window.location.search);
      const pins = (params.get("pin") || "").split(",").filter(Boolean);
      const hub = pin.dataset.pin;
      const next = pins.includes(hub) ? pins.filter((p) => p !== hub) : pins.concat([hub]);
      if (next.length) params.set("pin", next.join(","));
      else params.delete("pin");
      load(pathWith(params), "push", "button.pin[data-pin='" + CSS.escape(hub) + "']");
      return;
    }
    const compare = event.target.closest("#compare-link");
    if (compare && !picked.length) event.preventDefault();
  });

  region.addEventListener("change", (event) => {
    const box = event.target.closest("input.pick");
    if (!box) return;
    const at = picked.indexOf(box.value);
    if (box.checked && at < 0) {
      if (picked.length >= MAX_COMPARE) {
        box.checked = false;
        document.getElementById("row-count").textContent = "Compare takes at most " + MAX_COMPARE + " models.";
        return;
      }
      picked.push(box.value);
    } else if (!box.checked && at >= 0) {
      picked.splice(at, 1);
    }
    restorePicks();
  });

  function restorePicks() {
    region.querySelectorAll("input.pick").forEach((box) => { box.checked = picked.includes(box.value); });
    const link = document.getElementById("compare-link");
    if (!link) return;
    const base = link.getAttribute("href").split("?")[0];
    link.textContent = "Compare selected (" + picked.length + ")";
    link.setAttribute("aria-disabled", picked.length ? "false" : "true");
    link.setAttribute("href", picked.length ? base + "?models=" + picked.map(encodeURIComponent).join(",") : base);
  }

  window.addEventListener("popstate", () => load(window.location.href, null));

  // --- the chart, after the table --------------------------------------------------------------------------------
  function chartData() {
    const el = document.getElementById("board-chart");
    return el ? JSON.parse(el.textContent) : null;
  }

  function drawChart() {
    const data = chartData();
    if (!data) return;
    M.summarize("leaderboard", data.summary);
    const places = data.sealed ? 1 : 2;
    const top = data.rows.map((r) => ({hub: r[0], acc: r[1], lo: r[2], hi: r[3], rank: r[4], flagged: r[5] === 1,
                                       reported: r[6] === 1, precision: r[7]}));
    const seen = {};
    top.forEach((r) => { seen[r.hub] = (seen[r.hub] || 0) + 1; });
    top.forEach((r) => {
      r.label = M.shortLabel(r.hub, M.narrow() ? 22 : 40) + (seen[r.hub] > 1 ? " · " + (r.precision || "paper") : "");
    });
    const trace = (subset, name, color, symbol) => ({
      type: "scatter", mode: "markers", name: name + " (95% interval)", x: subset.map((r) => r.acc),
      y: subset.map((r) => r.label),
      customdata: subset.map((r) => [M.esc(r.hub), r.lo === null ? "no interval" : M.num(r.lo, places) + "–" +
                                     M.num(r.hi, places), r.rank === null ? "not ranked" : "rank " + r.rank]),
      hovertemplate: "%{customdata[0]}<br>%{x}% (95%: %{customdata[1]}), %{customdata[2]}<extra></extra>",
      error_x: {type: "data", symmetric: false, color: color, thickness: 1.5, width: 3,
                array: subset.map((r) => (r.hi === null ? 0 : r.hi - r.acc)),
                arrayminus: subset.map((r) => (r.lo === null ? 0 : r.acc - r.lo))},
      marker: {color: color, size: 9, symbol: symbol, line: {color: color, width: 1.5}},
    });
    const groups = [[top.filter((r) => !r.reported && !r.flagged), "measured here", M.palette.blue, "circle"],
                    [top.filter((r) => !r.reported && r.flagged), "measured, flagged", M.palette.vermillion, "x"],
                    [top.filter((r) => r.reported), "reported by the paper", M.palette.orange, "diamond-open"]];
    const traces = groups.filter((g, i) => g[0].length || i === 0).map((g) => trace(g[0], g[1], g[2], g[3]));
    M.draw("leaderboard", traces, M.withChance({
      height: Math.max(220, 70 + 24 * top.length),
      margin: {l: 10, r: 16, t: 10, b: 50},
      xaxis: M.accuracyAxis(top.flatMap((r) => [r.acc, r.lo, r.hi])),
      yaxis: {type: "category", categoryorder: "array", categoryarray: top.map((r) => r.label),
              autorange: "reversed", automargin: true},
      showlegend: true,
      annotations: top.length ? [] : [{text: M.wrapLabel(data.summary, 60), showarrow: false,
                                       xref: "paper", yref: "paper", x: 0.5, y: 0.5}],
    }, "x"));
  }

  // The drawer starts closed (a phone's first screen is for rows); a wide screen has room for the filters.
  const drawer = document.getElementById("filter-drawer");
  if (drawer && !M.narrow()) drawer.open = true;

  restorePicks();
  drawChart();  // the summary now; the chart once it is near the viewport
})();
