"""Turning model outputs into predictions: letter distributions and answer extraction."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping

from .questions import LETTERS


@dataclass(frozen=True)
class LetterDecision:
    letter_probs: dict[str, float]  # renormalised over the question's letters, sums to 1
    letter_mass: float              # probability the model put on any letter token at all
    predicted: str
    tie: bool                       # True when the top probability was shared (first letter wins)


def decide_letters(letter_logprobs: Mapping[str, float], letters: str) -> LetterDecision:
    """Renormalise per-letter log-probs (each already summed over the "A"/" A" forms).

    Works in log space so tiny masses (an untrained model) do not underflow to 0/0.
    Ties are broken by the first letter, deterministically, and reported.
    """
    missing = [L for L in letters if L not in letter_logprobs]
    if missing:
        raise ValueError(f"the tokenizer has no single token for letter(s) {','.join(missing)}; use --mode generate")
    lps = [float(letter_logprobs[L]) for L in letters]
    top = max(lps)
    if top == -math.inf:  # no letter token reachable at all: uniform, and say so via mass 0 and tie
        n = len(letters)
        return LetterDecision({L: 1.0 / n for L in letters}, 0.0, letters[0], n > 1)
    log_mass = top + math.log(sum(math.exp(lp - top) for lp in lps))
    probs = {L: math.exp(lp - log_mass) for L, lp in zip(letters, lps)}
    best = lps.index(top)
    tie = lps.count(top) > 1
    return LetterDecision(probs, min(1.0, math.exp(log_mass)), letters[best], tie)


def is_correct(predicted: str | None, answer: frozenset[str] | set[str] | None) -> bool | None:
    """Multi-correct questions count as correct when the prediction is in the answer set."""
    if answer is None:
        return None
    return predicted is not None and predicted in answer


# MMLU-Pro extraction cascade. MMLU-Pro ends with a random guess; we never guess:
# an unparsed answer is wrong and the unparsed rate is reported.
_ANSWER_IS = re.compile(r"answer is \(?([A-J])\)?")
_ANSWER_COLON = re.compile(r".*[aA]nswer:\s*([A-J])", re.DOTALL)
# A reply that opens with an option marker ("B. A dog", "(C) because", "**D**", "B") names that
# option; without this the last-letter rule reads "B. A dog" as the article "A". A letter followed
# by a space and more text on the line ("A dog is...") is a sentence, not a marker.
_LEADING = re.compile(r"\s*(?:\(|\*\*)?([A-J])(?:[.):]|\*\*|[ \t]*(?:\n|$))")
_STANDALONE = re.compile(r"\b([A-J])\b")


def extract_answer(text: str, letters: str = LETTERS) -> str | None:
    """Letter from generated text, or None. Only the question's own letters are accepted."""
    m = _ANSWER_IS.search(text)
    if m and m.group(1) in letters:
        return m.group(1)
    m = _ANSWER_COLON.match(text)
    if m and m.group(1) in letters:
        return m.group(1)
    m = _LEADING.match(text)
    if m and m.group(1) in letters:
        return m.group(1)
    found = [L for L in _STANDALONE.findall(text) if L in letters]
    return found[-1] if found else None
