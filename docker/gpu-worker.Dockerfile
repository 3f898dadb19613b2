# GPU worker: runs untrusted model code; gets neither SECRET_KEY nor SEALED_ANSWER_KEYS.
FROM nvidia/cuda:12.8.1-runtime-ubuntu24.04
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 DEBIAN_FRONTEND=noninteractive
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /venv
ENV PATH=/venv/bin:$PATH
WORKDIR /app
COPY requirements.txt requirements-gpu.txt ./
RUN pip install -r requirements-gpu.txt
COPY . .
RUN useradd --create-home --uid 10001 app
USER app
CMD ["docker/start-worker.sh", "gpu"]
