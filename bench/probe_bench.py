"""Cost of the TS-Guessing memorization probe per question, against the letter scoring it rides along with.

    python bench/probe_bench.py [--n 32] [--batch-size 16] [--repeats 3]

Builds the ~30M-parameter bench model locally (no downloads), generates questions shaped like the
published Mobile-MMLU files (bench/real_shapes.py) and times, on the same model and batch size: one-pass letter scoring (one forward per question) and the
probe (one greedy generation per question, as long as its batch's longest masked option: evaluator.probe). Prints
seconds per question and the ratio, plus the 4/3 factor for items discarded on the trusted side (the
masked option was the correct one), measured on the same questions, each with its mean prompt characters
and tokens, and the share of masked options short enough to be written within MAX_NEW_TOKENS. Repeats
(--repeats, interleaved) give the median ratio. No absolute-time assertions.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_shapes import MAX_POSITIONS, prompt_sizes, real_shaped_questions  # noqa: E402
from bench.real_shapes import tokenizer as shapes_tokenizer  # noqa: E402
from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import build_bench_model  # noqa: E402
from evaluator.engine import run_evaluation  # noqa: E402
from evaluator.probe import MAX_NEW_TOKENS, masked_index, probe_counts, render, run_probe  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    questions = real_shaped_questions(args.n, seed=5)
    template = get_template("default")
    scoring_prompts = [template.render(q.question, q.options) for q in questions]
    probe_prompts = [render(q, masked_index(q, 0)) for q in questions]
    with tempfile.TemporaryDirectory() as tmp:
        tok_dir = shapes_tokenizer(Path(tmp) / "tok", scoring_prompts[:4] + probe_prompts[:4])
        backend = create_backend("transformers", str(build_bench_model(Path(tmp) / "model", tok_dir,
                                                                       max_positions=MAX_POSITIONS)),
                                 device="cpu", batch_size=args.batch_size)
        run_evaluation(backend, questions[:8], template=template.name)  # warm-up
        run_probe(backend, questions[:4], seed=0, batch_size=args.batch_size)
        scoring, probing = [], []
        for _ in range(args.repeats):  # interleaved, so drifting load hits both alike
            scoring.append(timed(lambda: run_evaluation(backend, questions, template=template.name))[0])
            secs, rows = timed(lambda: run_probe(backend, questions, seed=0, batch_size=args.batch_size))
            probing.append(secs)
        count = backend.count_tokens
        sizes = {"scoring": prompt_sizes(scoring_prompts, count), "probe": prompt_sizes(probe_prompts, count)}
        masked_tokens = [len(backend.tokenizer.encode(q.options[masked_index(q, 0)], add_special_tokens=False))
                         for q in questions]
    counts = probe_counts(rows, {q.question_id: q.answer for q in questions})
    n = len(questions)
    per_q_score, per_q_probe = statistics.median(scoring) / n, statistics.median(probing) / n
    ratio = statistics.median(p / s for p, s in zip(probing, scoring))
    per_kept = statistics.median(probing) / max(counts["n"], 1)
    fits = sum(t <= MAX_NEW_TOKENS for t in masked_tokens) / n
    print(f"questions: {n} real-shaped; probe: one generation per question of its batch's longest masked option + 8 tokens "
          f"(at most {MAX_NEW_TOKENS}); "
          f"{args.repeats} interleaved repeats (medians); load average {os.getloadavg()[0]:.2f}")
    for key, label in (("scoring", "letter scoring"), ("probe", "probe prompt")):
        chars, tokens = sizes[key]
        print(f"{label:16s} mean prompt characters {chars:,.0f}, mean prompt tokens {tokens:,.0f}")
    print(f"letter scoring   {1000 * per_q_score:8.1f} ms/question")
    print(f"probe            {1000 * per_q_probe:8.1f} ms/question   ratio to scoring {ratio:6.1f}x")
    print(f"probe per kept   {1000 * per_kept:8.1f} ms/kept item ({counts['n']} of {counts['generated']} kept: "
          f"masked option wrong)   ratio {per_kept / per_q_score:6.1f}x")
    print(f"masked options: mean {statistics.mean(masked_tokens):.0f} tokens; {fits:.0%} fit in "
          f"MAX_NEW_TOKENS={MAX_NEW_TOKENS} (a longer option can never be reproduced word for word)")


if __name__ == "__main__":
    main()
