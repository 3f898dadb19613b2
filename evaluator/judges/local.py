"""A judge model run locally through the evaluator's backends.

mode "logprobs" (default; transformers backend): one forward pass per question
reads the next-token distribution where the reply starts, and the score is the
expected value over the tokens that spell 1..10 (both the bare and the
space-prefixed forms, and the form the tokenizer produces in context).

"10" is often two tokens ("1" + "0"; the demo tokenizer and Qwen-style
tokenizers split digits). Where a "1" form has probability, a second forward
pass on prompt + that "1" token reads P(next token starts with "0") - the
reply is "10" - and P(next token starts with another digit) - "11".."19",
not a score, dropped; the rest stays score 1. The continuation is computed for
the most probable "1" form and applied to all "1" forms (a small approximation
when both forms carry mass), and only where "1" holds at least
CONTINUATION_MIN_SHARE of the score mass; below that, "1" counts as 1 (the
error is under 0.01 points). A first token "2".."9" is taken as a complete
score (a following digit, "20".., is not checked). A single-token "10" form
counts as 10 directly.

mode "generate": greedy reply of a few tokens, parsed like an HTTP reply (for
backends without full-vocabulary log-probs, e.g. vLLM; or serve the judge with
`vllm serve` and use the HTTP judge, which reads its log-probs).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from ..backends import BackendError, create_backend
from ..backends.base import encode_prompt
from .base import JudgeError
from .parsing import SCORES, Judgement, expected_from_probs, is_digit_start, is_zero_start, parse_score, split_one_and_ten
from .prompt import PROMPT_VERSION, prompt_hash, render

CONTINUATION_MIN_SHARE = 1e-3
CONTEXTS = ("Score:", "\n", ": ")


def score_token_forms(tokenizer: Any) -> dict[int, list[int]]:
    """score -> single token ids spelling it ("7", " 7", and the in-context form)."""
    def enc(s: str) -> list[int]:
        return list(tokenizer.encode(s, add_special_tokens=False))

    forms: dict[int, list[int]] = {}
    owner: dict[int, int] = {}
    for k in SCORES:
        s = str(k)
        ids: list[int] = []
        for text in (s, " " + s):
            alone = enc(text)
            if len(alone) == 1:
                ids.append(alone[0])
        for ctx in CONTEXTS:
            base, full = enc(ctx), enc(ctx + s)
            if full[: len(base)] == base and len(full) == len(base) + 1:
                ids.append(full[-1])
        ids = [i for i in dict.fromkeys(ids) if tokenizer.decode([i]).strip() == s]
        for i in ids:
            if owner.setdefault(i, k) != k:
                raise JudgeError(f"token id {i} decodes to both {owner[i]} and {k}")
        if ids:
            forms[k] = ids
    missing = [k for k in range(1, 10) if k not in forms]
    if missing:
        raise JudgeError(f"the tokenizer has no single token for the digits {missing}; use mode 'generate'")
    return forms


class LocalJudge:
    kind = "local"

    def __init__(self, model: str, *, revision: str | None = None, backend: str = "transformers",
                 device: str = "cpu", dtype: str | None = "auto", batch_size: int = 16, seed: int = 0,
                 mode: str = "logprobs", chat_template: str = "auto", max_new_tokens: int = 6,
                 backend_obj: Any = None) -> None:
        if mode not in ("logprobs", "generate"):
            raise JudgeError(f"unknown local judge mode {mode!r}; use logprobs or generate")
        self.model, self.revision, self.mode = model, revision or "", mode
        self.max_new_tokens = max_new_tokens
        # A backend, and more than the Backend protocol: its tokenizer, and (logprobs mode, checked below) the
        # transformers backend's full next-token log-probs.
        self.backend: Any
        try:
            self.backend = backend_obj or create_backend(backend, model, revision=revision, device=device,
                                                         dtype=dtype, batch_size=batch_size, seed=seed)
        except BackendError as exc:
            raise JudgeError(str(exc)) from exc
        self.tokenizer = self.backend.tokenizer
        has_template = bool(getattr(self.tokenizer, "chat_template", None))
        if chat_template not in ("auto", "on", "off"):
            raise JudgeError("chat_template is auto, on or off")
        if chat_template == "on" and not has_template:
            raise JudgeError("the judge's tokenizer has no chat template; use chat_template off")
        self.use_chat_template = has_template if chat_template == "auto" else chat_template == "on"
        self.rendering = "chat" if self.use_chat_template else "completion"
        if mode == "logprobs":
            if not hasattr(self.backend, "next_token_logprobs"):
                raise JudgeError(f"the {self.backend.name} backend gives no full next-token log-probs; use mode "
                                 "'generate', or serve the judge over HTTP (vllm serve) and use the http judge")
            self.forms = score_token_forms(self.tokenizer)
            self._continuations()

    def _continuations(self) -> None:
        """Token ids whose text starts with "0" (continuing "1" into "10") or with another digit."""
        vocab = len(self.tokenizer)
        texts = self.tokenizer.batch_decode([[i] for i in range(vocab)])
        self.zero_ids = [i for i, t in enumerate(texts) if is_zero_start(t)]
        self.other_digit_ids = [i for i, t in enumerate(texts) if is_digit_start(t) and not is_zero_start(t)]

    def _encode(self, question: str) -> list[int]:
        return encode_prompt(self.tokenizer, render(question, rendering=self.rendering),
                             use_chat_template=self.use_chat_template)

    def judge(self, questions: Sequence[str]) -> list[Judgement]:
        if not questions:
            return []
        if self.mode == "generate":
            prompts = [render(q, rendering=self.rendering) for q in questions]
            replies = self.backend.generate(prompts, max_new_tokens=self.max_new_tokens,
                                            use_chat_template=self.use_chat_template)
            out = []
            for reply in replies:
                value = parse_score(reply)
                out.append(Judgement(None, "unparsable", reply) if value is None
                           else Judgement(float(value), "parsed", reply))
            return out
        encoded = [self._encode(q) for q in questions]
        rows = self.backend.next_token_logprobs(encoded)
        p_all: list[dict[int, float]] = []
        need: list[tuple[int, int]] = []  # (question index, "1" token id to continue with)
        for qi, lp in enumerate(rows):
            p = {k: sum(math.exp(float(lp[i])) for i in ids) for k, ids in self.forms.items()}
            p_all.append(p)
            ones = self.forms.get(1, [])
            total = sum(p.values())
            if ones and total > 0 and p[1] / total >= CONTINUATION_MIN_SHARE:
                need.append((qi, max(ones, key=lambda i: float(lp[i]))))
        split_kind = ["first-token"] * len(questions)
        if need:
            cont = self.backend.next_token_logprobs([encoded[qi] + [tid] for qi, tid in need])
            for (qi, _), lp in zip(need, cont):
                probs = lp.exp()
                q_zero = float(probs[self.zero_ids].sum()) if self.zero_ids else 0.0
                q_digit = float(probs[self.other_digit_ids].sum()) if self.other_digit_ids else 0.0
                one, ten = split_one_and_ten(p_all[qi][1], q_zero, q_digit)
                p_all[qi][1], p_all[qi][10] = one, p_all[qi].get(10, 0.0) + ten
                split_kind[qi] = "continuation"
        out = []
        for p, kind in zip(p_all, split_kind):
            expected = expected_from_probs(p)
            if expected is None:  # no mass at all on a score token (underflow): not a score
                out.append(Judgement(None, "unparsable", "", mass=0.0))
                continue
            score, probs, mass = expected
            out.append(Judgement(score, "logprobs", "", mass=mass, probs=probs, ten_split=kind))
        return out

    def describe(self) -> dict[str, Any]:
        backend = self.backend.describe() if hasattr(self.backend, "describe") else {}
        backend.pop("letter_token_ids", None)
        return {
            "kind": self.kind, "endpoint_kind": f"local-{getattr(self.backend, 'name', 'backend')}",
            "model": self.model, "revision": self.revision, "mode": self.mode,
            "prompt_version": PROMPT_VERSION, "prompt_rendering": self.rendering,
            "prompt_hash": prompt_hash(self.rendering), "use_chat_template": self.use_chat_template,
            "score_token_ids": {str(k): v for k, v in getattr(self, "forms", {}).items()},
            "continuation_min_share": CONTINUATION_MIN_SHARE, "backend": backend,
        }
