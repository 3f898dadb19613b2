// Submission status page. While a run is active (#status-summary[data-done="0"]) it re-reads the page itself every
// 2 s and swaps in each changed [data-live][id] part, so the words come from the server's templates only; it stops
// once every run has ended.
(function () {
  "use strict";
  const summary = document.getElementById("status-summary");
  if (!summary) return;

  function swap(html) {
    const fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-live][id]").forEach((el) => {
      const next = fresh.getElementById(el.id);
      if (!next) return;
      if (el.innerHTML !== next.innerHTML) el.innerHTML = next.innerHTML;
      for (const name of ["hidden", "data-done"]) {
        if (next.hasAttribute(name)) el.setAttribute(name, next.getAttribute(name));
        else el.removeAttribute(name);
      }
    });
  }

  function poll() {
    fetch(window.location.href, {headers: {"Accept": "text/html"}, cache: "no-store"})
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => { swap(html); if (summary.dataset.done !== "1") setTimeout(poll, 2000); })
      .catch(() => setTimeout(poll, 5000));
  }
  if (summary.dataset.done !== "1") setTimeout(poll, 2000);
})();
