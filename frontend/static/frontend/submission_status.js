// Polls the submission's status API and updates each run's progress until it ends.
(function () {
  const root = document.getElementById("runs");
  if (!root) return;
  const done = new Set(["succeeded", "failed", "cancelled"]);
  function render(status) {
    document.getElementById("overall-status").textContent = status.status;
    for (const run of status.runs) {
      const el = document.getElementById("run-" + run.id);
      if (!el) continue;
      el.querySelector(".run-state").textContent = run.status +
        (run.queue_position ? " · position " + run.queue_position + " in queue" : "");
      const bar = el.querySelector("progress");
      bar.max = run.items_total || 1;
      bar.value = run.items_done;
      el.querySelector(".run-progress").textContent = run.items_done + " / " + run.items_total + " items · chunks " +
        run.chunks_done + (run.chunks_total ? " / " + run.chunks_total : "") +
        (run.eta_seconds ? " · about " + Math.round(run.eta_seconds) + " s left" : "");
    }
    if (done.has(status.status)) window.location.reload();  // the server renders results and failures
    else setTimeout(poll, 2000);
  }
  function poll() {
    fetch(root.dataset.api, {headers: {"Accept": "application/json"}})
      .then((r) => r.json()).then(render).catch(() => setTimeout(poll, 5000));
  }
  if (!done.has(document.getElementById("overall-status").textContent.trim())) setTimeout(poll, 2000);
})();
