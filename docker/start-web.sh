#!/usr/bin/env bash
# Web process: migrate, grant the GPU worker's database role its tables, collect static files, serve.
# With several web replicas, let one run the migrations (RUN_MIGRATIONS=0 on the others).
set -euo pipefail
if [ "${RUN_MIGRATIONS:-1}" = "1" ]; then
  python manage.py migrate --no-input
  if [ -n "${GPU_WORKER_DB_ROLE:-}" ]; then
    python manage.py grant_worker_role "$GPU_WORKER_DB_ROLE"
  fi
fi
python manage.py collectstatic --no-input -v 0
# Request-latency metrics of every gunicorn worker process, summed at scrape time (prometheus_client).
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-/tmp/prometheus-multiproc}"
rm -rf "$PROMETHEUS_MULTIPROC_DIR"
mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
exec gunicorn leaderboard.wsgi:application --config docker/gunicorn.conf.py
