// Sortable tables: in a table.sortable, each header th[data-sort="num"|"text"] becomes a button that sorts the
// body rows by its column (numbers best first, text A to Z; again: the other way), and aria-sort says how. A cell's
// data-value, when present, is what it sorts by; cells without a value go last either way. Without JavaScript the
// table is a plain table in the server's order.
(function () {
  "use strict";
  const collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});

  function value(row, index, numeric) {
    const cell = row.cells[index];
    const raw = cell ? (cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim()) : "";
    if (!numeric) return raw;
    const number = parseFloat(raw);
    return Number.isFinite(number) ? number : null;
  }

  function sortBy(table, th, index) {
    const numeric = th.dataset.sort === "num";
    const first = numeric ? "descending" : "ascending";
    const current = th.getAttribute("aria-sort");
    const direction = current ? (current === "ascending" ? "descending" : "ascending") : first;
    const sign = direction === "ascending" ? 1 : -1;
    const body = table.tBodies[0];
    const rows = Array.from(body.rows).map((row, order) => ({row, order, key: value(row, index, numeric)}));
    rows.sort((a, b) => {
      if (a.key === null || b.key === null) return (a.key === null) - (b.key === null) || a.order - b.order;
      const by = numeric ? a.key - b.key : collator.compare(a.key, b.key);
      return sign * by || a.order - b.order;
    });
    rows.forEach((r) => body.appendChild(r.row));
    table.querySelectorAll("thead th[aria-sort]").forEach((other) => other.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", direction);
  }

  document.querySelectorAll("table.sortable").forEach((table) => {
    if (!table.tHead || !table.tBodies.length) return;
    Array.from(table.tHead.rows[0].cells).forEach((th, index) => {
      if (!th.dataset.sort) return;
      const button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", () => sortBy(table, th, index));
    });
  });
})();
