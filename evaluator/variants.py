"""Option-order variants (Mobile-MMLU paper §6.3).

`original`; `fixed-A`..`fixed-D` (correct option moved to that letter, the
others in a seeded shuffle); `R1`..`R4` (seeded full shuffles).

Seeds come from sha256 over (run seed, variant, question_id), never Python's
hash(), which is salted per process: a resumed run on another machine must draw
the same permutations.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from .questions import LETTERS, Question

FIXED = tuple(f"fixed-{L}" for L in "ABCD")
RANDOM = tuple(f"R{i}" for i in range(1, 5))
VARIANTS = ("original", *FIXED, *RANDOM)
ALL_VARIANTS = VARIANTS  # alias for callers


class VariantError(ValueError):
    code = "UNKNOWN_VARIANT"


def parse_variants(spec: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """'original,fixed-A,R1' / 'all' / 'fixed' / 'random' -> validated tuple (order kept, deduplicated)."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if not name:
            continue
        group = {"all": VARIANTS, "fixed": FIXED, "random": RANDOM}.get(name.lower())
        for v in group or (name,):
            if v not in VARIANTS:
                raise VariantError(f"unknown variant {v!r}; known: {', '.join(VARIANTS)} (or all/fixed/random)")
            if v not in out:
                out.append(v)
    if not out:
        raise VariantError("no variants given")
    return tuple(out)


def derive_seed(run_seed: int, variant: str, question_id: str) -> int:
    digest = hashlib.sha256(f"{run_seed}\x1f{variant}\x1f{question_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class VariantView:
    """A question as shown under one variant. perm[i] = original index of the option shown at letter i."""

    question_id: str
    variant: str
    seed: int | None
    perm: tuple[int, ...]
    options: tuple[str, ...]
    answer: frozenset[str] | None  # letters in the shown order

    @property
    def letters(self) -> str:
        return LETTERS[: len(self.options)]

    def original_letter(self, shown_letter: str) -> str:
        return LETTERS[self.perm[LETTERS.index(shown_letter)]]


def variant_applies(question: Question, variant: str) -> bool:
    """fixed-D needs at least 4 options; everything else always applies."""
    if variant in FIXED:
        return "ABCD".index(variant[-1]) < len(question.options)
    return True


def make_view(question: Question, variant: str, run_seed: int) -> VariantView:
    n = len(question.options)
    if variant == "original":
        perm, seed = tuple(range(n)), None
    elif variant in RANDOM:
        seed = derive_seed(run_seed, variant, question.question_id)
        order = list(range(n))
        random.Random(seed).shuffle(order)
        perm = tuple(order)
    elif variant in FIXED:
        if not question.answer:
            raise VariantError(f"question {question.question_id!r}: variant {variant} needs the answer")
        target = "ABCD".index(variant[-1])
        if target >= n:
            raise VariantError(f"question {question.question_id!r} has {n} options; {variant} does not apply")
        seed = derive_seed(run_seed, variant, question.question_id)
        first_correct = min(LETTERS.index(L) for L in question.answer)  # multi-correct: move the first one
        others = [i for i in range(n) if i != first_correct]
        random.Random(seed).shuffle(others)
        others.insert(target, first_correct)
        perm = tuple(others)
    else:
        raise VariantError(f"unknown variant {variant!r}")
    options = tuple(question.options[i] for i in perm)
    answer = None
    if question.answer is not None:
        inverse = {orig: pos for pos, orig in enumerate(perm)}
        answer = frozenset(LETTERS[inverse[LETTERS.index(L)]] for L in question.answer)
    return VariantView(question.question_id, variant, seed, perm, options, answer)
