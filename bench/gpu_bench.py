"""Letter-scoring throughput at 7B scale on a GPU, and vLLM vs transformers on the CPU, in one run.

    python bench/gpu_bench.py [--device cuda|cpu] [--quick] [--n N] [--batch-sizes 8,32,64] [--peak-tflops 989]

CUDA (the default when torch sees a GPU; needs a CUDA build of torch, e.g. requirements-gpu.txt):
builds a random-weight Llama of 7B shape (hidden 4096, 32 layers, 32 heads, 8 KV heads,
intermediate 14336, bf16) directly on the GPU from a config, with a locally trained tokenizer
whose vocabulary is padded up to --vocab (no downloads, nothing saved), and scores
Mobile-MMLU-style prompts (generate_demo_questions, template mobile-mmlu-reference, 0-shot and
5-shot) with the transformers backend, per batch size, three ways:

  reuse      the production path: batches sorted by token ids, shared prefix KV reused (prefix_reuse=True)
  sorted     the same batches without prefix reuse (prefix_reuse=False)
  shuffled   the baseline: each chunk's prompts shuffled into batches of the same size, no prefix reuse

Prompts go to the backend in chunks of --chunk (256: the engine's chunk for the transformers
backend; batches never cross a chunk). Prints prompt tokens/s, achieved TFLOP/s and its share
of --peak-tflops (H100 SXM bf16 dense: 989), the ratios, and the time extrapolated to full
Mobile-MMLU (16,186 questions) per answer order and for 9 orders, against the targets
(<= 3 min per order, <= 25 min for 9). FLOPs = 2 x (parameters outside the embedding and
lm_head) x tokens computed + 2 x lm_head parameters x prompts (only the last position's logits
are computed); padding and attention score FLOPs are not counted.
`--device cpu --mode throughput` runs this same code on a tiny model (a smoke test of the path).

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

from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import DEMO_TOPICS, build_demo_tokenizer, build_tiny_random, generate_demo_questions  # noqa: E402
from evaluator.prompts import render_questions  # noqa: E402
from evaluator.scoring import decide_letters  # noqa: E402

MOBILE_MMLU_QUESTIONS = 16_186
TARGET_MIN_PER_ORDER, TARGET_MIN_9_ORDERS = 3.0, 25.0
TEMPLATE = "mobile-mmlu-reference"
SHAPES = {  # Llama configs; "7b" is the Llama-3-8B / Mistral-7B body
    "7b": dict(hidden=4096, layers=32, heads=32, kv_heads=8, intermediate=14336),
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


def extrapolate(questions_per_s: float, token_scale: float = 1.0) -> tuple[float, float]:
    """Minutes for full Mobile-MMLU, one answer order and 9, at this rate (prompts token_scale x longer)."""
    per_order = MOBILE_MMLU_QUESTIONS * token_scale / questions_per_s / 60
    return per_order, 9 * per_order


def build_llama(tokenizer, shape: str, *, vocab: int, device: str, dtype):
    """A random-weight Llama built in place on `device` (no float32 CPU copy of a 7B model), its
    vocabulary padded to a multiple of 64 at least `vocab` (the tokenizer's ids are a prefix of it)."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    s = SHAPES[shape]
    config = LlamaConfig(
        vocab_size=-(-max(vocab, len(tokenizer)) // 64) * 64, hidden_size=s["hidden"],
        intermediate_size=s["intermediate"], num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
        num_key_value_heads=s["kv_heads"], max_position_embeddings=4096, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()


# -- CUDA: throughput at 7B scale -------------------------------------------------------------------------
def bench_throughput(args) -> None:
    import torch

    shape = args.shape or ("7b" if args.device == "cuda" else "tiny")
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    n = args.n or (500 if args.quick else 2000)
    questions = generate_demo_questions(n, seed=0, prefix="bench")
    dev = generate_demo_questions(5 * len(DEMO_TOPICS), seed=1, prefix="dev")
    warm = generate_demo_questions(64, seed=2, prefix="warm")
    prompts = {k: render_prompts(questions, dev, k) for k in (0, 5)}
    with tempfile.TemporaryDirectory() as tmp:
        from transformers import AutoTokenizer
        tok_dir = build_demo_tokenizer(prompts[0] + prompts[5][:200], Path(tmp) / "tok", vocab_size=8000)
        tokenizer = AutoTokenizer.from_pretrained(str(tok_dir))
    t0 = time.perf_counter()
    model = build_llama(tokenizer, shape, vocab=args.vocab, device=args.device, dtype=dtype)
    if args.device == "cuda":
        torch.cuda.synchronize()
    build_s = time.perf_counter() - t0
    per_token, head = flop_counts(model)
    n_params = sum(p.numel() for p in model.parameters())

    def backend(batch_size: int, reuse: bool):
        return create_backend("transformers", "random-llama", device=args.device, batch_size=batch_size,
                              model_obj=model, tokenizer_obj=tokenizer, prefix_reuse=reuse)

    where = torch.cuda.get_device_name() if args.device == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    print(f"model: random Llama '{shape}', {n_params / 1e9:.2f}B params ({per_token / 1e9:.2f}B per token), "
          f"vocab {model.config.vocab_size} (tokenizer {len(tokenizer)}), {str(dtype)[6:]}, {where}; "
          f"built in {build_s:.1f}s")
    mean_tok = {k: sum(len(tokenizer.encode(p)) for p in v) / len(v) for k, v in prompts.items()}
    print(f"prompts: {n} Mobile-MMLU-style questions, template {TEMPLATE}, chunk {args.chunk}; mean tokens "
          f"0-shot {mean_tok[0]:.0f}, 5-shot {mean_tok[5]:.0f}; peak {args.peak_tflops:g} TFLOP/s\n")

    w = backend(max(args.batch_sizes), True)  # warm-up (kernels, allocator), its own prefix cache
    for k in (0, 5):
        score(w, render_prompts(warm, dev, k), args.chunk)

    rows = []  # (shots, batch, method, seconds, prompt tokens, computed tokens)
    for k in (0, 5):
        for bs in args.batch_sizes:
            for method in ("reuse", "sorted", "shuffled"):
                b = backend(bs, method == "reuse")  # fresh: empty prefix cache and stats
                if method == "shuffled":
                    secs = score_shuffled(b, prompts[k], args.chunk)
                else:
                    secs, _ = score(b, prompts[k], args.chunk)
                rows.append((k, bs, method, secs, b.stats["prompt_tokens"], b.stats["computed_tokens"]))
                print(f"  {k}-shot batch {bs:3d} {method:8s} {secs:7.2f}s", file=sys.stderr)

    print(f"{'shots':>5s} {'batch':>5s} {'method':>8s} {'s':>7s} {'q/s':>7s} {'prompt tok/s':>12s} "
          f"{'computed tok/s':>14s} {'TFLOP/s':>8s} {'of peak':>7s} {'min/order':>9s} {'min/9':>6s}")
    best: dict[int, tuple] = {}
    for k, bs, method, secs, ptok, ctok in rows:
        tflops = (2 * per_token * ctok + 2 * head * n) / secs / 1e12
        order, nine = extrapolate(n / secs, args.token_scale)
        print(f"{k:5d} {bs:5d} {method:>8s} {secs:7.2f} {n / secs:7.1f} {ptok / secs:12.0f} {ctok / secs:14.0f} "
              f"{tflops:8.3g} {tflops / args.peak_tflops:7.1%} {order:9.2f} {nine:6.1f}")
        if k not in best or secs < best[k][1]:
            best[k] = (f"batch {bs} {method}", secs, order, nine)

    secs = {(k, bs, m): s for k, bs, m, s, _, _ in rows}
    print("\nratios (wall):")
    for k in (0, 5):
        for bs in args.batch_sizes:
            sh, so, re = secs[k, bs, "shuffled"], secs[k, bs, "sorted"], secs[k, bs, "reuse"]
            print(f"  {k}-shot batch {bs:3d}: shuffled/sorted = {sh / so:.2f}x, sorted/reuse = {so / re:.2f}x "
                  f"(prefix reuse), shuffled/reuse = {sh / re:.2f}x")
    print(f"\nfull Mobile-MMLU ({MOBILE_MMLU_QUESTIONS:,} questions, prompt length x{args.token_scale:g}), "
          f"best configuration; targets <= {TARGET_MIN_PER_ORDER:g} min per order, "
          f"<= {TARGET_MIN_9_ORDERS:g} min for 9:")
    for k, (name, _, order, nine) in sorted(best.items()):
        ok = lambda v, t: "met" if v <= t else "MISSED"  # noqa: E731
        print(f"  {k}-shot ({name}): {order:.2f} min per order ({ok(order, TARGET_MIN_PER_ORDER)}), "
              f"{nine:.1f} min for 9 ({ok(nine, TARGET_MIN_9_ORDERS)})")
    if args.device == "cuda":
        print(f"peak GPU memory allocated: {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")


# -- CPU: real vLLM vs transformers on the tiny model ---------------------------------------------------
def bench_vllm_cpu(args) -> None:
    import torch

    torch.set_num_threads(args.threads)
    n = args.n or (150 if args.quick else 500)
    questions = generate_demo_questions(n, seed=0, prefix="bench")
    dev = generate_demo_questions(5 * len(DEMO_TOPICS), seed=1, prefix="dev")
    warm = generate_demo_questions(16, seed=2, prefix="warm")
    prompts = {k: render_prompts(questions, dev, k) for k in (0, 5)}
    warm_prompts = [p for k in (0, 5) for p in render_prompts(warm, dev, k)]
    wall: dict[tuple[str, int], float] = {}
    lps: dict[tuple[str, int], list] = {}

    def timed(name: str, backend, chunk: int) -> None:
        for k in (0, 5):
            wall[name, k], lps[name, k] = score(backend, prompts[k], chunk)
            print(f"  {name}: {k}-shot {wall[name, k]:.2f}s", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        tok_dir = build_demo_tokenizer(prompts[0] + prompts[5][:200], Path(tmp) / "tok", vocab_size=4000)
        model_dir = build_tiny_random(Path(tmp) / "model", tok_dir, seed=0, hidden=128, heads=2)
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
    print(f"{n} questions, template {TEMPLATE}; transformers timed before and after vLLM\n")
    print(f"{'shots':>5s} {'mean tok':>8s} {'hf before s':>11s} {'hf after s':>10s} {'vLLM s':>7s} {'vLLM/hf':>8s} "
          f"{'max |dp|':>9s} {'same letter':>11s}")
    for k in (0, 5):
        mean_tok = sum(hf.count_tokens(p) for p in prompts[k]) / n
        worst, same = 0.0, 0
        for a, b in zip(lps["transformers", k], lps["vllm", k]):
            da, db = decide_letters(a, "ABCD"), decide_letters(b, "ABCD")
            worst = max(worst, *(abs(da.letter_probs[L] - db.letter_probs[L]) for L in "ABCD"))
            same += da.predicted == db.predicted
        t1, t2, v = wall["transformers", k], wall["transformers again", k], wall["vllm", k]
        t = (t1 + t2) / 2
        print(f"{k:5d} {mean_tok:8.0f} {t1:11.2f} {t2:10.2f} {v:7.2f} {v / t:8.2f} {worst:9.1e} {same / n:11.1%}")
    print("(hf: the transformers backend; vLLM/hf against the mean of its two runs; letter probabilities "
          "renormalised over A-D, max |dp| over every question and letter)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda when torch sees a GPU")
    ap.add_argument("--mode", choices=("throughput", "vllm"),
                    help="default: throughput on cuda, vllm (the vLLM-vs-transformers comparison) on cpu")
    ap.add_argument("--quick", action="store_true", help="fewer questions (500 on cuda, 150 on cpu)")
    ap.add_argument("--n", type=int, help="questions (default 2000 on cuda, 500 on cpu)")
    ap.add_argument("--batch-sizes", default="8,32,64", help="throughput: transformers batch sizes")
    ap.add_argument("--chunk", type=int, default=256,
                    help="transformers: prompts per letter_logprobs call (the engine's chunk for transformers)")
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="throughput: dense peak (H100 SXM bf16)")
    ap.add_argument("--vocab", type=int, default=32000, help="throughput: vocabulary padded up to this")
    ap.add_argument("--shape", choices=sorted(SHAPES), help="throughput: model shape (default 7b on cuda)")
    ap.add_argument("--token-scale", type=float, default=1.0,
                    help="throughput: real Mobile-MMLU prompt tokens / demo prompt tokens, for the extrapolation")
    ap.add_argument("--vllm-chunk", type=int, default=2048, help="vllm: prompts per call (the engine's chunk for vLLM)")
    ap.add_argument("--cpu-batch", type=int, default=8, help="vllm: transformers batch size")
    ap.add_argument("--threads", type=int, default=1,
                    help="vllm: torch threads for transformers (vLLM's CPU worker binds one core on a 2-core machine)")
    args = ap.parse_args()
    args.batch_sizes = [int(x) for x in args.batch_sizes.split(",")]
    if args.device is None:
        import torch
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
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
        bench_throughput(args)


if __name__ == "__main__":  # vLLM's CPU engine spawns processes that re-import this module
    main()
