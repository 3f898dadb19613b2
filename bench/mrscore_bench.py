"""MRScore judging throughput: batched requests vs one question at a time, in one run.

    python bench/mrscore_bench.py [--n 400] [--batch-size 32] [--device cpu|cuda]

Builds a ~30M-parameter random Llama-style judge locally (no downloads) with the bench
tokenizer, generates questions shaped like the published Mobile-MMLU files (bench/real_shapes.py:
the judge reads the question text, ~171 characters), and judges them with the local judge
(transformers backend, log-prob scoring: one forward pass per question plus the
"1"/"10" continuation pass where needed) twice on the same model and prompts:

  one-at-a-time   batch_size=1: one request per question
  batched         batch_size=N: left-padded batches; the prompt prefix shared by every
                  question (instructions, criteria) runs once per batch (prefix reuse)

Checks that both give the same scores, prints questions/s and the ratio, with the judge prompts' mean
characters and tokens. No absolute-time
assertions: machines differ.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_shapes import real_shaped_questions, sizes_label  # noqa: E402
from bench.real_shapes import tokenizer as shapes_tokenizer  # noqa: E402
from evaluator.demo_models import build_bench_model  # noqa: E402
from evaluator.judges import create_judge, render  # noqa: E402


def timed(judge, texts):
    start = time.perf_counter()
    verdicts = judge.judge(texts)
    if judge.backend.device.startswith("cuda"):
        judge.backend.torch.cuda.synchronize()
    return verdicts, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)

    questions = real_shaped_questions(args.n, seed=3)
    texts = [q.question for q in questions]
    with tempfile.TemporaryDirectory() as tmp:
        tok_dir = shapes_tokenizer(Path(tmp) / "tok", [render(t) for t in texts[:20]])
        model_dir = str(build_bench_model(Path(tmp) / "judge", tok_dir, seed=0))
        single = create_judge("local", model_dir, batch_size=1, device=args.device)
        batched = create_judge("local", model_dir, batch_size=args.batch_size, device=args.device)
        params = sum(p.numel() for p in single.backend.model.parameters())
        single.judge(texts[:4]), batched.judge(texts[:args.batch_size])  # warm-up

        one, t_one = timed(single, texts)
        many, t_many = timed(batched, texts)
        sizes = sizes_label([render(t, rendering=single.rendering) for t in texts],
                            lambda p: len(single.backend.tokenizer.encode(p)))

    worst = max(abs(a.score - b.score) for a, b in zip(one, many))
    continued = sum(1 for v in many if v.ten_split == "continuation")
    print(f"judge: random Llama-style, {params / 1e6:.1f}M parameters, device {args.device}; {args.n} questions; "
          f"prompt {single.describe()['prompt_version']} ({single.rendering} rendering)")
    print(f"judge prompts: {sizes}")
    print(f"continuation pass (\"1\" vs \"10\") on {continued} of {args.n} questions")
    print(f"{'one-at-a-time (batch 1)':<28} {args.n / t_one:8.1f} questions/s  ({t_one:.2f} s)")
    print(f"{f'batched (batch {args.batch_size})':<28} {args.n / t_many:8.1f} questions/s  ({t_many:.2f} s)")
    print(f"ratio batched / one-at-a-time: {t_one / t_many:.2f}x")
    print(f"largest score difference between the two: {worst:.2e}")


if __name__ == "__main__":
    main()
