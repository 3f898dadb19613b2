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
    # One model at a time per GPU; prefetch 1 so a long evaluation never holds a second task; a fresh
    # child process per task, so a model's GPU memory is returned before the next one loads.
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
