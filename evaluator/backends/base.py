"""The backend protocol and the tokenizer helpers every backend shares.

A backend turns prompt texts into next-token letter log-probabilities (one
forward pass per prompt) or into generated text. Everything else (prompts,
variants, renormalisation, scoring) lives outside the backends so that the
transformers and vLLM paths cannot drift apart.
"""
from __future__ import annotations

import math
from typing import Any, Protocol, Sequence, runtime_checkable

from ..decoding import GREEDY, DecodingRule
from ..questions import LETTERS


class BackendError(RuntimeError):
    code = "BACKEND_ERROR"


class BackendUnavailable(BackendError):
    """The backend's library is not installed; the message says what to pip install."""

    code = "BACKEND_UNAVAILABLE"


@runtime_checkable
class Backend(Protocol):
    name: str
    load_seconds: float | None

    def letter_logprobs(self, prompts: Sequence[str], *, use_chat_template: bool = False) -> list[dict[str, float]]:
        """Per prompt: letter -> log(sum of P(form) over the letter's token forms) at the next position."""

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False,
                 decoding: DecodingRule = GREEDY) -> list[str]:
        """Continuation text per prompt under `decoding` (evaluator/decoding.py), cut by its `finish`."""

    def count_tokens(self, prompt: str, *, use_chat_template: bool = False) -> int: ...

    def describe(self) -> dict[str, Any]: ...


def letter_token_forms(tokenizer: Any, letters: str = LETTERS) -> dict[str, list[int]]:
    """Token ids that spell each letter as one token: "A" and " A" (whichever are single tokens).

    Letters with no single-token form are left out.

    Besides encoding "A" and " A" alone, the letter is also encoded after "Answer:"
    and the new token kept when it is exactly one: SentencePiece tokenizers prefix a
    space marker to a bare string, so the in-context form ("A" glued to ":") can be a
    different id than encode("A") gives.
    """
    def enc(s: str) -> list[int]:
        return list(tokenizer.encode(s, add_special_tokens=False))

    ctx = "Answer:"
    base = enc(ctx)
    forms: dict[str, list[int]] = {}
    owner: dict[int, str] = {}
    for L in letters:
        ids: list[int] = []
        for s in (L, " " + L):
            alone = enc(s)
            if len(alone) == 1:
                ids.append(alone[0])
            full = enc(ctx + s)
            if full[: len(base)] == base and len(full) == len(base) + 1:
                ids.append(full[-1])
        ids = [i for i in dict.fromkeys(ids) if tokenizer.decode([i]).strip() == L]
        if not ids:
            continue  # only questions with this many options fail (see scoring.decide_letters)
        for i in ids:
            if owner.setdefault(i, L) != L:
                raise BackendError(f"token id {i} decodes to both {owner[i]!r} and {L!r}")
        forms[L] = ids
    if "A" not in forms or "B" not in forms:
        raise BackendError("tokenizer has no single token for the letters A/B; use --mode generate")
    return forms


def encode_prompt(tokenizer: Any, prompt: str, *, use_chat_template: bool) -> list[int]:
    """Token ids for one prompt; with the chat template the prompt is one user turn."""
    if use_chat_template:
        if not getattr(tokenizer, "chat_template", None):
            raise BackendError("the tokenizer has no chat template; run without --chat-template")
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
        return list(tokenizer.encode(text, add_special_tokens=False))  # template already holds BOS etc.
    return list(tokenizer.encode(prompt, add_special_tokens=True))


def logsumexp(values: Sequence[float]) -> float:
    finite = [v for v in values if v != -math.inf]
    if not finite:
        return -math.inf
    top = max(finite)
    return top + math.log(sum(math.exp(v - top) for v in finite))


def describe_common(backend: Any, *, dtype: str, **own: Any) -> dict[str, Any]:
    """A backend's describe(): the fields every backend records (which backend, model and revision, where,
    in which dtype, its letter tokens, the decoding rule (the one its last generate used, else GREEDY), the load
    time), then the backend's `own`."""
    return {
        "backend": backend.name, "model": backend.model_id, "revision": backend.revision, "device": backend.device,
        "dtype": dtype, "letter_token_ids": backend.forms, "decoding": getattr(backend, "decoding", GREEDY).describe(),
        "load_seconds": backend.load_seconds, **own,
    }
