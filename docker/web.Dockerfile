# Web process and the trusted default worker / beat: no torch, no vLLM (requirements.txt, locked).
# Targets: `web` (gunicorn) and `worker` (Celery; the compose file picks the queue or beat).
FROM python:3.11-slim-bookworm AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# The lock of requirements.txt (requirements/compile.sh): the versions the tests ran.
COPY requirements/web.lock requirements/
COPY docker/requirements-ops.txt ./
# WITH_SENTRY=1 adds sentry-sdk (used only when SENTRY_DSN is set at run time), keeping the locked versions.
ARG WITH_SENTRY=0
RUN pip install -r requirements/web.lock \
    && if [ "$WITH_SENTRY" = "1" ]; then pip install -c requirements/web.lock -r requirements-ops.txt; fi
COPY . .
# uid 10001, no login shell, owning only the runtime folder (static files, beat schedule).
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin app \
    && mkdir -p /app/var && chown -R app:app /app/var
USER app
ENV DJANGO_SETTINGS_MODULE=leaderboard.settings.production LEADERBOARD_VAR_DIR=/app/var

FROM base AS worker
CMD ["docker/start-worker.sh", "default"]

FROM base AS web
EXPOSE 8000
CMD ["docker/start-web.sh"]
