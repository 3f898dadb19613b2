#!/usr/bin/env bash
# usage: start-worker.sh default|gpu
set -euo pipefail
queue=${1:-default}
if [ "$queue" = "gpu" ]; then
  # One model at a time per GPU; prefetch 1 so a long evaluation never holds a second task.
  exec celery -A leaderboard worker -Q gpu -c 1 --prefetch-multiplier 1 --loglevel INFO -n "gpu@%h"
fi
exec celery -A leaderboard worker -Q default -c "${WORKER_CONCURRENCY:-2}" --loglevel INFO -n "default@%h"
