#!/usr/bin/env bash
# usage: start-worker.sh default|gpu
#   default  trusted worker (scoring, notices, hub checks): -Q default
#   gpu      prediction worker (untrusted model code): -Q gpu -c 1; GPU_WORKER_QUEUES=gpu-large,gpu-small
#            makes a host of a size class also take smaller models (docs/operations.md, "Scaling out")
set -euo pipefail
kind="${1:-default}"
loglevel="${LOG_LEVEL:-INFO}"
case "$kind" in
  gpu)
    # One model at a time per GPU; prefetch 1 so a long evaluation never holds a second task. The prefork
    # pool's task processes are daemonic and may not start children (vLLM's engine does), so each run is
    # predicted in a process of its own (leaderboard/evaluations/runner.py), which also returns the GPU
    # memory when it exits; a fresh pool child per task keeps the task side small too.
    # A redeploy (docker stop: SIGTERM, then stop_grace_period) drains: the drain file asks each prediction
    # process to stop at its next chunk boundary; its run goes back to the queue without spending an
    # attempt, Celery's warm shutdown then ends, and the next worker resumes from the stored chunks.
    drain_file="${RUN_DRAIN_FILE:-${LEADERBOARD_VAR_DIR:-var}/gpu-worker.drain}"
    # The trap must never fail (under set -e it would stop before forwarding SIGTERM, and a later SIGKILL of
    # this script would orphan Celery): the drain file's folder exists first.
    mkdir -p "$(dirname "$drain_file")"
    rm -f "$drain_file"
    celery -A leaderboard worker -Q "${GPU_WORKER_QUEUES:-gpu}" -c 1 --prefetch-multiplier 1 \
      --max-tasks-per-child 1 --loglevel "$loglevel" -n "gpu@%h" &
    worker=$!
    trap 'touch "$drain_file" || true; kill -TERM "$worker" 2>/dev/null || true' TERM INT
    status=0
    wait "$worker" || status=$?
    if [ "$status" -gt 128 ] && kill -0 "$worker" 2>/dev/null; then  # the trap ran: wait for the drain
      status=0
      wait "$worker" || status=$?
    fi
    rm -f "$drain_file"
    exit "$status"
    ;;
  default)
    # The system checks first: this worker scores with SEALED_ANSWER_KEYS, and keys that cannot open the
    # database's sealed answers stop it here, named, rather than failing every scoring task later.
    python manage.py check
    exec celery -A leaderboard worker -Q default -c "${WORKER_CONCURRENCY:-2}" --loglevel "$loglevel" \
      -n "default@%h"
    ;;
  *)
    echo "usage: $0 default|gpu" >&2
    exit 2
    ;;
esac
