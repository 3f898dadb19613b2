# GPU worker: runs untrusted model code; gets neither SECRET_KEY nor SEALED_ANSWER_KEYS, and its
# DATABASE_URL names a least-privilege role (docker/postgres-init/, manage.py grant_worker_role).
# Build args make the same file the CPU variant (docker-compose.cpu.yml): an Ubuntu base and the
# CPU torch build with the transformers backend instead of CUDA and vLLM.
# REQUIREMENTS: the lock of requirements-gpu.txt (resolved for this base's Python 3.12; requirements/compile.sh),
# or the CPU variant's docker/requirements-cpu-worker.txt, whose torch+cpu build comes from PIP_EXTRA_INDEX_URL.
ARG BASE_IMAGE=nvidia/cuda:13.0.0-runtime-ubuntu24.04
FROM ${BASE_IMAGE}
ARG REQUIREMENTS=requirements/gpu.lock
ARG PIP_EXTRA_INDEX_URL=""
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc g++ \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /venv
ENV PATH=/venv/bin:$PATH
WORKDIR /app
COPY requirements.txt ./
COPY requirements/gpu.lock requirements/
COPY docker/requirements-cpu-worker.txt docker/
RUN PIP_EXTRA_INDEX_URL="$PIP_EXTRA_INDEX_URL" pip install -r "$REQUIREMENTS"
COPY . .
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin app \
    && mkdir -p /app/var /home/app/.cache/huggingface /home/app/.cache/vllm \
    && chown -R app:app /app/var /home/app/.cache
USER app
# Model weights are cached here, and vLLM's compile cache in /home/app/.cache/vllm (volumes in the compose
# file, created here so that they start owned by the app user), so a restart neither re-downloads nor recompiles.
ENV DJANGO_SETTINGS_MODULE=leaderboard.settings.gpu_worker LEADERBOARD_VAR_DIR=/app/var \
    HF_HOME=/home/app/.cache/huggingface
CMD ["docker/start-worker.sh", "gpu"]
