"""Letter-scoring throughput at 7B scale on a GPU against the bf16 compute limit, and vLLM vs transformers
on the CPU, on prompts shaped like the published Mobile-MMLU files.

    python bench/gpu_bench.py [--device cuda|cpu] [--mode throughput|vllm] [--quick] [--n N]
                              [--batch-sizes 8,32,64] [--backends auto|transformers|vllm] [--shape 7b|small|tiny]
                              [--time-limit S]

Prompts: invented questions with the published files' per-topic lengths (bench/real_shapes.py: ~1,880
characters, ~430 tokens per 0-shot prompt, ~2,400 5-shot), template mobile-mmlu-reference, from as many
topics of typical length as keeps ~202 questions per topic (as in the full set, so a topic's 5-shot prefix
is amortised as in a full run). Three settings: 0-shot, 5-shot, and 9 answer orders (n/9 questions under
every order, planned and rendered as the engine does: a question's orders follow each other and share the
header and question in a prefix cache). Every figure is printed with its mean prompt characters and tokens.

Throughput (the default on CUDA; needs a CUDA build of torch, e.g. requirements-gpu.txt): a random-weight
Llama of 7B shape (hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate 14336, bf16) built on the GPU
from a config, the bench tokenizer's vocabulary padded up to --vocab (no downloads, nothing saved):

  transformers, per batch size: reuse (the production path: batches sorted by token ids, shared prefix KV
               reused), sorted (no prefix reuse) and shuffled (the baseline: random batches, no reuse)
  vLLM         when `import vllm` works (the production backend): the same shape with load_format='dummy'
               (random weights from the config), prefix caching on, chunks of --vllm-chunk

Each figure is extrapolated to full Mobile-MMLU (16,186 questions; x9 for the 9 orders) at the measured
rate and compared with the bf16 compute limit for that many tokens: 16,186 x orders x tokens per prompt x
2 x parameters / --peak-tflops (989: H100 SXM dense bf16; about 107 s for a 7B model at 450 tokens). The
targets for a 7B model on one H100 get PASS/FAIL: one answer order <= 1.5x the limit, all 9 orders <= 20
min, 5-shot <= 1.5x 0-shot. `--device cpu --mode throughput` runs this same code on the tiny shape (or
--shape small, the scoring bench's 30M model), vLLM included under .venv-vllm: a test of the path.

CPU (the default without a GPU): real vLLM (CPU build) against the transformers backend on the
tiny random model (hidden 128, 2 heads: head_dim 64, as vLLM's CPU attention requires; float32
both) on the same prompts, 0-shot and 5-shot: wall time of letter scoring (engine start reported
apart), vLLM/transformers, and the largest letter-probability difference between the two. It
needs vLLM and transformers in one interpreter: run it with the vLLM venv,

    .venv-vllm/bin/python bench/gpu_bench.py [--quick]

Each backend gets the prompts in the chunks the engine gives it (transformers 256, vLLM 2048).
vLLM's CPU worker binds one core (on a 2-core machine it reserves the other), so transformers gets
one torch thread (--threads): on a shared, loaded machine two threads are also far noisier.
The transformers side runs before the engine starts and again after it stops (the idle engine
polls, taking CPU), so drifting load from other processes on a shared machine shows as a gap
between the two. No absolute-time assertions: machines differ.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.real_shapes import (  # noqa: E402
    MAX_POSITIONS, MOBILE_MMLU_QUESTIONS, dev_questions, prompt_sizes, real_shaped_questions, typical_topics,
)
from bench.real_shapes import tokenizer as shapes_tokenizer  # noqa: E402
from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import build_tiny_random  # noqa: E402
from evaluator.engine import plan_evaluation  # noqa: E402
from evaluator.prompts import get_template, render_questions, topic_shots  # noqa: E402
from evaluator.scoring import decide_letters  # noqa: E402

# Targets for a 7B model on one H100 (issue 23): one answer order within 1.5x the bf16 compute limit,
# all 9 orders within 20 minutes, 5-shot within 1.5x 0-shot.
TARGET_X_LIMIT_PER_ORDER, TARGET_MIN_9_ORDERS, TARGET_5SHOT_X_0SHOT = 1.5, 20.0, 1.5
TEMPLATE = "mobile-mmlu-reference"
SHAPES = {  # Llama configs; "7b" is the Llama-3-8B / Mistral-7B body
    "7b": dict(hidden=4096, layers=32, heads=32, kv_heads=8, intermediate=14336),
    "small": dict(hidden=512, layers=8, heads=8, kv_heads=8, intermediate=1376),  # the scoring bench's model
    "tiny": dict(hidden=128, layers=2, heads=2, kv_heads=1, intermediate=256),
}


# -- prompts, timing, FLOPs (device-independent helpers) ---------------------------------------------
def render_prompts(questions, dev, shots: int) -> list[str]:
    """As the engine renders them: header, the topic's `shots` dev exemplars, then the question."""
    return render_questions(questions, template=TEMPLATE, shots=shots, dev_questions=dev)


def chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _sync(backend) -> None:
    if str(getattr(backend, "device", "cpu")).startswith("cuda"):
        backend.torch.cuda.synchronize()


def score(backend, prompts: list[str], chunk: int) -> tuple[float, list[dict[str, float]]]:
    """Wall seconds and letter log-probs, one letter_logprobs call per chunk (as run_evaluation does)."""
    _sync(backend)
    t0 = time.perf_counter()
    out = [lp for part in chunks(prompts, chunk) for lp in backend.letter_logprobs(part)]
    _sync(backend)
    return time.perf_counter() - t0, out


def score_shuffled(backend, prompts: list[str], chunk: int, seed: int = 0) -> float:
    """Baseline: each chunk's prompts in a random order, cut into batches of batch_size as they come
    (one next_token_logprobs call per batch is one plain left-padded forward with prefix_reuse=False)."""
    assert not backend.prefix_reuse_used, "the shuffled baseline is meant without prefix reuse"
    rng = random.Random(seed)
    encoded = [backend.tokenizer.encode(p, add_special_tokens=True) for p in prompts]
    _sync(backend)
    t0 = time.perf_counter()
    for part in chunks(list(range(len(encoded))), chunk):
        rng.shuffle(part)
        for batch in chunks(part, backend.batch_size):
            backend.next_token_logprobs([encoded[i] for i in batch])
    _sync(backend)
    return time.perf_counter() - t0


def flop_counts(model) -> tuple[int, int]:
    """(parameters used at every token: all but the input embedding and lm_head, lm_head parameters)."""
    total = sum(p.numel() for p in model.parameters())
    embed = model.get_input_embeddings().weight.numel()
    head = model.get_output_embeddings().weight.numel()
    return total - embed - head, head


def build_llama(tokenizer, shape: str, *, vocab: int, device: str, dtype):
    """A random-weight Llama built in place on `device` (no float32 CPU copy of a 7B model), its
    vocabulary padded to a multiple of 64 at least `vocab` (the tokenizer's ids are a prefix of it)."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    s = SHAPES[shape]
    config = LlamaConfig(
        vocab_size=-(-max(vocab, len(tokenizer)) // 64) * 64, hidden_size=s["hidden"],
        intermediate_size=s["intermediate"], num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
        num_key_value_heads=s["kv_heads"], max_position_embeddings=MAX_POSITIONS, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()


# -- throughput at 7B scale (CUDA), or the same code on a tiny model (CPU) ------------------------------
def compute_limit_s(tokens_per_prompt: float, params: int, peak_tflops: float, prompts: int) -> float:
    """Seconds the dense matmuls of `prompts` prompts need at the bf16 peak: prompts x tokens x 2 x params."""
    return prompts * tokens_per_prompt * 2 * params / (peak_tflops * 1e12)


def nine_order_prompts(questions, dev, shots: int = 0) -> list[str]:
    """Every question under the 9 answer orders, as the engine plans and renders them (question-major, so
    a question's orders follow each other and share the header and question in a prefix cache)."""
    tmpl = get_template(TEMPLATE)
    shot_cache = topic_shots(questions, dev, shots)
    plan = plan_evaluation(questions, variants="all", template=TEMPLATE, shots=shots, dev_questions=dev)
    return [tmpl.render(it.question.question, it.view.options, shot_cache[it.question.topic]) for it in plan.items]


def vllm_importable() -> bool:
    try:
        import vllm  # noqa: F401
    except ImportError:
        return False
    return True


def bench_throughput(args) -> None:
    import torch

    shape = args.shape or ("7b" if args.device == "cuda" else "tiny")
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    n = args.n or ((500 if args.quick else 2000) if args.device == "cuda" else (16 if args.quick else 48))
    # As many questions per topic as a full run has (16,186 / 80 ~ 202): a topic's 5-shot prefix is then
    # amortised as in a full run. Topics of typical length, so the prompt mix keeps the published mean.
    topics = typical_topics(max(1, round(n * 80 / MOBILE_MMLU_QUESTIONS)) + 1)
    topics, warm_topic = topics[:-1], topics[-1:]  # the warm-up's topic: its 5-shot prefix is not a timed one
    questions = real_shaped_questions(n, seed=0, prefix="bench", topics=topics)
    dev = dev_questions(topics + warm_topic)
    warm = real_shaped_questions(min(8, n), seed=2, prefix="warm", topics=warm_topic)
    prompts = {"0-shot": render_prompts(questions, dev, 0), "5-shot": render_prompts(questions, dev, 5),
               "9 orders": nine_order_prompts(questions[: max(2, n // 9)], dev)}
    with tempfile.TemporaryDirectory() as tmp:
        from transformers import AutoTokenizer
        tokenizer = AutoTokenizer.from_pretrained(str(shapes_tokenizer(Path(tmp) / "tok", prompts["5-shot"][:8])))
    t0 = time.perf_counter()
    model = build_llama(tokenizer, shape, vocab=args.vocab, device=args.device, dtype=dtype)
    if args.device == "cuda":
        torch.cuda.synchronize()
    build_s = time.perf_counter() - t0
    per_token, head = flop_counts(model)
    n_params = sum(p.numel() for p in model.parameters())
    count = lambda p: len(tokenizer.encode(p))  # noqa: E731
    sizes = {k: prompt_sizes(v, count) for k, v in prompts.items()}

    where = torch.cuda.get_device_name() if args.device == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    print(f"model: random Llama '{shape}', {n_params / 1e9:.3g}B params ({per_token / 1e9:.3g}B per token), "
          f"vocab {model.config.vocab_size} (tokenizer {len(tokenizer)}), {str(dtype)[6:]}, {where}; "
          f"built in {build_s:.1f}s; load average {os.getloadavg()[0]:.2f}")
    print(f"prompts: {n} real-shaped questions (bench/real_shapes.py) from {len(topics)} topic(s) of typical length, "
          f"template {TEMPLATE}, chunk {args.chunk}; peak {args.peak_tflops:g} TFLOP/s")
    for k, (chars, tokens) in sizes.items():
        print(f"  {k:8s}: {len(prompts[k]):5d} prompts, mean prompt characters {chars:,.0f}, "
              f"mean prompt tokens {tokens:,.0f}")
    print()

    results = []  # (backend, setting, config, seconds, prompts, computed tokens or None)
    results += throughput_transformers(args, model, tokenizer, prompts, warm, dev)
    if args.device == "cuda":
        del model
        import gc
        gc.collect()
        torch.cuda.empty_cache()
    if args.backends in ("auto", "vllm"):
        if vllm_importable():
            results += throughput_vllm(args, shape, tokenizer, prompts, warm, dev)
        else:
            print("vLLM is not importable here (python -c 'import vllm' fails): transformers only; the GPU "
                  "image's requirements-gpu.txt has it\n")
    report_throughput(args, results, sizes, n_params, per_token, head)
    if args.device == "cuda":
        print(f"peak GPU memory allocated by torch in this process: "
              f"{torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")


def throughput_transformers(args, model, tokenizer, prompts, warm, dev) -> list[tuple]:
    def backend(batch_size: int, reuse: bool):
        return create_backend("transformers", "random-llama", device=args.device, batch_size=batch_size,
                              model_obj=model, tokenizer_obj=tokenizer, prefix_reuse=reuse)

    w = backend(max(args.batch_sizes), True)  # warm-up (kernels, allocator), its own prefix cache
    for k in (0, 5):
        score(w, render_prompts(warm, dev, k), args.chunk)
    out = []
    start = time.perf_counter()
    for setting, texts in prompts.items():
        methods = ("reuse", "sorted", "shuffled") if setting != "9 orders" else ("reuse", "sorted")
        for bs in args.batch_sizes:
            for method in methods:
                if args.time_limit and time.perf_counter() - start > args.time_limit:
                    print(f"  transformers {setting} batch {bs} {method}: not run (--time-limit {args.time_limit:g}s "
                          "spent)", file=sys.stderr)
                    continue
                b = backend(bs, method == "reuse")  # fresh: empty prefix cache and stats
                secs = score_shuffled(b, texts, args.chunk) if method == "shuffled" else score(b, texts, args.chunk)[0]
                out.append(("transformers", setting, f"batch {bs} {method}", secs, len(texts),
                            b.stats["computed_tokens"]))
                print(f"  transformers {setting} batch {bs:3d} {method:8s} {secs:7.2f}s", file=sys.stderr)
    return out


def throughput_vllm(args, shape, tokenizer, prompts, warm, dev) -> list[tuple]:
    """vLLM (the production backend) on a random model of the same shape: load_format='dummy' (random
    weights from the config, nothing saved), prefix caching on as in production."""
    from transformers import LlamaConfig

    s = SHAPES[shape]
    warm_prompts = [p for k in (0, 5) for p in render_prompts(warm, dev, k)]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        config = LlamaConfig(
            vocab_size=-(-max(args.vocab, len(tokenizer)) // 64) * 64, hidden_size=s["hidden"],
            intermediate_size=s["intermediate"], num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
            num_key_value_heads=s["kv_heads"], max_position_embeddings=MAX_POSITIONS,
            bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False,
            torch_dtype="bfloat16" if args.device == "cuda" else "float32")
        config.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        t0 = time.perf_counter()
        vl = create_backend("vllm", tmp, device=args.device, load_format="dummy",
                            sizing_prompts=[p for v in prompts.values() for p in v] + warm_prompts)
        start_s = time.perf_counter() - t0
        print(f"  vLLM engine started in {start_s:.1f}s (not counted)", file=sys.stderr)
        try:
            score(vl, warm_prompts, args.vllm_chunk)
            for setting, texts in prompts.items():
                vl.llm.reset_prefix_cache()  # each setting starts cold, as each transformers backend does
                secs, _ = score(vl, texts, args.vllm_chunk)
                out.append(("vllm", setting, f"chunk {args.vllm_chunk}, prefix cache", secs, len(texts), None))
                print(f"  vllm {setting} {secs:7.2f}s", file=sys.stderr)
        finally:
            vl.close()
    return out


def report_throughput(args, results, sizes, n_params, per_token, head) -> None:
    """Every figure with its prompt sizes, extrapolated to full Mobile-MMLU, against the bf16 compute limit
    for that many tokens; the targets' pass/fail for each backend's best configuration."""
    q = MOBILE_MMLU_QUESTIONS
    orders = {"0-shot": 1, "5-shot": 1, "9 orders": 9}
    print(f"{'backend':>12s} {'setting':>8s} {'config':>26s} {'chars':>6s} {'tokens':>6s} {'s':>8s} "
          f"{'prompts/s':>9s} {'tok/s':>9s} {'TFLOP/s':>8s} {'full min':>8s} {'limit min':>9s} {'x limit':>7s}")
    best: dict[tuple[str, str], tuple] = {}
    for backend, setting, config, secs, count, computed in results:
        chars, tokens = sizes[setting]
        rate = count / secs
        full_s = q * orders[setting] / rate
        limit = compute_limit_s(tokens, n_params, args.peak_tflops, q * orders[setting])
        flops = 2 * per_token * (computed if computed is not None else tokens * count) + 2 * head * count
        print(f"{backend:>12s} {setting:>8s} {config:>26s} {chars:6.0f} {tokens:6.0f} {secs:8.2f} {rate:9.1f} "
              f"{rate * tokens:9.0f} {flops / secs / 1e12:8.3g} {full_s / 60:8.2f} {limit / 60:9.2f} "
              f"{full_s / limit:7.2f}")
        if (backend, setting) not in best or full_s < best[backend, setting][1]:
            best[backend, setting] = (config, full_s, limit, rate, tokens)
    print("(chars/tokens: mean prompt characters/tokens; full min: the time for all 16,186 questions (x9 for "
          "9 orders) at the measured prompts/s; limit: 16,186 x orders x tokens per prompt x 2 x parameters "
          f"({n_params / 1e9:.3g}B) / {args.peak_tflops:g} TFLOP/s; TFLOP/s counts the tokens computed, "
          "prefix-cache hits excluded, for transformers)")

    for backend in dict.fromkeys(b for b, _ in best):
        print(f"\n{backend}: full Mobile-MMLU ({q:,} questions), the best configuration of each setting, "
              "extrapolated from the measured rate:")
        full = {}
        for setting in orders:
            if (backend, setting) not in best:
                print(f"  {setting:8s}: not measured (--time-limit)")
                continue
            config, full_s, limit, rate, tokens = best[backend, setting]
            full[setting] = (full_s, limit)
            print(f"  {setting:8s} ({config}): {rate * tokens:,.0f} prompt tokens/s measured, {tokens:.0f} tokens "
                  f"per prompt, {q:,} questions x {orders[setting]} order(s) -> {full_s / 60:.2f} min; compute "
                  f"limit {limit / 60:.2f} min; {full_s / limit:.2f}x the limit")
        targets = []
        if "0-shot" in full:
            one = full["0-shot"][0] / full["0-shot"][1]
            targets.append((one <= TARGET_X_LIMIT_PER_ORDER, f"one answer order {one:.2f}x the compute limit "
                                                             f"(target <= {TARGET_X_LIMIT_PER_ORDER:g}x)"))
        if "9 orders" in full:
            nine = full["9 orders"][0] / 60
            targets.append((nine <= TARGET_MIN_9_ORDERS, f"all 9 orders {nine:.1f} min "
                                                         f"(target <= {TARGET_MIN_9_ORDERS:g} min)"))
        if "0-shot" in full and "5-shot" in full:
            five = full["5-shot"][0] / full["0-shot"][0]
            targets.append((five <= TARGET_5SHOT_X_0SHOT, f"5-shot {five:.2f}x 0-shot "
                                                          f"(target <= {TARGET_5SHOT_X_0SHOT:g}x)"))
        for ok, text in targets:
            print(f"  {'PASS' if ok else 'FAIL'}  {text}")
    if args.device != "cuda" or args.shape not in (None, "7b"):
        print("\n(the targets are for a 7B model on one H100: on this model and device the pass/fail lines "
              "only show that the path works)")


# -- CPU: real vLLM vs transformers on the tiny model ---------------------------------------------------
def bench_vllm_cpu(args) -> None:
    import torch

    torch.set_num_threads(args.threads)
    n = args.n or (40 if args.quick else 120)
    topics = typical_topics(max(1, round(n * 80 / MOBILE_MMLU_QUESTIONS)))
    questions = real_shaped_questions(n, seed=0, prefix="bench", topics=topics)
    dev = dev_questions(topics)
    warm = real_shaped_questions(16, seed=2, prefix="warm", topics=topics)
    prompts = {k: render_prompts(questions, dev, k) for k in (0, 5)}
    warm_prompts = [p for k in (0, 5) for p in render_prompts(warm, dev, k)]
    wall: dict[tuple[str, int], float] = {}
    lps: dict[tuple[str, int], list] = {}

    def timed(name: str, backend, chunk: int) -> None:
        for k in (0, 5):
            wall[name, k], lps[name, k] = score(backend, prompts[k], chunk)
            print(f"  {name}: {k}-shot {wall[name, k]:.2f}s", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        tok_dir = shapes_tokenizer(Path(tmp) / "tok", prompts[5][:8])
        model_dir = build_tiny_random(Path(tmp) / "model", tok_dir, seed=0, hidden=128, heads=2,
                                      max_positions=MAX_POSITIONS)
        hf = create_backend("transformers", str(model_dir), device="cpu", dtype="float32", batch_size=args.cpu_batch)
        hf.letter_logprobs(warm_prompts)  # warm-up; the topics' exemplar prefixes are then cached, as in vLLM
        # transformers before and after vLLM (A-B-A): drifting load from other processes shows up as a
        # gap between the two, and the idle engine (it polls) is not running during either.
        timed("transformers", hf, args.chunk)
        t0 = time.perf_counter()
        vl = create_backend("vllm", str(model_dir), device="cpu", dtype="float32",
                            sizing_prompts=prompts[0] + prompts[5] + warm_prompts)
        start_s = time.perf_counter() - t0
        try:
            vl.letter_logprobs(warm_prompts)
            timed("vllm", vl, args.vllm_chunk)
        finally:
            vl.close()
        timed("transformers again", hf, args.chunk)

    print(f"\nmodel: tiny-random Llama (hidden 128, 2 layers, 2 heads, head_dim 64), {hf.param_count() / 1e6:.2f}M "
          f"params, float32, CPU; transformers: torch threads {torch.get_num_threads()}, batch {args.cpu_batch}, "
          f"chunk {args.chunk}, prefix reuse {hf.prefix_reuse_used}")
    print(f"vLLM {vl.describe()['versions']['vllm']}: engine start {start_s:.1f}s (not counted below), "
          f"max_model_len {vl.max_model_len}, chunk {args.vllm_chunk}, prefix caching on")
    print(f"{n} real-shaped questions (bench/real_shapes.py) from {len(topics)} topic(s), template {TEMPLATE}; "
          f"transformers timed before and after vLLM; load average {os.getloadavg()[0]:.2f}\n")
    print(f"{'shots':>5s} {'chars':>6s} {'tokens':>6s} {'hf before s':>11s} {'hf after s':>10s} {'vLLM s':>7s} "
          f"{'vLLM/hf':>8s} {'max |dp|':>9s} {'same letter':>11s}")
    for k in (0, 5):
        chars, mean_tok = prompt_sizes(prompts[k], hf.count_tokens)
        worst, same = 0.0, 0
        for a, b in zip(lps["transformers", k], lps["vllm", k]):
            da, db = decide_letters(a, "ABCD"), decide_letters(b, "ABCD")
            worst = max(worst, *(abs(da.letter_probs[L] - db.letter_probs[L]) for L in "ABCD"))
            same += da.predicted == db.predicted
        t1, t2, v = wall["transformers", k], wall["transformers again", k], wall["vllm", k]
        t = (t1 + t2) / 2
        print(f"{k:5d} {chars:6.0f} {mean_tok:6.0f} {t1:11.2f} {t2:10.2f} {v:7.2f} {v / t:8.2f} {worst:9.1e} "
              f"{same / n:11.1%}")
    print("(chars/tokens: mean prompt characters/tokens; hf: the transformers backend; vLLM/hf against the mean "
          "of its two runs; letter probabilities renormalised over A-D, max |dp| over every question and letter)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda when torch sees a GPU")
    ap.add_argument("--mode", choices=("throughput", "vllm"),
                    help="default: throughput on cuda, vllm (the vLLM-vs-transformers comparison) on cpu")
    ap.add_argument("--quick", action="store_true",
                    help="fewer questions (throughput: 500 on cuda, 16 on cpu; vllm: 40)")
    ap.add_argument("--n", type=int, help="questions (throughput: 2000 on cuda, 48 on cpu; vllm: 120)")
    ap.add_argument("--batch-sizes", help="throughput: transformers batch sizes (default 8,32,64 on cuda, 8 on cpu)")
    ap.add_argument("--backends", choices=("auto", "transformers", "vllm"), default="auto",
                    help="throughput: transformers, and vLLM too when it is importable (auto)")
    ap.add_argument("--chunk", type=int, default=256,
                    help="transformers: prompts per letter_logprobs call (the engine's chunk for transformers)")
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="throughput: dense peak (H100 SXM bf16)")
    ap.add_argument("--vocab", type=int, default=32000, help="throughput: vocabulary padded up to this")
    ap.add_argument("--shape", choices=sorted(SHAPES), help="throughput: model shape (default 7b on cuda)")
    ap.add_argument("--time-limit", type=float, default=0.0,
                    help="throughput: seconds of transformers timing after which the remaining configurations are "
                         "skipped and the rest reported (0: none); for a lent GPU's short lease")
    ap.add_argument("--vllm-chunk", type=int, default=2048, help="vllm: prompts per call (the engine's chunk for vLLM)")
    ap.add_argument("--cpu-batch", type=int, default=8, help="vllm: transformers batch size")
    ap.add_argument("--threads", type=int, default=1,
                    help="vllm: torch threads for transformers (vLLM's CPU worker binds one core on a 2-core machine)")
    args = ap.parse_args()
    if args.device is None:
        import torch
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    default_batches = "8,32,64" if args.device == "cuda" else "8"
    args.batch_sizes = [int(x) for x in (args.batch_sizes or default_batches).split(",")]
    mode = args.mode or ("throughput" if args.device == "cuda" else "vllm")
    if mode == "vllm":
        if args.device != "cpu":
            sys.exit("the vLLM comparison runs on the CPU build of vLLM: --device cpu")
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")  # its INFO lines would bury the table
        try:
            import vllm  # noqa: F401
        except ImportError:
            sys.exit("vLLM is not importable here: run with .venv-vllm/bin/python bench/gpu_bench.py")
        bench_vllm_cpu(args)
    else:
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
        bench_throughput(args)


if __name__ == "__main__":  # vLLM's CPU engine spawns processes that re-import this module
    main()
