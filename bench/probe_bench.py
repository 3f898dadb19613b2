"""Cost of the TS-Guessing memorization probe per question, against the letter scoring it rides along with.

    python bench/probe_bench.py [--n 200] [--batch-size 16]

Builds the ~30M-parameter bench model locally (no downloads), generates demo-style questions and
times, on the same model and batch size: one-pass letter scoring (one forward per question) and the
probe (one greedy generation of at most evaluator.probe.MAX_NEW_TOKENS tokens per question). Prints
seconds per question and the ratio, plus the 4/3 factor for items discarded on the trusted side (the
masked option was the correct one), measured on the same questions. No absolute-time assertions.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import build_bench_model, build_demo_tokenizer, generate_demo_questions  # noqa: E402
from evaluator.engine import run_evaluation  # noqa: E402
from evaluator.probe import MAX_NEW_TOKENS, probe_counts, render, run_probe  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    questions = generate_demo_questions(args.n, seed=5)
    template = get_template("default")
    with tempfile.TemporaryDirectory() as tmp:
        texts = [template.render(q.question, q.options) for q in questions] + [render(q, 0) for q in questions]
        tok_dir = build_demo_tokenizer(texts, Path(tmp) / "tok")
        backend = create_backend("transformers", str(build_bench_model(Path(tmp) / "model", tok_dir)),
                                 device="cpu", batch_size=args.batch_size)
        run_evaluation(backend, questions[:8], template=template.name)  # warm-up
        run_probe(backend, questions[:4], seed=0, batch_size=args.batch_size)
        scoring, _ = timed(lambda: run_evaluation(backend, questions, template=template.name))
        probing, rows = timed(lambda: run_probe(backend, questions, seed=0, batch_size=args.batch_size))
    counts = probe_counts(rows, {q.question_id: q.answer for q in questions})
    per_q_score, per_q_probe = scoring / len(questions), probing / len(questions)
    per_kept = probing / max(counts["n"], 1)
    print(f"questions: {len(questions)}; probe: one generation of <= {MAX_NEW_TOKENS} tokens per question")
    print(f"letter scoring   {1000 * per_q_score:8.1f} ms/question")
    print(f"probe            {1000 * per_q_probe:8.1f} ms/question   ratio to scoring {per_q_probe / per_q_score:6.1f}x")
    print(f"probe per kept   {1000 * per_kept:8.1f} ms/kept item ({counts['n']} of {counts['generated']} kept: "
          f"masked option wrong)   ratio {per_kept / per_q_score:6.1f}x")


if __name__ == "__main__":
    main()
