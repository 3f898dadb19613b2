#!/usr/bin/env bash
# The scheduler: the run sweeper (expired leases, time limits) and the reconciler (lost messages).
# Δ needs no schedule: it is computed when a run is scored. Run exactly one per deployment.
set -euo pipefail
exec celery -A leaderboard beat --loglevel "${LOG_LEVEL:-INFO}" \
  --schedule "${CELERY_BEAT_SCHEDULE_FILE:-/app/var/celerybeat-schedule}"
