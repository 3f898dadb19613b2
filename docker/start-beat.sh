#!/usr/bin/env bash
# The scheduler (sweeper, reconciler, contamination monitor). Run exactly one per deployment.
set -euo pipefail
exec celery -A leaderboard beat --loglevel "${LOG_LEVEL:-INFO}" \
  --schedule "${CELERY_BEAT_SCHEDULE_FILE:-/app/var/celerybeat-schedule}"
