"""The demo's models of other families: tiny untrained models, one for each attention layout the engine treats
differently, so that the demo's board ranks several models and the demo runs each family's path (no downloads).

- qwen2: full attention with grouped KV heads (GQA), as Qwen2.5 and SmolLM.
- gemma3: a sliding window on some layers, full attention on the others, as Gemma 3 (the phones' Gemma 3 270M).
- lfm2: short convolutions beside attention (a hybrid), as Liquid's LFM2.
- mamba: state-space layers and no attention at all.

Each has the demo tokenizer (evaluator/demo_models.py) and random weights from a fixed seed: it scores near chance, a
little above or below by its seed, like the demo's tiny-random. Built in seconds: nothing is trained.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .demo_models import _load_tokenizer, _save

WINDOW = 64  # tokens: the sliding layers of the gemma3 model see less than one demo prompt (about 100 tokens)
FAMILIES = ("qwen2", "gemma3", "lfm2", "mamba")


def _config(family: str, tokenizer: Any, *, hidden: int, layers: int, max_positions: int):
    import transformers as T

    special = dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                   eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    attention = dict(special, hidden_size=hidden, intermediate_size=hidden * 2, num_hidden_layers=layers,
                     num_attention_heads=4, num_key_value_heads=2)
    alternate = ["sliding_attention", "full_attention"] * (layers // 2)
    if family == "qwen2":
        return T.Qwen2Config(**attention, max_position_embeddings=max_positions, tie_word_embeddings=False)
    if family == "gemma3":
        return T.Gemma3TextConfig(**attention, head_dim=hidden // 4, max_position_embeddings=max_positions,
                                  sliding_window=WINDOW, layer_types=alternate)
    if family == "lfm2":
        return T.Lfm2Config(**attention, layer_types=["conv", "full_attention"] * (layers // 2))
    if family == "mamba":
        return T.MambaConfig(**special, hidden_size=hidden, state_size=8, num_hidden_layers=layers)
    raise ValueError(f"no demo model of family {family!r}; one of {', '.join(FAMILIES)}")


def build_family_model(out_dir: str | Path, tokenizer_dir: str | Path, family: str, *, seed: int = 0,
                       hidden: int = 64, layers: int = 2, max_positions: int = 2048) -> Path:
    """A tiny random `family` model with the demo tokenizer, saved as a transformers folder (its config names its
    architecture, which the board shows)."""
    import torch
    from transformers import AutoModelForCausalLM

    tok = _load_tokenizer(tokenizer_dir)
    config = _config(family, tok, hidden=hidden, layers=layers, max_positions=max_positions)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config).eval()
    return _save(model, tok, out_dir, {"kind": f"tiny-{family}", "family": family, "seed": seed,
                                       "params": sum(p.numel() for p in model.parameters())})
