"""TS-Guessing memorization probe (Deng et al., 2024): mask one option and ask the model to write it.

A model that reproduces a masked option word for word far more often on the public validation
split than on the sealed test split has probably seen the validation questions.

The predicting side never knows the answer (the sealed split has none there), so the masked
option is drawn by a seeded hash over *all* options; the trusted side later keeps only the
items whose masked option was a wrong one, as TS-Guessing prescribes. That costs 1/(1-1/k)
generations per kept item (4/3 with four options). Each item is one greedy generation long enough
to write its batch's longest masked option word for word (`reply_budget`, at most MAX_NEW_TOKENS):
a Mobile-MMLU option averages ~400 characters, ~90 tokens, so a short fixed budget could never match.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Callable, Sequence

from .questions import LETTERS, Question
from .variants import derive_seed

PROBE_VERSION = "ts-guessing-v1"
MAX_NEW_TOKENS = 384  # a cap, sizing the context: the longest published options run to ~1,500 characters
REPLY_MARGIN = 8      # tokens beyond the option's own: a leading space, quotes, an end-of-line
INSTRUCTION = ("Below is a multiple-choice question with one option replaced by [MASK]. "
               "Write the exact text of the masked option {letter}. It must differ from the other options. "
               "Reply with that option's text only.")


def masked_index(question: Question, seed: int) -> int:
    """The option to mask: a pure function of (seed, question id), independent of the answer."""
    return derive_seed(seed, PROBE_VERSION, question.question_id) % len(question.options)


def render(question: Question, masked: int) -> str:
    letter = LETTERS[masked]
    lines = [INSTRUCTION.format(letter=letter), "", question.question.strip()]
    for i, option in enumerate(question.options):
        lines.append(f"{LETTERS[i]}. {'[MASK]' if i == masked else option}")
    lines += ["", f"Option {letter}:"]
    return "\n".join(lines)


_SPACE = re.compile(r"\s+")
_EDGE = re.compile(r"^[\s\"'`.:;,!?()\[\]-]+|[\s\"'`.:;,!?()\[\]-]+$")


def normalize(text: str) -> str:
    """Case-, width- and whitespace-insensitive form; a reply's first line only, edge punctuation dropped."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    first = unicodedata.normalize("NFKC", first).casefold()
    return _SPACE.sub(" ", _EDGE.sub("", first)).strip()


def exact_match(reply: str, option: str) -> bool:
    want = normalize(option)
    return bool(want) and normalize(reply) == want


def reply_budget(backend: Any, options: Sequence[str]) -> int:
    """New tokens for a batch: its longest masked option as this backend tokenizes it, plus a margin, capped."""
    return min(MAX_NEW_TOKENS, max(backend.count_tokens(o) for o in options) + REPLY_MARGIN)


def run_probe(backend: Any, questions: Sequence[Question], *, seed: int, batch_size: int = 64,
              use_chat_template: bool = False, progress: Callable[[int, int], None] | None = None
              ) -> list[dict[str, Any]]:
    """Rows {question_id, masked (letter), exact} — no generated text is kept (it may quote sealed options)."""
    rows: list[dict[str, Any]] = []
    for start in range(0, len(questions), batch_size):
        batch = questions[start:start + batch_size]
        masks = [masked_index(q, seed) for q in batch]
        budget = reply_budget(backend, [q.options[m] for q, m in zip(batch, masks)])
        replies = backend.generate([render(q, m) for q, m in zip(batch, masks)], max_new_tokens=budget,
                                   use_chat_template=use_chat_template)
        rows += [{"question_id": q.question_id, "masked": LETTERS[m], "exact": exact_match(reply, q.options[m])}
                 for q, m, reply in zip(batch, masks, replies)]
        if progress:
            progress(len(rows), len(questions))
    return rows


def probe_counts(rows: Sequence[dict[str, Any]], answers: dict[str, frozenset[str]]) -> dict[str, int]:
    """Trusted side: keep items whose masked option is wrong; count exact matches among them."""
    kept = [r for r in rows if r["question_id"] in answers and r["masked"] not in answers[r["question_id"]]]
    return {"n": len(kept), "exact": sum(1 for r in kept if r["exact"]), "generated": len(rows)}
