#!/usr/bin/env bash
set -euo pipefail
python manage.py migrate --no-input
python manage.py collectstatic --no-input -v 0
exec gunicorn leaderboard.wsgi:application --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-3}" \
  --access-logfile - --timeout 60
