#!/usr/bin/env bash
# The GPU figures of issue 33, section 3, in one run on a lent GPU machine (an H100 or H200 with nvcc, CMake, ninja
# and a python3 holding torch and transformers; no network). Not part of the test suite or CI: nothing here runs
# without a GPU.
#
#   bench/gpu_device_run.sh pack   # here, with network: makes .gpu/ (ignored by git: add /.gpu/ to .git/info/exclude)
#   bench/gpu_device_run.sh        # there, from the repo's root, with .gpu carried beside the working tree
#
# pack: llama-cpp-python's source distribution (requirements/llamacpp.lock's pin) trimmed to its Python package and
# the vendored llama.cpp without models, docs, tests, tools and the other GPU backends (.gpu/llama-src.tar.xz, ~6 MB:
# the whole sdist is 73 MB, over a lent machine's 64 MiB), and the pure-Python wheel llama-cpp-python needs that the
# GPU image lacks (diskcache, .gpu/whl).
#
# The run, everything logged to $OUT/log (CMake's output to $OUT/build.log), each step timed:
#   1. the machine: GPU, nvcc, CMake, python packages.
#   2. llama.cpp compiled with CUDA for this GPU (library only, -j of the cores, in the background, niced): cuBLAS
#      and the driver library are looked up where the toolkit lacks them (pip's nvidia/cu13 wheels).
#   3. meanwhile: a random-weight Llama of Llama 3.2 1B's shape built on the GPU and converted to an f32 GGUF
#      (bench/real_shape_gguf.py), then bench/gpu_bench.py --device cuda (throughput mode, 7B shape, transformers;
#      vLLM is not on the image, and its GPU wheel is far over 64 MiB).
#   4. once llama.cpp is built: the f32 file quantized to Q4_K_M, then bench/llamacpp_speed_bench.py --device cuda on
#      it (backend vs bare llama-cpp-python vs batched sequences 4, 16 and auto) and the check of batched against
#      one at a time on the Q4_K_M and f32 files. The 1B file has RANDOM weights of a real shape: its speed is a real
#      1B Q4_K_M file's, its letter probabilities mean nothing.
# Each stage has a time limit (GPU_BENCH_S, LLAMA_BENCH_S, BUILD_WAIT_S), so the log comes back whole inside a lease.
# Built files stay in .gpu/work (a warm machine keeps them for a second call, which then skips what is done).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
GPU=$REPO/.gpu
PIN=$(sed -n 's/^llama-cpp-python==\([^ ]*\).*/\1/p' requirements/llamacpp.lock)

if [ "${1:-}" = pack ]; then
  set -e
  tmp=$(mktemp -d)
  sdist=${SDIST:-}  # an sdist already downloaded, else pip downloads it
  if [ -z "$sdist" ]; then
    python3 -m pip download --quiet --no-deps --no-binary :all: -d "$tmp" "llama-cpp-python==$PIN"
    sdist=$tmp/llama_cpp_python-$PIN.tar.gz
  fi
  tar -xzf "$sdist" -C "$tmp"
  src=$tmp/llama_cpp_python-$PIN
  mkdir -p "$tmp/pack/llama.cpp" "$GPU/whl"
  cp -a "$src/llama_cpp" "$tmp/pack/"
  (cd "$src/vendor/llama.cpp" && tar cf - --exclude=./models --exclude=./docs --exclude=./media --exclude=./tools \
    --exclude=./tests --exclude=./benches --exclude=./examples --exclude=./pocs --exclude=./app --exclude=./.github --exclude=./.git \
    --exclude=./skills --exclude=./ggml/src/ggml-sycl --exclude=./ggml/src/ggml-vulkan \
    --exclude=./ggml/src/ggml-opencl --exclude=./ggml/src/ggml-hexagon --exclude=./ggml/src/ggml-metal \
    --exclude=./ggml/src/ggml-et --exclude=./ggml/src/ggml-cann --exclude=./ggml/src/ggml-musa \
    --exclude=./ggml/src/ggml-webgpu --exclude=./ggml/src/ggml-zdnn --exclude=./ggml/src/ggml-openvino .) \
    | tar xf - -C "$tmp/pack/llama.cpp"
  tar -cJf "$GPU/llama-src.tar.xz" -C "$tmp/pack" llama_cpp llama.cpp
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 -d "$GPU/whl" "$(grep -m1 '^diskcache==' requirements/llamacpp.lock)"
  rm -rf "$tmp"
  du -sh "$GPU"/*
  exit 0
fi

OUT=${OUT:-/tmp/gpu-device-run}
mkdir -p "$OUT"
LOG=$OUT/log
export PYTHONUNBUFFERED=1
W=$GPU/work
mkdir -p "$W"
GPU_BENCH_S=${GPU_BENCH_S:-270}     # gpu_bench's own --time-limit is GPU_BENCH_S - 60 (its model build, report)
LLAMA_BENCH_S=${LLAMA_BENCH_S:-160}
BUILD_WAIT_S=${BUILD_WAIT_S:-380}   # from the start of the run (all stages end by ~560 s: timeout_s 590)
RS_SHAPE=${RS_SHAPE:-llama-3.2-1b}  # bench/real_shape_gguf.py's --shape (tiny: a dry run of the steps)
JOBS=$(nproc)

say() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$LOG"; }
logged() { "$@" 2>&1 | tee -a "$LOG"; }

say "== 1. the machine"
logged nvidia-smi --query-gpu=name,memory.total,memory.free,driver_version,clocks.max.sm --format=csv
logged nvcc --version
logged cmake --version
logged python3 -c "import sys, torch, transformers, numpy, sentencepiece; print(sys.version.split()[0], 'torch',
torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(), 'transformers', transformers.__version__,
'numpy', numpy.__version__, 'sentencepiece', sentencepiece.__version__)"
say "cores $JOBS, memory $(free -g | awk '/Mem:/ {print $2}') GiB, disk free $(df -h "$W" | awk 'NR==2 {print $4}')"

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$GPU"/whl/*.whl \
  2>&1 | tee -a "$LOG"
[ -d "$W/src/llama.cpp" ] || { mkdir -p "$W/src" && tar -xJf "$GPU/llama-src.tar.xz" -C "$W/src"; }
export PYTHONPATH=/tmp/site:$W/src   # $W/src/llama_cpp: llama-cpp-python's package, over the libraries built below
export LLAMACPP_CONVERTER_DIR=$W/src/llama.cpp
export LLAMA_CPP_LIB_PATH=$W/build/bin

say "== 2. llama.cpp $PIN with CUDA: configure, then compile in the background ($JOBS jobs)"
# nvcc may be a wrapper script: its own dry run names the folder it runs from.
cuda_bin=$(nvcc --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ _HERE_=//p' | head -1)
nvcc_path=${cuda_bin:-$(dirname "$(readlink -f "$(command -v nvcc)")")}/nvcc
cuda_root=$(dirname "$(dirname "$nvcc_path")")
say "nvcc: $nvcc_path"
extra=()
if ! ls "$cuda_root"/lib64/libcublas.so* "$cuda_root"/targets/*/lib/libcublas.so* > /dev/null 2>&1; then
  sites=$(python3 -c 'import site; print(" ".join(site.getsitepackages()))')
  # shellcheck disable=SC2086  # the folders are words
  blas=$(find $sites -name 'libcublas.so.*' -path '*nvidia*' 2>/dev/null | sort | head -1)
  if [ -n "$blas" ]; then
    blas_dir=$(dirname "$blas")
    blas_lt=$(find "$blas_dir" -name 'libcublasLt.so.*' | sort | head -1)
    blas_inc=$(dirname "$blas_dir")/include
    extra+=("-DCUDA_cublas_LIBRARY=$blas" "-DCUDA_cublasLt_LIBRARY=$blas_lt" "-DCMAKE_CUDA_FLAGS=-I$blas_inc")
    export LD_LIBRARY_PATH=$blas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    say "cuBLAS from pip: $blas (headers $blas_inc)"
  else
    say "no libcublas found in the toolkit ($cuda_root) or python's site-packages"
  fi
fi
if ! ls "$cuda_root"/lib64/stubs/libcuda.so "$cuda_root"/targets/*/lib/stubs/libcuda.so > /dev/null 2>&1; then
  driver=$(ldconfig -p | awk '/libcuda\.so(\.1)? / {print $NF; exit}')
  # shellcheck disable=SC2046  # the folders are words
  [ -z "$driver" ] && driver=$(find $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' ') /usr/local/nvidia /usr/lib /usr/lib64 \
    -name 'libcuda.so*' 2>/dev/null | sort | head -1)
  if [ -n "$driver" ]; then extra+=("-DCUDA_cuda_driver_LIBRARY=$driver"); say "driver library: $driver"
  else extra+=("-DGGML_CUDA_NO_VMM=ON"); say "no libcuda.so found: built with GGML_CUDA_NO_VMM"; fi
fi
build_ok=0
if [ -f "$W/build/bin/libllama.so" ] && [ -f "$W/build/.complete" ]; then
  say "llama.cpp already built in $W/build"
  build_pid=
else
  # As dev.sh's LLAMACPP_CMAKE_FLAGS (release, portable, shared libraries), with CUDA for this GPU's architecture only
  # and FlashAttention kernels for the f16 KV cache the backend uses (fewer kernels to compile).
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  if cmake -S "$W/src/llama.cpp" -B "$W/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=ON \
      -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
      -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
      -DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${arch:-90}" -DGGML_CUDA_NCCL=OFF -DGGML_CUDA_FA_QUANTS=f16-f16 \
      "-DCMAKE_CUDA_COMPILER=$nvcc_path" "${extra[@]}" > "$OUT/build.log" 2>&1; then
    say "configured (sm_${arch:-90}); compiling"
    ( nice -n 5 cmake --build "$W/build" --target llama -j "$JOBS" >> "$OUT/build.log" 2>&1 \
      && touch "$W/build/.complete" ) &
    build_pid=$!
  else
    say "CMake could not configure llama.cpp with CUDA:"; grep -v "^-- " "$OUT/build.log" | tail -25 | tee -a "$LOG"
    build_pid=
  fi
fi

say "== 3a. a random-weight GGUF of Llama 3.2 1B's shape (checkpoint on the GPU, then the converter in the background)"
RS=$W/real-shape
logged python3 bench/real_shape_gguf.py --out "$RS" --shape "$RS_SHAPE" --steps checkpoint
( nice -n 5 python3 bench/real_shape_gguf.py --out "$RS" --shape "$RS_SHAPE" --steps convert > "$OUT/convert.log" 2>&1 ) &
convert_pid=$!

say "== 3b. bench/gpu_bench.py --device cuda (7B shape, transformers), at most ${GPU_BENCH_S}s"
logged timeout "$GPU_BENCH_S" python3 bench/gpu_bench.py --device cuda --quick --n 400 --batch-sizes 32,64 \
  --backends transformers --time-limit $((GPU_BENCH_S - 60))
say "gpu_bench exit $?"

say "== 4. waiting for the converter and the llama.cpp build"
wait "$convert_pid"; say "converter exit $?"; tee -a "$LOG" < "$OUT/convert.log"
if [ -n "$build_pid" ]; then
  while kill -0 "$build_pid" 2> /dev/null && [ "$SECONDS" -lt "$BUILD_WAIT_S" ]; do sleep 5; done
  if kill -0 "$build_pid" 2> /dev/null; then
    say "llama.cpp still compiling at ${SECONDS}s (BUILD_WAIT_S $BUILD_WAIT_S): $(grep -c '^\[' "$OUT/build.log") steps logged"
    tail -3 "$OUT/build.log" | tee -a "$LOG"
  fi
fi
[ -f "$W/build/.complete" ] && build_ok=1
if [ "$build_ok" = 1 ]; then
  say "llama.cpp built: $(cd "$W/build/bin" && echo *)"
  rm -rf "$W/src/llama_cpp/lib" && ln -s "$W/build/bin" "$W/src/llama_cpp/lib"  # where gguf_convert.llama_cpp_build looks
  logged python3 -c "import llama_cpp; print('llama-cpp-python', llama_cpp.__version__, 'GPU offload:',
llama_cpp.llama_supports_gpu_offload()); print(llama_cpp.llama_print_system_info().decode())"
  say "== 4a. quantize f32 -> Q4_K_M"
  logged python3 bench/real_shape_gguf.py --out "$RS" --shape "$RS_SHAPE" --steps quantize
  Q4=$(ls "$RS"/*-Q4_K_M.gguf 2> /dev/null); F32=$(ls "$RS"/*-f32.gguf 2> /dev/null)
  say "== 4b. bench/llamacpp_speed_bench.py --device cuda, at most ${LLAMA_BENCH_S}s"
  logged timeout "$LLAMA_BENCH_S" python3 bench/llamacpp_speed_bench.py --device cuda --model "$Q4" --n 256 \
    --threads 4 --blocks 3 --sequences 4,16,auto --check "$F32" \
    --label "RANDOM weights of Llama 3.2 1B's shape, made here by bench/real_shape_gguf.py"
  say "speed bench exit $?"
else
  say "no llama.cpp build: the llama.cpp figures were not measured"; grep -v "^-- " "$OUT/build.log" | grep -i -m5 error | tee -a "$LOG"
fi
say "== done"
logged nvidia-smi --query-gpu=memory.used,temperature.gpu,clocks.sm --format=csv
