#!/usr/bin/env bash
# usage: start-worker.sh default|gpu
#   default  trusted worker (scoring, notices, hub checks): -Q default
#   gpu      prediction worker (untrusted model code): -Q gpu -c 1; GPU_WORKER_QUEUES=gpu-large,gpu-small
#            makes a host of a size class also take smaller models (README, "Scaling out")
set -euo pipefail
kind="${1:-default}"
loglevel="${LOG_LEVEL:-INFO}"
case "$kind" in
  gpu)
    # One model at a time per GPU; prefetch 1 so a long evaluation never holds a second task. The prefork
    # pool's task processes are daemonic and may not start children (vLLM's engine does), so each run is
    # predicted in a process of its own (leaderboard/evaluations/runner.py), which also returns the GPU
    # memory when it exits; a fresh pool child per task keeps the task side small too.
    exec celery -A leaderboard worker -Q "${GPU_WORKER_QUEUES:-gpu}" -c 1 --prefetch-multiplier 1 \
      --max-tasks-per-child 1 --loglevel "$loglevel" -n "gpu@%h"
    ;;
  default)
    exec celery -A leaderboard worker -Q default -c "${WORKER_CONCURRENCY:-2}" --loglevel "$loglevel" \
      -n "default@%h"
    ;;
  *)
    echo "usage: $0 default|gpu" >&2
    exit 2
    ;;
esac
