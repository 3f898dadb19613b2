# GPU worker: runs untrusted model code; gets neither SECRET_KEY nor SEALED_ANSWER_KEYS, and its
# DATABASE_URL names a least-privilege role (docker/postgres-init/, manage.py grant_worker_role).
# Build args make the same file the CPU variant (docker-compose.cpu.yml): an Ubuntu base and the
# CPU torch build with the transformers backend instead of CUDA and vLLM, and llama.cpp built for the CPU.
# REQUIREMENTS: the lock of requirements-gpu.txt (resolved for this base's Python 3.12; requirements/compile.sh),
# or the CPU variant's docker/requirements-cpu-worker.txt, whose torch+cpu build comes from PIP_EXTRA_INDEX_URL.
ARG BASE_IMAGE=nvidia/cuda:13.0.0-runtime-ubuntu24.04
# The llama.cpp build stage: the devel image of the runtime's CUDA and Ubuntu (nvcc, headers); the CPU variant
# builds on its own base.
ARG LLAMACPP_BUILD_IMAGE=nvidia/cuda:13.0.0-devel-ubuntu24.04

# --- llama.cpp (llama-cpp-python) for GGUF runs, built from its pinned source distribution --------------------------
FROM ${LLAMACPP_BUILD_IMAGE} AS llamacpp
ARG REQUIREMENTS=requirements/gpu.lock
# Portable: GGML_NATIVE=OFF builds ggml's CPU code for AVX2/FMA/F16C (any x86-64 server CPU since 2013), never for
# the build machine. The GPU image adds CUDA for A100, A10, L4 and H100/H200 (90 also as PTX, which newer GPUs
# compile when loading); the CPU variant sets this empty. Each architecture adds minutes: set one to build faster.
ARG LLAMACPP_GPU_ARGS="-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=80;86;89;90"
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive
# git: the build records llama.cpp's commit from the source distribution's git metadata (ggml_commit()).
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc g++ cmake git \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /build
WORKDIR /src
COPY requirements/gpu.lock requirements/
COPY docker/requirements-cpu-worker.txt docker/
# The version the worker's requirements pin (the llamacpp environment's, tests/deploy/test_locks.py); the converter
# (convert_hf_to_gguf.py, its conversion/ package, gguf-py) from the same source distribution: one llama.cpp.
RUN pin=$(sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' "$REQUIREMENTS") \
    && test -n "$pin" \
    && /build/bin/pip download --no-deps --no-binary :all: -d dist "llama-cpp-python==$pin" \
    && tar -xzf "dist/llama_cpp_python-$pin.tar.gz" \
    && CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF $LLAMACPP_GPU_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
       /build/bin/pip wheel --no-deps -w /wheels "./llama_cpp_python-$pin" \
    && mkdir -p /converter \
    && for part in convert_hf_to_gguf.py conversion gguf-py LICENSE; do \
         cp -r "llama_cpp_python-$pin/vendor/llama.cpp/$part" /converter/; done \
    && rm -rf /src/*

# --- the worker ------------------------------------------------------------------------------------------------------
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
# The llama-cpp-python the build stage made stands for the requirements' pin (pip refuses it if the versions differ).
COPY --from=llamacpp /wheels /tmp/llamacpp
RUN PIP_EXTRA_INDEX_URL="$PIP_EXTRA_INDEX_URL" pip install /tmp/llamacpp/llama_cpp_python-*.whl -r "$REQUIREMENTS" \
    && rm -rf /tmp/llamacpp
# Where evaluator/gguf_convert.py looks for the converter: <this environment>/llama.cpp.
COPY --from=llamacpp /converter /venv/llama.cpp
COPY . .
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin app \
    && mkdir -p /app/var /home/app/.cache/huggingface /home/app/.cache/vllm /home/app/.cache/made-gguf \
    && chown -R app:app /app/var /home/app/.cache
USER app
# Model weights are cached here, vLLM's compile cache in /home/app/.cache/vllm and the GGUF files made here in
# /home/app/.cache/made-gguf (volumes in the compose file, created here so that they start owned by the app user),
# so a restart neither re-downloads, recompiles nor re-quantizes.
ENV DJANGO_SETTINGS_MODULE=leaderboard.settings.gpu_worker LEADERBOARD_VAR_DIR=/app/var \
    HF_HOME=/home/app/.cache/huggingface
CMD ["docker/start-worker.sh", "gpu"]
