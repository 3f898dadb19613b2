"""A GGUF file with RANDOM weights in a real model's shape, made by the project's own pipeline, for timing llama.cpp
where the real file cannot go (a lent GPU machine takes 64 MiB; a 1B Q4_K_M file is ~800 MB, and nothing there can be
downloaded). Its speed is a real 1B file's; its letter probabilities mean nothing.

    python bench/real_shape_gguf.py --out DIR [--shape llama-3.2-1b|tiny] [--steps checkpoint,convert,quantize]

Steps (each skipped when its output is there, so a script can run them at different times):

  checkpoint  a SentencePiece tokenizer (evaluator/spm_models.py) trained on real-shaped prompts (bench/real_shapes.py)
              beside a random Llama of the shape: Llama 3.2 1B's (hidden 2048, 16 layers, 32 heads, 8 KV heads,
              intermediate 8192, vocabulary 128,256 with the tokenizer's pieces first and the rest padding, tied
              embeddings: 1.24B parameters) in bf16, built on a GPU when there is one
  convert     llama.cpp's converter to f32 (evaluator/gguf_convert.py's step 1, as the tests' fixtures; it needs no
              compiled llama.cpp, so it can run while llama.cpp compiles)
  quantize    f32 -> Q4_K_M with llama.cpp's quantizer (gguf_convert.py's step 2; needs llama-cpp-python)

It prints each file's path, size and the time each step took. `--shape tiny` (hidden 256, 2 layers) tests the steps on
a CPU in seconds.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Llama configs. llama-3.2-1b: meta-llama/Llama-3.2-1B's config.json (its rope scaling left out: it changes no cost).
SHAPES = {
    "llama-3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                         num_key_value_heads=8, head_dim=64, vocab_size=128_256, rope_theta=500_000.0,
                         rms_norm_eps=1e-5, tie_word_embeddings=True),
    "tiny": dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=64, vocab_size=4096, tie_word_embeddings=True),
}
TOKENIZER_PIECES = 2000  # real-shaped prompts then take ~440 tokens (~3.9 characters a token), about what Gemma 3's
                         # tokenizer gives them (456, issue 33): the bench's full-set projection is per token
MAX_POSITIONS = 8192


def files(out: Path, shape: str) -> dict[str, Path]:
    stem = f"random-{shape}"
    return {"checkpoint": out / f"{stem}-hf", "f32": out / f"{stem}-f32.gguf", "q4_k_m": out / f"{stem}-Q4_K_M.gguf"}


def build_checkpoint(folder: Path, shape: str, *, seed: int = 0) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from bench.real_shapes import real_shaped_questions
    from evaluator.prompts import get_template
    from evaluator.questions import LETTERS
    from evaluator.spm_models import build_spm_hf_tokenizer, build_spm_tokenizer

    texts = [get_template(t).render(q.question, q.options) for q in real_shaped_questions(600, seed=11, prefix="tok")
             for t in ("default", "mobile-mmlu-reference")]
    texts += [f"{L}. option\nAnswer: {L}\n" for L in LETTERS] * 20  # " A".." J" whole pieces, as the demo tokenizer's
    spm_file = build_spm_tokenizer(texts, folder / "spm", vocab_size=TOKENIZER_PIECES, exact_size=False)
    tok = build_spm_hf_tokenizer(spm_file, folder, family="llama", model_max_length=MAX_POSITIONS)
    s = dict(SHAPES[shape])
    s["vocab_size"] = max(s["vocab_size"], len(tok))  # the converter pads the vocabulary with [PAD] pieces
    config = LlamaConfig(**s, max_position_embeddings=MAX_POSITIONS, bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id, pad_token_id=None, initializer_range=0.02)
    torch.manual_seed(seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    model.generation_config.do_sample = False
    model.save_pretrained(folder, safe_serialization=True)
    what = "a real model's shape" if shape != "tiny" else "a test shape"
    print(f"checkpoint: random Llama '{shape}' ({what}, RANDOM weights), {model.num_parameters() / 1e9:.3g}B "
          f"parameters, vocabulary {config.vocab_size} ({len(tok)} tokenizer pieces), bf16, built on {device}")
    return folder


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="folder for the checkpoint and the GGUF files")
    p.add_argument("--shape", choices=sorted(SHAPES), default="llama-3.2-1b")
    p.add_argument("--steps", default="checkpoint,convert,quantize")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = files(out, args.shape)
    for step in args.steps.split(","):
        t0 = time.perf_counter()
        if step == "checkpoint":
            if not (paths["checkpoint"] / "config.json").is_file():
                build_checkpoint(paths["checkpoint"], args.shape)
            made = paths["checkpoint"]
        elif step == "convert":
            from evaluator.gguf_convert import QUANTS, _run_converter

            if not paths["f32"].is_file():
                _run_converter(paths["checkpoint"], paths["f32"], QUANTS["f32"][0])
            made = paths["f32"]
        elif step == "quantize":
            from evaluator.gguf_convert import QUANTS, _quantize

            if not paths["q4_k_m"].is_file():
                _quantize(paths["f32"], paths["q4_k_m"], QUANTS["q4_k_m"][1], None)
            made = paths["q4_k_m"]
        else:
            p.error(f"unknown step {step!r}")
        size = sum(f.stat().st_size for f in made.rglob("*")) if made.is_dir() else made.stat().st_size
        print(f"{step}: {made} ({size / 2**20:,.0f} MiB) in {time.perf_counter() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
