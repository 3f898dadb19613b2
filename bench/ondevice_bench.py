"""llama.cpp on the phone-class path: its letter scoring against the transformers backend, and the repeatability
of a GGUF file's cost profile (evaluator/ondevice_profile.py), in one run.

    .venv-llamacpp/bin/python bench/ondevice_bench.py [--n 24] [--threads 2] [--repeats 3] [--hidden 256] [--layers 2]

Builds a tiny random Llama with a SentencePiece vocabulary trained on real-shaped prompts (evaluator/spm_models.py,
bench/real_shapes.py: ~1,800 characters per 0-shot prompt), converts it to an f32 GGUF with the project's pipeline
(evaluator/gguf_convert.py), then:

  scoring      the same prompts scored by the transformers backend (float32, torch on --threads threads) and by
               the llamacpp backend (the f32 file, --threads threads): questions/s of each over interleaved
               blocks (median), their ratio, the mean prompt characters and tokens, and how far the two agree
               (same letter, largest letter-probability difference: f32 on both sides, so ~1e-5)
  profile      the file's cost profile with --repeats repeats (pp512, tg128, time to first token), each figure's
               coefficient of variation within the profile (sd / mean over the repeats) and across three fresh
               processes (sd / mean of their means); the aim is at most 5%

Needs .venv-llamacpp (llama-cpp-python, sentencepiece, transformers). No absolute-time assertions: machines differ.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_shapes import prompt_sizes, real_shaped_questions  # noqa: E402
from evaluator.backends import create_backend  # noqa: E402
from evaluator.gguf_convert import convert  # noqa: E402
from evaluator.ondevice_profile import label, measure_profile  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402
from evaluator.spm_models import build_spm_model, build_spm_tokenizer  # noqa: E402

CV_AIM = 0.05
PROFILE_PROCESSES = 3


def build(tmp: Path, prompts: list[str], *, hidden: int, layers: int) -> tuple[Path, Path]:
    spm = build_spm_tokenizer(prompts, tmp / "spm", vocab_size=1000)
    folder = build_spm_model(tmp / "llama", spm, family="llama", seed=1, hidden=hidden, layers=layers,
                             heads=max(1, hidden // 64), kv_heads=max(1, hidden // 128))
    gguf = tmp / "llama-f32.gguf"
    convert(str(folder), gguf, "f32")
    return folder, gguf


def time_scoring(backends: dict, prompts: list[str], blocks: int) -> dict[str, float]:
    """Questions/s of each backend: the median over `blocks` interleaved passes (machine noise hits both)."""
    rates = {name: [] for name in backends}
    for _ in range(blocks):
        for name, backend in backends.items():
            with getattr(backend, "cold_cache", None)() if name == "llamacpp" else _nothing():
                t0 = time.perf_counter()
                backend.letter_logprobs(prompts)
                rates[name].append(len(prompts) / (time.perf_counter() - t0))
    return {name: statistics.median(r) for name, r in rates.items()}


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def agreement(a: list[dict], b: list[dict]) -> tuple[float, float]:
    """(share of prompts with the same top letter, largest difference of a letter's normalised probability)."""
    same, worst = 0, 0.0
    for x, y in zip(a, b):
        px, py = _probs(x), _probs(y)
        same += max(px, key=px.get) == max(py, key=py.get)
        worst = max(worst, max(abs(px[k] - py[k]) for k in px))
    return same / len(a), worst


def _probs(lp: dict[str, float]) -> dict[str, float]:
    top = max(lp.values())
    z = sum(math.exp(v - top) for v in lp.values())
    return {k: math.exp(v - top) / z for k, v in lp.items()}


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.fmean(values) if len(values) > 1 else 0.0


def profile_figures(profile: dict) -> dict[str, tuple[float, float]]:
    """figure -> (mean, sd) of one profile: pp and tg tokens/s, time to first token."""
    return {f"pp{profile['pp']['tokens']} tokens/s": (profile["pp"]["tokens_per_s"], profile["pp"]["sd"]),
            f"tg{profile['tg']['tokens']} tokens/s": (profile["tg"]["tokens_per_s"], profile["tg"]["sd"]),
            "time to first token (s)": (profile["ttft"]["seconds"], profile["ttft"]["sd"])}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=24, help="real-shaped questions scored")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3, help="the profile's repeats")
    p.add_argument("--blocks", type=int, default=3, help="interleaved scoring passes")
    p.add_argument("--pp", type=int, default=512)
    p.add_argument("--tg", type=int, default=128)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=2)
    args = p.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    tmpl = get_template("default")
    prompts = [tmpl.render(q.question, q.options) for q in real_shaped_questions(args.n, seed=5, prefix="ondev")]
    with tempfile.TemporaryDirectory(prefix="ondevice-bench-") as tmp:
        folder, gguf = build(Path(tmp), prompts, hidden=args.hidden, layers=args.layers)
        backends = {"transformers": create_backend("transformers", str(folder), device="cpu", batch_size=8),
                    "llamacpp": create_backend("llamacpp", str(gguf), threads=args.threads, kv_cache_type="f32",
                                               sizing_prompts=prompts)}
        chars, tokens = prompt_sizes(prompts, backends["llamacpp"].count_tokens)
        print(f"tiny Llama (hidden {args.hidden}, {args.layers} layers, {backends['llamacpp'].param_count():,} "
              f"parameters), f32 GGUF {gguf.stat().st_size / 2**20:.1f} MiB, {args.threads} threads; "
              f"{len(prompts)} real-shaped prompts: mean prompt characters {chars:,.0f}, mean prompt tokens "
              f"{tokens:,.0f}")
        letters = {name: b.letter_logprobs(prompts) for name, b in backends.items()}  # warm-up and agreement
        same, worst = agreement(letters["transformers"], letters["llamacpp"])
        rates = time_scoring(backends, prompts, args.blocks)
        backends["llamacpp"].close()
        print(f"scoring  transformers {rates['transformers']:8.2f} q/s   llamacpp {rates['llamacpp']:8.2f} q/s   "
              f"llamacpp / transformers {rates['llamacpp'] / rates['transformers']:.2f}x")
        print(f"agreement  same letter {same:.0%}, largest letter-probability difference {worst:.1e}")

        runs = [measure_profile(gguf, threads=args.threads, repeats=args.repeats, pp=args.pp, tg=args.tg)
                for _ in range(PROFILE_PROCESSES)]
        print(f"profile ({label(args.threads)}; {args.repeats} repeats, {PROFILE_PROCESSES} fresh processes; "
              f"TTFT prompt {runs[0]['ttft']['prompt_chars']:,} characters, {runs[0]['ttft']['prompt_tokens']} "
              f"tokens; peak RSS {runs[0]['peak_rss_bytes'] / 2**20:.0f} MiB, memory-mapped; CPU "
              f"{runs[0]['cpu']['model']})")
        worst_cv = 0.0
        for name in profile_figures(runs[0]):
            figures = [profile_figures(r)[name] for r in runs]
            within = max(sd / mean for mean, sd in figures)
            across = cv([mean for mean, _ in figures])
            worst_cv = max(worst_cv, within, across)
            print(f"  {name:26s} {figures[0][0]:12.4g} ± {figures[0][1]:.3g}   CV within a profile (worst of "
                  f"{PROFILE_PROCESSES}) {within:6.1%}   CV across processes {across:6.1%}")
        print(f"worst CV {worst_cv:.1%} ({'within' if worst_cv <= CV_AIM else 'over'} the {CV_AIM:.0%} aim); load "
              f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other processes make llama.cpp's threads "
              "wait for each other: run it on a quiet machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
