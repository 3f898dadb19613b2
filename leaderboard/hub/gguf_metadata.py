"""What a GGUF header's metadata says, read and checked: the architecture llama.cpp runs, the tokenizer, the split
part it says it is, the attention facts of the KV cache (``KV_BOUNDS``, ``kv_facts``), the model it was made from,
the quantization its weights agree with, and its text made storable (``TEXT_MAX``). Used by
``gguf_checks.check_gguf``.

Pure module: no Django, no settings.
"""
from __future__ import annotations

import re

import gguf

from leaderboard.core.text import pg_text

from .errors import (
    GGUF_ARCH_UNSUPPORTED, GGUF_METADATA_OUT_OF_RANGE, GGUF_NO_TOKENIZER, GGUF_QUANT_MISMATCH, GGUF_SPLIT_INCOMPLETE,
    SubmissionRefused,
)
from .gguf_header import ArrayValue, GGUFHeader, shown_value
from .gguf_quant import QuantMismatch, quantization

TEXT_MAX = 200  # characters of a free-text fact kept (general.name, a license id, a tokenizer's name)
# The architectures the pinned llama.cpp runs: gguf-py's MODEL_ARCH_NAMES mirrors llama.cpp's llm_arch names (the
# gguf package is pinned to the gguf-py of the llama.cpp in requirements-llamacpp.txt). "clip" is left out: it is
# the vision encoder of a multimodal model (an mmproj file), which cannot answer questions on its own.
RUNNABLE_ARCHITECTURES = frozenset(gguf.MODEL_ARCH_NAMES.values()) - {"clip"}
HF_URL = re.compile(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/(?P<id>[\w.-]+/[\w.-]+)/?$")
_RECONVERT = "convert the model again with llama.cpp's convert_hf_to_gguf.py (and llama-quantize), which never write this"


KV_KEYS = {"block_count": "block_count", "embedding_length": "embedding_length",
           "head_count": "attention.head_count", "head_count_kv": "attention.head_count_kv",
           "key_length": "attention.key_length", "value_length": "attention.value_length",
           "sliding_window": "attention.sliding_window"}


def kv_facts(header: GGUFHeader, architecture: str) -> dict:
    """The header's whole-number facts of the attention's cache (KV_KEYS), those it has."""
    facts = {name: _int(header, f"{architecture}.{key}") for name, key in KV_KEYS.items()}
    return {name: value for name, value in facts.items() if value is not None}


UINT32_MAX = (1 << 32) - 1
# What llama.cpp's loader accepts of each fact intake keeps (llama_model::load_hparams reads each into a uint32_t and
# refuses a key of any other type, "key ... has wrong type"): (least, most). Zero heads is an attention-free model
# (Mamba, RWKV), a zero window no sliding window; more than LLAMA_MAX_LAYERS (512) blocks fails its per-layer arrays;
# the other bounds are far past any model (embeddings of 16,384, heads of 576 values, contexts of 10M tokens) and
# keep the KV cache's figures (devices/phone_figures) finite in a bigint.
KV_BOUNDS = {"context_length": (1, (1 << 31) - 1), "block_count": (1, 512), "embedding_length": (1, 1 << 20),
             "head_count": (0, 1 << 16), "head_count_kv": (0, 1 << 16), "key_length": (1, 1 << 16),
             "value_length": (1, 1 << 16), "sliding_window": (0, (1 << 31) - 1)}
_PER_LAYER = ("head_count", "head_count_kv")  # llama.cpp also reads these as an array of a UINT32 per layer


def _check_kv(header: GGUFHeader, architecture: str, where: str) -> None:
    """Each fact of KV_BOUNDS the header has is a UINT32 within its bounds (GGUF_METADATA_OUT_OF_RANGE)."""
    for name, (least, most) in KV_BOUNDS.items():
        key = f"{architecture}.{KV_KEYS.get(name, name)}"
        if key not in header.metadata:
            continue
        value, kind = header.metadata[key], header.types.get(key)
        if kind == "ARRAY" and name in _PER_LAYER and value.item_type == "UINT32":
            continue  # one per layer: not kept as a fact (kv_facts leaves it out)
        if kind == "UINT32" and least <= value <= most:
            continue
        raise SubmissionRefused(
            GGUF_METADATA_OUT_OF_RANGE, f"{where}: its {key} is {kind} {shown_value(value)}; llama.cpp reads it as "
                                        f"a UINT32 and a model's is {least:,} to {most:,}", _RECONVERT)


def _architecture(header: GGUFHeader, where: str) -> str:
    architecture = _text(header, "general.architecture")
    if architecture in RUNNABLE_ARCHITECTURES:
        return architecture
    found = f"the architecture {architecture!r}" if architecture else "no general.architecture"
    raise SubmissionRefused(
        GGUF_ARCH_UNSUPPORTED, f"{where} has {found}, which the pinned llama.cpp cannot run",
        f"llama.cpp runs {len(RUNNABLE_ARCHITECTURES)} architectures (the names of gguf-py's MODEL_ARCH_NAMES, "
        "e.g. llama, qwen2, gemma3, phi3): submit a file of one of them converted with convert_hf_to_gguf.py")


def _tokenizer(header: GGUFHeader, where: str) -> tuple[str, int]:
    model = _text(header, "tokenizer.ggml.model")
    tokens = header.metadata.get("tokenizer.ggml.tokens")
    count = tokens.count if isinstance(tokens, ArrayValue) else 0
    if model and count:
        return model, count
    missing = " and ".join(k for k, v in (("tokenizer.ggml.model", model), ("tokenizer.ggml.tokens", count))
                           if not v)
    raise SubmissionRefused(GGUF_NO_TOKENIZER, f"{where} has no tokenizer (no {missing} in its metadata)",
                            "the evaluator tokenizes with the file's own tokenizer: convert the model with "
                            "convert_hf_to_gguf.py from a folder that holds its tokenizer files")


def _check_part(header: GGUFHeader, index: int, names: list[str], where: str) -> None:
    """The part ``names[index]`` says it is that part of that many (split.no counts from 0); a file not split may
    leave both keys out."""
    no, count = _int(header, "split.no"), _int(header, "split.count")
    if (no, count) == (index, len(names)) or (len(names) == 1 and "split.count" not in header.metadata):
        return
    said = f"says it is part {no + 1 if no is not None else '?'} of {count}" if count is not None \
        else "has no split.count"
    raise SubmissionRefused(
        GGUF_SPLIT_INCOMPLETE, f"{names[index]} {said}, not part {index + 1} of {len(names)} as its name does "
                               f"({where})",
        "upload the parts exactly as llama.cpp's gguf-split wrote them, and submit that revision")


def _base_model(header: GGUFHeader, info) -> tuple[str | None, str | None]:
    """The hub id the file was made from: general.base_model.0.* in the file, else the card's base_model."""
    if (_int(header, "general.base_model.count") or 0) > 0:
        url = _text(header, "general.base_model.0.repo_url") or ""
        match = HF_URL.match(url)
        organization, name = _text(header, "general.base_model.0.organization"), _text(header,
                                                                                    "general.base_model.0.name")
        if match:
            return match["id"], "gguf metadata"
        if organization and name:
            return f"{organization}/{name}", "gguf metadata"
    card = {}
    if info.card_data is not None:
        card = info.card_data.to_dict() if hasattr(info.card_data, "to_dict") else dict(info.card_data)
    base = card.get("base_model")
    if isinstance(base, list):
        base = base[0] if base else None
    return (_clean(str(base)), "model card") if base else (None, None)


def _quantization(tensors, header: GGUFHeader, where: str) -> str:
    """The board's name of the file's type: general.file_type once its weights agree (GGUF_QUANT_MISMATCH)."""
    try:
        return quantization(tensors, _int(header, "general.file_type"))
    except QuantMismatch as bad:
        raise SubmissionRefused(
            GGUF_QUANT_MISMATCH, f"{where} says it is {bad.claimed} but its tensors are {bad.found}: {bad.detail}",
            f"quantize the model with llama.cpp's llama-quantize to the type you mean ({bad.claimed}), which writes "
            "general.file_type to match its tensors, and submit that revision") from None

def _text(header: GGUFHeader, key: str) -> str | None:
    value = header.metadata.get(key)
    return _clean(value) if isinstance(value, str) and value else None


def _clean(text: str | None) -> str | None:
    """Header text as it can be stored and shown: NUL (which PostgreSQL refuses) replaced, at most TEXT_MAX
    characters (a header may hold megabytes of text under any key)."""
    if not text:
        return text
    text = pg_text(text)
    return text if len(text) <= TEXT_MAX else text[:TEXT_MAX - 1] + "…"


def _int(header: GGUFHeader, key: str) -> int | None:
    value = header.metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
