"""Tiny random models that llama.cpp's converter can convert, for tests and demos (no downloads).

The converter recognises a BPE tokenizer.json only by hashing how it splits a fixed text, so the demo
tokenizer (a byte-level BPE trained here, evaluator/demo_models.py) is refused ("BPE pre-tokenizer was not
recognized"). A SentencePiece model it reads as it is, as the Llama and Gemma families ship one
(tokenizer.model): build_spm_tokenizer trains a small one, BPE with byte fallback and no normalisation, as
Llama's; build_spm_model puts it beside a random model of one of FAMILIES. Needs sentencepiece and protobuf
(requirements-llamacpp.txt).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterable


# family -> (transformers config class, model class, tokenizer class written to tokenizer_config.json)
FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM", "LlamaTokenizer"),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", "GemmaTokenizer"),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", "LlamaTokenizer"),
}
# family -> its own config fields: Phi-3 names its rope's original context (the converter reads it) and has no
# sliding window here (Phi-3-mini's 2047 would make llama.cpp's cache a sliding one).
CONFIG_EXTRA: dict[str, dict[str, Any]] = {"phi3": {"original_max_position_embeddings": 4096, "sliding_window": None}}
SPECIALS = {"unk": "<unk>", "bos": "<s>", "eos": "</s>"}
# A plain chat template (one user turn, then the assistant's): the converter copies it into the GGUF file. No BOS
# text in it: after a special token written as text llama.cpp's SentencePiece tokenizer adds the space prefix
# and tokenizers 0.23 does not, so their ids differ (the backend's tokenizer check reports it at position 1).
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def build_spm_tokenizer(texts: Iterable[str], out_dir: str | Path, *, vocab_size: int = 1000,
                        exact_size: bool = True) -> Path:
    """Train a SentencePiece BPE model (tokenizer.model) on `texts`: byte fallback, identity normalisation and
    spaces kept as they are (llama.cpp's tokenizer applies no normaliser), digits split; every character of the
    texts is a piece, so each letter has a single token. Ids 0-2 are <unk>, <s>, </s>; ids 3-258 the 256 byte
    tokens. exact_size=False: vocab_size is a ceiling, fewer pieces where the texts offer fewer merges (else an
    error)."""
    import sentencepiece as spm

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    corpus = out / "corpus.txt"
    corpus.write_text("\n".join(t.replace("\n", " ") for t in texts) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(out / "tokenizer"), model_type="bpe", vocab_size=vocab_size,
        byte_fallback=True, normalization_rule_name="identity", remove_extra_whitespaces=False,
        add_dummy_prefix=True, split_digits=True, character_coverage=1.0, allow_whitespace_only_pieces=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, hard_vocab_limit=exact_size,
        max_sentence_length=1 << 16, num_threads=1, minloglevel=2,
    )
    corpus.unlink()
    (out / "tokenizer.vocab").unlink(missing_ok=True)
    return out / "tokenizer.model"


def build_spm_hf_tokenizer(spm_file: str | Path, out_dir: str | Path, *, family: str = "llama",
                           model_max_length: int = 4096) -> Any:
    """The Hugging Face tokenizer of `family` made from the SentencePiece model, saved in `out_dir` (tokenizer.json
    converted from it, and tokenizer.model itself, which the converter reads)."""
    from transformers import AutoTokenizer

    spm_file, out = Path(spm_file), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / "tokenizer.model"
    if spm_file.resolve() != target.resolve():
        shutil.copy(spm_file, target)
    config = {"tokenizer_class": FAMILIES[family][2], "bos_token": SPECIALS["bos"], "eos_token": SPECIALS["eos"],
              "unk_token": SPECIALS["unk"], "pad_token": None, "add_bos_token": True, "add_eos_token": False,
              "model_max_length": model_max_length, "chat_template": CHAT_TEMPLATE}
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    tok = AutoTokenizer.from_pretrained(str(out))
    tok.save_pretrained(str(out))  # tokenizer.json; a fast tokenizer does not write tokenizer.model
    return tok


def build_spm_model(out_dir: str | Path, spm_file: str | Path, *, family: str = "llama", seed: int = 0,
                    hidden: int = 256, layers: int = 2, heads: int = 4, kv_heads: int = 2,
                    init_std: float = 0.08, max_positions: int = 4096) -> Path:
    """A random `family` model with the SentencePiece tokenizer: hidden 256 so every weight row holds whole
    256-value blocks (llama.cpp's K-quants need them; smaller rows fall back to other types). init_std above
    the usual 0.02 gives the letters distinct probabilities, so quantization can visibly move them."""
    import torch
    import transformers

    config_cls, model_cls, _ = FAMILIES[family]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = build_spm_hf_tokenizer(spm_file, out, family=family, model_max_length=max_positions)
    config = getattr(transformers, config_cls)(
        vocab_size=len(tok), hidden_size=hidden, intermediate_size=hidden * 2, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=hidden // heads,
        max_position_embeddings=max_positions, initializer_range=init_std, bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id, pad_token_id=None, tie_word_embeddings=family == "gemma",
        **CONFIG_EXTRA.get(family, {}),
    )
    torch.manual_seed(seed)
    model = getattr(transformers, model_cls)(config).eval()
    model.generation_config.do_sample = False
    model.save_pretrained(out, safe_serialization=True)
    (out / "demo_model.json").write_text(json.dumps({"kind": f"tiny-spm-{family}", "seed": seed,
                                                     "params": sum(p.numel() for p in model.parameters())}))
    return out
