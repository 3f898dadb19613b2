# Web process and default (trusted) worker: no torch, no vLLM.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
RUN useradd --create-home --uid 10001 app && mkdir -p /app/var && chown -R app /app/var
USER app
ENV DJANGO_SETTINGS_MODULE=leaderboard.settings.production LEADERBOARD_VAR_DIR=/app/var
EXPOSE 8000
CMD ["docker/start-web.sh"]
