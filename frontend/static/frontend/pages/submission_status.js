// Submission status page. No #page-data: it polls the submission's status API (the URL in #runs[data-api],
// JSON {status, runs: [{id, status, items_done, items_total, chunks_done, chunks_total, queue_position,
// eta_seconds, ...}]}) every 2 s and updates each run's progress bar, #queue-position and #eta until the
// submission ends; then it reloads, and the server renders the results or the failure with what to do.
(function () {
  "use strict";
  const root = document.getElementById("runs");
  if (!root) return;
  const done = new Set(["succeeded", "failed", "cancelled"]);
  const overall = document.getElementById("overall-status");

  function etaText(seconds) {
    if (seconds === null || seconds === undefined) return "not known yet";
    return seconds < 90 ? "about " + Math.round(seconds) + " s" : "about " + Math.round(seconds / 60) + " min";
  }

  function render(status) {
    overall.textContent = status.status;
    overall.className = "status status-" + status.status;
    const positions = [], etas = [];
    for (const run of status.runs) {
      if (run.queue_position) positions.push(run.queue_position);
      if (run.eta_seconds !== null && run.eta_seconds !== undefined) etas.push(run.eta_seconds);
      const el = document.getElementById("run-" + run.id);
      if (!el) continue;
      el.querySelector(".run-state").textContent = run.status +
        (run.queue_position ? " · position " + run.queue_position + " in queue" : "");
      const bar = document.getElementById("run-progress-" + run.id);
      bar.max = run.items_total || 1;
      bar.value = run.items_done;
      bar.textContent = run.items_done + " / " + run.items_total;
      el.querySelector(".run-progress").textContent = run.items_done + " / " + run.items_total + " items · chunks " +
        run.chunks_done + (run.chunks_total ? " / " + run.chunks_total : "") +
        (run.eta_seconds ? " · about " + Math.round(run.eta_seconds) + " s left" : "");
    }
    const position = positions.length ? Math.min.apply(null, positions) : null;
    document.getElementById("queue-position").textContent = position
      ? position + (position === 1 ? " (next to start)" : "")
      : (status.status === "running" || status.status === "scoring" ? "started" : "–");
    document.getElementById("eta").textContent = etas.length ? etaText(Math.max.apply(null, etas)) : "not known yet";
    if (done.has(status.status)) window.location.reload();  // the server renders results and failures
    else setTimeout(poll, 2000);
  }

  function poll() {
    fetch(root.dataset.api, {headers: {"Accept": "application/json"}})
      .then((r) => (r.ok ? r.json() : Promise.reject(r.status))).then(render).catch(() => setTimeout(poll, 5000));
  }
  if (!done.has(overall.textContent.trim())) setTimeout(poll, 2000);
})();
