"""The llamacpp backend's letter scoring against llama.cpp's bare evaluation of the same tokens, on a real file, in one
run: does the backend keep the engine's speed, and what do batched sequences give? (issue 33, section 3)

    .venv-llamacpp/bin/python bench/llamacpp_speed_bench.py [--model FILE.gguf] [--n 16] [--threads 2] [--blocks 3]
                                                            [--sequences 4[,16,auto]] [--device cpu|cuda]
                                                            [--check FILE.gguf ...] [--label TEXT]

The file: Gemma 3 270M Q4_K_M (evaluator/real_gguf.py) unless --model names one. N real-shaped questions
(bench/real_shapes.py, the default template, ~1,800 characters each) are tokenized once by the backend; then, in
interleaved blocks (machine noise hits every side alike), each side scores them all from an empty cache:

  backend       LlamaCppBackend.letter_logprobs, one prompt at a time (cold cache: no prefix kept)
  bare          llama-cpp-python's Llama.eval of the same token ids (same file, threads, placement, n_batch 2048,
                n_ubatch 512), the last position's logits read, nothing else
  batched xK    the backend with K prompts per llama_decode (separate sequences), one side per --sequences entry
                ("auto": as many as the GPU's memory holds, llamacpp_sequences.py)

It prints prompt tokens/s of each (the median block), backend / bare (the aim: at least 0.9x on a CPU), each batched
side / one at a time, the largest difference of a letter's probability between each batched side and one at a time
(from the warm-up pass), the prompts' mean characters and tokens, the projected time for the full Mobile-MMLU (16,186
questions at this prompt length) and the load average: other processes make llama.cpp's threads wait for each
other, so run it on a quiet machine. --device cuda puts every layer on the GPU (the GPU worker's placement), the bare
side's too. --check compares, on each file named, one prompt at a time with every batched side (f32 KV cache on an
f32 file, as the tests; the backend's f16 otherwise). No absolute-time assertions: machines differ.
"""
from __future__ import annotations

import argparse
import functools
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_shapes import prompt_sizes, real_shaped_questions  # noqa: E402
from evaluator.backends import create_backend  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402

FULL_SET = 16_186  # Mobile-MMLU's questions


def bare_llama(path: str, threads: int, n_ctx: int, device: str = "cpu"):
    import llama_cpp

    from evaluator.backends.llamacpp_backend import placement

    return llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_batch=min(n_ctx, 2048), n_ubatch=min(n_ctx, 512),
                           n_threads=threads, n_threads_batch=threads, logits_all=False, verbose=False,
                           **placement(device))


def bare_pass(llm, token_lists) -> None:
    import llama_cpp
    import numpy as np

    for ids in token_lists:
        llm.reset()
        llm._ctx.kv_cache_clear()
        llm.eval(ids)
        np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)).argmax()


def sequence_counts(text: str) -> list[int | str]:
    """--sequences: "4,16,auto" -> [4, 16, "auto"]; 1 is the backend side already."""
    out: list[int | str] = []
    for part in text.split(","):
        part = part.strip()
        value: int | str = part if part == "auto" else int(part)
        if value != 1 and value not in out:
            out.append(value)
    return out


def duration(seconds: float) -> str:
    return f"{seconds / 60:,.1f} min" if seconds < 2 * 3600 else f"{seconds / 3600:,.1f} h"


def largest_difference(alone, together) -> float:
    """The largest |p - p'| of any letter's probability over the prompts (None where a prompt was too long)."""
    return max((abs(math.exp(a[k]) - math.exp(b[k])) for a, b in zip(alone, together) if a and b for k in a),
               default=0.0)


def check_file(path: str, prompts, counts, *, threads: int, device: str) -> None:
    """One prompt at a time vs each batched side on `path`: the largest difference of a letter's probability."""
    from evaluator.backends.gguf_file import ftype_name

    kv = "f32" if Path(path).stem.lower().endswith("f32") else "f16"
    one = create_backend("llamacpp", path, threads=threads, sizing_prompts=prompts, device=device, kv_cache_type=kv)
    try:
        with one.cold_cache():
            alone = one.letter_logprobs(prompts)
        kind = ftype_name(one._llama_cpp, one.metadata.get("general.file_type")) or "?"
        for count in counts:
            batched = create_backend("llamacpp", path, threads=threads, sizing_prompts=prompts, device=device,
                                     kv_cache_type=kv, sequences=count)
            try:
                worst = largest_difference(alone, batched.letter_logprobs(prompts))
                print(f"  check {Path(path).name} ({kind}, KV {kv}, {device}): batched x{batched.sequences} "
                      f"({batched.stats['decodes']} decodes) vs one at a time: largest letter-probability difference "
                      f"{worst:.1e} over {len(prompts)} prompts ({'within' if worst < 1e-4 else 'OVER'} 1e-4)")
            finally:
                batched.close()
    finally:
        one.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="a GGUF file (default: Gemma 3 270M Q4_K_M, evaluator/real_gguf.py)")
    p.add_argument("--n", type=int, default=16, help="real-shaped questions")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--blocks", type=int, default=3, help="interleaved passes")
    p.add_argument("--sequences", default="4", help="prompts per llama_decode, batched: a count, \"auto\", or several "
                                                   "separated by commas (one batched side each)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--check", nargs="*", default=[], metavar="FILE",
                   help="GGUF files on which to compare batched with one at a time (after the timing)")
    p.add_argument("--label", default="", help="printed with the file's name (e.g. what its weights are)")
    args = p.parse_args(argv)

    if args.model is None:
        from evaluator.real_gguf import real_gguf_file

        args.model = str(real_gguf_file())
    counts = sequence_counts(args.sequences)
    template = get_template("default")
    prompts = [template.render(q.question, q.options) for q in real_shaped_questions(args.n, seed=5, prefix="speed")]
    common = dict(threads=args.threads, sizing_prompts=prompts, device=args.device)
    one = create_backend("llamacpp", args.model, **common)
    batched = {count: create_backend("llamacpp", args.model, **common, sequences=count) for count in counts}
    tokens = [ids for _, ids in one._prompts(prompts, False, 1)]  # the backend's own ids, in its order
    llm = bare_llama(args.model, args.threads, one.n_ctx, args.device)
    chars, mean_tokens = prompt_sizes(prompts, one.count_tokens)
    total = sum(len(ids) for ids in tokens)
    print(f"{Path(args.model).name}{f' ({args.label})' if args.label else ''}: {one.param_count():,} parameters, "
          f"{Path(args.model).stat().st_size / 2**20:,.0f} MiB, device {args.device}, {args.threads} threads, "
          f"{len(prompts)} real-shaped prompts: mean {chars:,.0f} characters, {mean_tokens:,.0f} tokens ({total:,} in all)")
    for count, backend in batched.items():
        print(f"  batched {count}: {backend.sequences} prompts per llama_decode ({backend.sequences_why})")

    def backend_pass(backend):
        with backend.cold_cache():
            return backend.letter_logprobs(prompts)

    sides = {"backend": lambda: backend_pass(one), "bare": lambda: bare_pass(llm, tokens)}
    names = {}
    for count, backend in batched.items():
        names[count] = f"batched x{backend.sequences}" + (" (auto)" if count == "auto" else "")
        sides[names[count]] = functools.partial(backend_pass, backend)
    warm = {name: work() for name, work in sides.items()}  # warm-up: the file's pages, the threads, the GPU
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.blocks):
        for name, work in sides.items():
            t0 = time.perf_counter()
            work()
            rates[name].append(total / (time.perf_counter() - t0))
    median = {name: statistics.median(r) for name, r in rates.items()}
    width = max(len(name) for name in sides)
    for name, rate in median.items():
        spread = statistics.stdev(rates[name]) / statistics.fmean(rates[name]) if len(rates[name]) > 1 else 0.0
        print(f"  {name:{width}s} {rate:10.1f} prompt tokens/s (CV {spread:5.1%} over {args.blocks} blocks); the full "
              f"Mobile-MMLU ({FULL_SET:,} questions) in {duration(FULL_SET * mean_tokens / rate)}")
    line = f"backend / bare {median['backend'] / median['bare']:.2f}x (aim >= 0.90x on a CPU)"
    for count in counts:
        line += (f"; {names[count]} / one at a time {median[names[count]] / median['backend']:.2f}x, largest "
                 f"letter-probability difference {largest_difference(warm['backend'], warm[names[count]]):.1e}")
    print(line)
    best = max(median, key=median.get)
    print(f"fastest: {best}, the full set in {duration(FULL_SET * mean_tokens / median[best])} at {mean_tokens:,.0f} "
          f"tokens a prompt")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a busy machine slows every side; the "
          "ratios are what to read)")
    one.close()
    for backend in batched.values():
        backend.close()
    llm.close()
    for path in args.check:
        check_file(path, prompts, counts, threads=args.threads, device=args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
