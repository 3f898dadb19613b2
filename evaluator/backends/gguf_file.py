"""What the llama.cpp backend reads off a GGUF file itself: that it is one, its own tokenizer, its file type's
name, the base model's tokenizer it must agree with, and the error a tokenization that differs from it raises. No llama-cpp-python import here."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from .base import BackendError

GGUF_MAGIC = b"GGUF"
# gguf-split's part names (stem-00001-of-00003.gguf): the hub check and the cost profile read them alike.
SPLIT_NAME = re.compile(r"^(?P<stem>.+)-(?P<no>\d{5})-of-(?P<count>\d{5})\.gguf$")
_HUB_URL = re.compile(r"^https?://(?:www\.)?huggingface\.co/([^/\s]+/[^/\s]+?)/?$")


class NotGGUF(BackendError):
    code = "NOT_GGUF"


class TokenizerMismatch(BackendError):
    """The file tokenizes a prompt differently from its base model's tokenizer."""

    code = "TOKENIZER_MISMATCH"

    def __init__(self, message: str, *, prompt_index: int, position: int) -> None:
        super().__init__(message)
        self.prompt_index, self.position = prompt_index, position


def check_gguf(path: str | Path) -> Path:
    """The path of a readable GGUF file, else NotGGUF naming what it is instead."""
    path = Path(path)
    if not path.is_file():
        raise NotGGUF(f"{path}: no such file; the llamacpp backend runs a local GGUF file "
                      "(python -m evaluator convert makes one from a checkpoint)")
    with path.open("rb") as fh:
        head = fh.read(4)
    if head != GGUF_MAGIC:
        raise NotGGUF(f"{path} is not a GGUF file (it starts with {head!r}, not b'GGUF'); convert a checkpoint "
                      "with python -m evaluator convert --model DIR --out FILE.gguf --quant f32")
    return path


def first_difference(a: Sequence[int], b: Sequence[int]) -> int | None:
    """The first position where two id lists differ (a length difference counts at the shorter end)."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


class FileTokenizer:
    """The GGUF's own tokenizer (llama-cpp-python's LlamaModel) behind the calls letter_token_forms makes."""

    def __init__(self, vocab: Any) -> None:
        self.vocab = vocab

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        return list(self.vocab.tokenize(text.encode("utf-8"), add_special_tokens, False))

    def decode(self, ids: Sequence[int]) -> str:
        return self.vocab.detokenize(list(ids), special=False).decode("utf-8", errors="replace")


def ftype_name(llama_cpp: Any, value: str | None) -> str | None:
    """general.file_type (llama.cpp's ftype number) -> "Q4_K_M", "F32", ..."""
    if value is None or not str(value).isdigit():
        return None
    for name in dir(llama_cpp):
        if name.startswith(("LLAMA_FTYPE_MOSTLY_", "LLAMA_FTYPE_ALL_")) and getattr(llama_cpp, name) == int(value):
            return name.removeprefix("LLAMA_FTYPE_MOSTLY_").removeprefix("LLAMA_FTYPE_ALL_")
    return f"ftype {value}"


def reference_tokenizer(metadata: dict, tokenizer: str | None, tokenizer_obj: Any) -> tuple[Any, str]:
    """The base model's Hugging Face tokenizer the file's must agree with (`tokenizer=`, else the file's
    general.base_model.0.repo_url), and where it came from."""
    if tokenizer_obj is not None:
        return tokenizer_obj, "given"
    source = tokenizer
    if source is None:
        match = _HUB_URL.match(metadata.get("general.base_model.0.repo_url", ""))
        if not match:
            return None, "not checked: no base model tokenizer given and none named in the file"
        source = match.group(1)
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(source, trust_remote_code=False), source
    except Exception as exc:  # noqa: BLE001 - an unreachable base model: say so, do not guess
        if tokenizer is not None:  # asked for explicitly: that is an error
            raise BackendError(f"cannot load the reference tokenizer {tokenizer!r}: {exc}") from exc
        return None, f"not checked: the base model's tokenizer {source} could not be loaded ({type(exc).__name__})"
