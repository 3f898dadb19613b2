#!/usr/bin/env bash
set -euo pipefail
exec celery -A leaderboard beat --loglevel INFO --schedule /app/var/celerybeat-schedule
