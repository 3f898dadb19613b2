"""The llamacpp backend's letter scoring against llama.cpp's bare evaluation of the same tokens, on a real file, in one
run: does the backend keep the engine's speed, and what do batched sequences give? (issue 33, section 3)

    .venv-llamacpp/bin/python bench/llamacpp_speed_bench.py [--model FILE.gguf] [--n 16] [--threads 2] [--blocks 3]
                                                            [--sequences 4]

The file: Gemma 3 270M Q4_K_M (evaluator/real_gguf.py) unless --model names one. N real-shaped questions
(bench/real_shapes.py, the default template, ~1,800 characters each) are tokenized once by the backend; then, in
interleaved blocks (machine noise hits every side alike), each side scores them all from an empty cache:

  backend       LlamaCppBackend.letter_logprobs, one prompt at a time (cold cache: no prefix kept)
  bare          llama-cpp-python's Llama.eval of the same token ids (same file, threads, n_batch 2048, n_ubatch 512),
                the last position's logits read, nothing else
  batched       the backend with --sequences prompts per llama_decode (separate sequences)

It prints prompt tokens/s of each (the median block), backend / bare (the aim: at least 0.9x on a CPU), batched /
one at a time, the prompts' mean characters and tokens, the projected time for the full Mobile-MMLU (16,186
questions at this prompt length) and the load average: other processes make llama.cpp's threads wait for each
other, so run it on a quiet machine. No absolute-time assertions: machines differ.
"""
from __future__ import annotations

import argparse
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


def bare_llama(path: str, threads: int, n_ctx: int):
    import llama_cpp

    from evaluator.backends.llamacpp_backend import placement

    return llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_batch=min(n_ctx, 2048), n_ubatch=min(n_ctx, 512),
                           n_threads=threads, n_threads_batch=threads, logits_all=False, verbose=False,
                           **placement("cpu"))


def bare_pass(llm, token_lists) -> None:
    import llama_cpp
    import numpy as np

    for ids in token_lists:
        llm.reset()
        llm._ctx.kv_cache_clear()
        llm.eval(ids)
        np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)).argmax()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", help="a GGUF file (default: Gemma 3 270M Q4_K_M, evaluator/real_gguf.py)")
    p.add_argument("--n", type=int, default=16, help="real-shaped questions")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--blocks", type=int, default=3, help="interleaved passes")
    p.add_argument("--sequences", type=int, default=4, help="prompts per llama_decode, batched")
    args = p.parse_args(argv)

    if args.model is None:
        from evaluator.real_gguf import real_gguf_file

        args.model = str(real_gguf_file())
    template = get_template("default")
    prompts = [template.render(q.question, q.options) for q in real_shaped_questions(args.n, seed=5, prefix="speed")]
    one = create_backend("llamacpp", args.model, threads=args.threads, sizing_prompts=prompts)
    batched = create_backend("llamacpp", args.model, threads=args.threads, sizing_prompts=prompts,
                             sequences=args.sequences)
    tokens = [ids for _, ids in one._prompts(prompts, False, 1)]  # the backend's own ids, in its order
    llm = bare_llama(args.model, args.threads, one.n_ctx)
    chars, mean_tokens = prompt_sizes(prompts, one.count_tokens)
    total = sum(len(ids) for ids in tokens)
    print(f"{Path(args.model).name}: {one.param_count():,} parameters, {args.threads} threads, {len(prompts)} "
          f"real-shaped prompts: mean {chars:,.0f} characters, {mean_tokens:,.0f} tokens ({total:,} in all)")

    def backend_pass(backend):
        with backend.cold_cache():
            backend.letter_logprobs(prompts)

    sides = {"backend": lambda: backend_pass(one), "bare": lambda: bare_pass(llm, tokens),
             f"batched x{args.sequences}": lambda: backend_pass(batched)}
    for work in sides.values():  # warm-up: the file's pages, the threads
        work()
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.blocks):
        for name, work in sides.items():
            t0 = time.perf_counter()
            work()
            rates[name].append(total / (time.perf_counter() - t0))
    median = {name: statistics.median(r) for name, r in rates.items()}
    for name, rate in median.items():
        spread = statistics.stdev(rates[name]) / statistics.fmean(rates[name]) if len(rates[name]) > 1 else 0.0
        hours = FULL_SET * mean_tokens / rate / 3600
        print(f"  {name:12s} {rate:9.1f} prompt tokens/s (CV {spread:5.1%} over {args.blocks} blocks); the full "
              f"Mobile-MMLU ({FULL_SET:,} questions) in {hours:,.1f} h")
    b = f"batched x{args.sequences}"
    print(f"backend / bare {median['backend'] / median['bare']:.2f}x (aim >= 0.90x on a CPU); batched / one at a time "
          f"{median[b] / median['backend']:.2f}x")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (a busy machine slows every side; the "
          "ratios are what to read)")
    one.close()
    batched.close()
    llm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
