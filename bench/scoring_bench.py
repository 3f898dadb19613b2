"""Scoring-cost benchmark: one-pass letter scoring vs the alternatives, in one run.

    python bench/scoring_bench.py [--n 400] [--batch-size 8] [--fewshot-n 100]

Builds a ~30M-parameter random Llama-style model locally (no downloads), generates
demo-style questions, and times, on the same model, batch size and prompts:

  one-pass     our scorer: one forward per question, read the letter log-probs
  per-option   harness-style: one forward per option, log-likelihood of the option's text
  generate     the official Mobile-MMLU script: generate(max_new_tokens=5), then parse
  5-shot       our scorer with 5 dev exemplars per topic, relative to 0-shot, with
               the prefix KV kept across batches and calls (the default) and not kept
               (prefix_cache_mb=0: every batch computes its own prefix)

The one-pass scorer runs a prompt prefix shared by a batch (template header,
a topic's exemplars) once and reuses its KV cache (prefix_reuse=True).

Prints questions/s and ratios. No absolute-time assertions: machines differ.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import DEMO_TOPICS, build_bench_model, build_demo_tokenizer, generate_demo_questions  # noqa: E402
from evaluator.engine import run_evaluation  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402
from evaluator.scoring import extract_answer  # noqa: E402


def per_option_loglikelihood(backend, questions, template) -> list[str]:
    """One forward per (question, option): sum log P(option text | prompt), argmax over options."""
    torch = backend.torch
    tok = backend.tokenizer
    pairs = []  # (question index, option index, full ids, n continuation tokens)
    for qi, q in enumerate(questions):
        ctx = tok.encode(template.render(q.question, q.options), add_special_tokens=True)
        for oi, opt in enumerate(q.options):
            cont = tok.encode(" " + opt, add_special_tokens=False)
            pairs.append((qi, oi, ctx + cont, len(cont)))
    scores = [[0.0] * len(q.options) for q in questions]
    with torch.inference_mode():
        for start in range(0, len(pairs), backend.batch_size):
            batch = pairs[start:start + backend.batch_size]
            input_ids, mask, positions = backend._batch([p[2] for p in batch])
            logits = backend.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                                   use_cache=False).logits
            logp = torch.log_softmax(logits.float(), dim=-1)
            width = input_ids.shape[1]
            for row, (qi, oi, _, n) in enumerate(batch):
                targets = input_ids[row, width - n:]
                preds = logp[row, width - n - 1:width - 1]
                scores[qi][oi] = float(preds.gather(-1, targets[:, None]).sum())
    return ["ABCDEFGHIJ"[max(range(len(s)), key=s.__getitem__)] for s in scores]


def reference_generate(backend, questions, template) -> list[str | None]:
    """As the official script: tokenizer(prompts, padding=True); generate(max_new_tokens=5); parse."""
    torch, tok, model = backend.torch, backend.tokenizer, backend.model
    prompts = [template.render(q.question, q.options) for q in questions]
    out = []
    with torch.inference_mode():
        for start in range(0, len(prompts), backend.batch_size):
            inputs = tok(prompts[start:start + backend.batch_size], return_tensors="pt", padding=True)
            gen = model.generate(**inputs, max_new_tokens=5, do_sample=False, pad_token_id=tok.pad_token_id)
            texts = tok.batch_decode(gen[:, inputs["input_ids"].shape[1]:], skip_special_tokens=True)
            out.extend(extract_answer(t, "ABCD") for t in texts)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--fewshot-n", type=int, default=100, help="questions for the 5-shot vs 0-shot comparison")
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--block", type=int, default=40, help="questions per interleaving block")
    args = ap.parse_args()

    import torch
    questions = generate_demo_questions(args.n, seed=0, prefix="bench")
    dev = generate_demo_questions(5 * len(DEMO_TOPICS), seed=1, prefix="dev")
    template = get_template("mobile-mmlu-reference")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        tok_dir = build_demo_tokenizer([template.render(q.question, q.options) for q in questions + dev],
                                       Path(tmp) / "tok", vocab_size=8000)
        model_dir = build_bench_model(Path(tmp) / "model", tok_dir)
        build_s = time.perf_counter() - t0
        backend = create_backend("transformers", str(model_dir), device="cpu", batch_size=args.batch_size)
        # Same weights, prefix KV not kept: every batch computes its own prefix.
        per_batch = create_backend("transformers", str(model_dir), device="cpu", batch_size=args.batch_size,
                                   model_obj=backend.model, tokenizer_obj=backend.tokenizer, prefix_cache_mb=0)
        n_params = backend.param_count()
        print(f"model: {n_params / 1e6:.1f}M params, vocab {len(backend.tokenizer)}, float32 CPU, "
              f"{torch.get_num_threads()} threads, batch {args.batch_size}; built in {build_s:.1f}s")
        print(f"questions: {len(questions)} x 4 options, template mobile-mmlu-reference\n")

        run_evaluation(backend, questions[:8], template=template.name)  # warm-up
        run_evaluation(per_batch, questions[:8], template=template.name)
        fewshot = dict(template=template.name, shots=5, dev_questions=dev)
        methods = {
            "ours": lambda qs: [r["predicted"] for r in run_evaluation(backend, qs, template=template.name).rows],
            "per-option": lambda qs: per_option_loglikelihood(backend, qs, template),
            "generate": lambda qs: reference_generate(backend, qs, template),
            "0-shot": lambda qs: run_evaluation(backend, qs, template=template.name).rows,
            "5-shot": lambda qs: run_evaluation(backend, qs, **fewshot).rows,
            "0-shot per-batch": lambda qs: run_evaluation(per_batch, qs, template=template.name).rows,
            "5-shot per-batch": lambda qs: run_evaluation(per_batch, qs, **fewshot).rows,
        }
        # Interleaved: every block of questions runs every method, in a rotating order, so a
        # burst of load from other processes on a shared machine hits all methods alike.
        wall = dict.fromkeys(methods, 0.0)
        cpu = dict.fromkeys(methods, 0.0)
        preds: dict[str, list] = {m: [] for m in methods}
        counts = dict.fromkeys(methods, 0)
        names = list(methods)
        for b, start in enumerate(range(0, len(questions), args.block)):
            block = questions[start:start + args.block]
            for name in names[b % len(names):] + names[:b % len(names)]:
                qs = block
                if "shot" in name:
                    if start >= args.fewshot_n:
                        continue
                    qs = block[: args.fewshot_n - start]
                c0, t0 = time.process_time(), time.perf_counter()
                preds[name].extend(methods[name](qs))
                wall[name] += time.perf_counter() - t0
                cpu[name] += time.process_time() - c0
                counts[name] += len(qs)
            print(f"  block {b + 1}: {start + len(block)}/{len(questions)} questions", file=sys.stderr)
        sub = questions[: counts["0-shot"]]
        len0 = sum(backend.count_tokens(template.render(q.question, q.options)) for q in sub) / len(sub)

    n = len(questions)
    print(f"{'method':40s} {'wall s':>8s} {'cpu s':>8s} {'questions/s':>12s} {'ours is x faster (wall, cpu)':>30s}")
    for key, name in (("ours", "one-pass letter scoring (ours)"), ("per-option", "per-option log-likelihood"),
                      ("generate", "generate(max_new_tokens=5) + parse")):
        print(f"{name:40s} {wall[key]:8.2f} {cpu[key]:8.2f} {n / wall[key]:12.1f} "
              f"{wall[key] / wall['ours']:16.2f} {cpu[key] / cpu['ours']:12.2f}")
    agree_opt = sum(a == b for a, b in zip(preds["ours"], preds["per-option"])) / n
    agree_gen = sum(a == b for a, b in zip(preds["ours"], preds["generate"])) / n
    unparsed = sum(g is None for g in preds["generate"]) / n
    print(f"(random model: prediction agreement ours/per-option {agree_opt:.2f}, ours/generate {agree_gen:.2f}; "
          f"generate unparsed rate {unparsed:.2f})")
    k = counts["0-shot"]
    print(f"\n5-shot vs 0-shot on {k} questions (0-shot prompt ~{len0:.0f} tokens):")
    for suffix, label in (("", "prefix KV kept across batches"), (" per-batch", "prefix KV per batch")):
        z, f = wall["0-shot" + suffix], wall["5-shot" + suffix]
        print(f"  {label:30s} 0-shot {k / z:6.1f} q/s, 5-shot {k / f:6.1f} q/s, 5-shot/0-shot = {f / z:.2f}x")
    print(f"  keeping the prefix KV makes 5-shot {wall['5-shot per-batch'] / wall['5-shot']:.2f}x faster "
          f"(prefix KV over the whole run: {backend.stats['prefix_hits']} hits, "
          f"{backend.stats['prefix_misses']} computed)")
    print(f"\nratios (wall): per-option/ours = {wall['per-option'] / wall['ours']:.2f}x (aim >= 3), "
          f"generate/ours = {wall['generate'] / wall['ours']:.2f}x (aim >= 2), "
          f"5-shot/0-shot = {wall['5-shot'] / wall['0-shot']:.2f}x (aim <= 2)")


if __name__ == "__main__":
    main()
