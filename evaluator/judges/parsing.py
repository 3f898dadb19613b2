"""From a judge's reply (and, where given, its log-probabilities) to a 1..10 score.

- parse_score: the integer in a reply such as "7", " 7.", "7/10", "Score: 7", "**7**",
  "7 out of 10". Anything else ("11", "seven", "", "7.5", a refusal, "7 or 8") is None:
  never guessed.
- Expected score: sum_k k * p_k / sum_k p_k over k = 1..10, where p_k is the probability
  of the judge's reply being the number k. "10" can be one token or "1" + "0"; see
  split_one_and_ten for how the two are told apart.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

SCORES = tuple(range(1, 11))
SCORE_STRINGS = {str(k): k for k in SCORES}
RAW_REPLY_MAX = 500  # characters of a reply kept for the record

_REPLY = re.compile(
    r"""^(?:(?:mobile\s+)?(?:relevance\s+)?score\s*(?:is)?\s*[:=]?\s*)?   # optional "Score:" lead
        (\d{1,2})                                                      # the number
        (?:\s*(?:/|out\s+of)\s*10)?                                    # optional "/10" or "out of 10"
        \s*\.?$""",
    re.IGNORECASE | re.VERBOSE,
)
_ZERO_START = re.compile(r"^0(?!\d)")  # a token continuing "1" into "10" (not "100", "105")


def parse_score(reply: str | None) -> int | None:
    """The score in a reply, or None when the reply is not a single integer in 1..10."""
    if reply is None:
        return None
    text = reply.strip().strip("*_`\"'").strip()
    match = _REPLY.match(text)
    if not match:
        return None
    value = int(match.group(1))
    return value if 1 <= value <= 10 else None


@dataclass
class Judgement:
    """One question's verdict. score is None exactly when method == "unparsable"."""

    score: float | None
    method: str  # "logprobs" (expected score), "parsed" (integer in the reply), "unparsable"
    raw: str = ""  # the reply text, truncated; "" when only probabilities were read
    mass: float | None = None  # probability that fell on the score tokens (logprobs only)
    probs: list[float] | None = field(default=None)  # p_1..p_10 renormalised (logprobs only)
    ten_split: str | None = None  # how "1" vs "10" was decided: "single-token", "continuation", "assumed-1"

    def to_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {"score": None if self.score is None else round(self.score, 6),
                               "method": self.method, "raw": self.raw[:RAW_REPLY_MAX]}
        if self.mass is not None:
            row["mass"] = round(self.mass, 6)
        if self.probs is not None:
            row["probs"] = [round(p, 6) for p in self.probs]
        if self.ten_split:
            row["ten_split"] = self.ten_split
        return row


def expected_from_probs(p: Mapping[int, float]) -> tuple[float, list[float], float] | None:
    """(expected score, renormalised p_1..p_10, mass) or None when no mass fell on a score."""
    mass = sum(max(0.0, p.get(k, 0.0)) for k in SCORES)
    if mass <= 0.0 or not math.isfinite(mass):
        return None
    probs = [max(0.0, p.get(k, 0.0)) / mass for k in SCORES]
    return sum(k * q for k, q in zip(SCORES, probs)), probs, mass


def split_one_and_ten(p_one: float, q_zero: float, q_digit: float) -> tuple[float, float]:
    """Split the probability of a first token "1" into (score 1, score 10).

    q_zero: probability that the token after "1" starts with "0" (the reply is "10");
    q_digit: probability that it starts with another digit ("11".."19": not a score, dropped).
    """
    q_zero = min(max(q_zero, 0.0), 1.0)
    q_end = min(max(1.0 - q_zero - q_digit, 0.0), 1.0)
    return p_one * q_end, p_one * q_zero


def is_zero_start(token_text: str) -> bool:
    return bool(_ZERO_START.match(token_text))


def is_digit_start(token_text: str) -> bool:
    return bool(token_text) and token_text[0].isdigit()


def judgement_from_openai(reply: str | None, steps: Sequence[Mapping[str, Any]] | None) -> Judgement:
    """A chat-completions reply plus its `logprobs.content` steps (OpenAI format) -> Judgement.

    The reply decides whether the judge gave a score at all: an unparsable reply is
    unparsable even if some digit had probability. With a parsable reply and log-probs,
    the score is the expected value over the first token's top log-probs. A first token
    "1" is split into 1 and 10 with the second step's top log-probs when the judge's own
    first token was "1" (exact up to top-k); otherwise it is taken as 1 (`assumed-1`).
    """
    raw = (reply or "")[:RAW_REPLY_MAX]
    value = parse_score(reply)
    if value is None:
        return Judgement(None, "unparsable", raw)
    if steps:
        first = steps[0]
        tops = first.get("top_logprobs") or [{"token": first.get("token", ""), "logprob": first.get("logprob")}]
        p: dict[int, float] = {}
        for entry in tops:
            key = SCORE_STRINGS.get(str(entry.get("token", "")).strip())
            lp = entry.get("logprob")
            if key is not None and lp is not None:
                p[key] = p.get(key, 0.0) + math.exp(float(lp))
        ten_split = None
        if p.get(1, 0.0) > 0.0:
            if str(first.get("token", "")).strip() == "1":
                if len(steps) > 1:
                    tops2 = steps[1].get("top_logprobs") or [steps[1]]
                    q_zero = sum(math.exp(float(e["logprob"])) for e in tops2
                                 if e.get("logprob") is not None and is_zero_start(str(e.get("token", ""))))
                    q_digit = sum(math.exp(float(e["logprob"])) for e in tops2
                                  if e.get("logprob") is not None and is_digit_start(str(e.get("token", "")))
                                  and not is_zero_start(str(e.get("token", ""))))
                else:
                    q_zero = q_digit = 0.0  # the reply ended after "1"
                one, ten = split_one_and_ten(p[1], q_zero, q_digit)
                p[1], p[10] = one, p.get(10, 0.0) + ten
                ten_split = "continuation"
            else:
                ten_split = "assumed-1"
        expected = expected_from_probs(p)
        if expected is not None:
            score, probs, mass = expected
            return Judgement(score, "logprobs", raw, mass=mass, probs=probs, ten_split=ten_split)
    return Judgement(float(value), "parsed", raw)
