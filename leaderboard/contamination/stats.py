"""The statistics of the contamination monitor (DESIGN §6), as plain functions on counts.

Proportions are fractions here; callers turn them into percentage points for display.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054
FLAG_Z = 3.0  # flag "possible contamination" when -z > 3
HOLM_ALPHA = 0.05


def normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@dataclass(frozen=True)
class Delta:
    delta: float  # test - validation (MMLU-CF's sign)
    se: float
    ci95_low: float
    ci95_high: float
    z: float
    p_lower: float  # one-sided P(Z <= z): small when validation sits well above test
    flagged: bool


def _se(p_v: float, n_v: int, p_t: float, n_t: int) -> float:
    return math.sqrt(p_v * (1 - p_v) / n_v + p_t * (1 - p_t) / n_t)


def delta_stats(correct_v: float, n_v: int, correct_t: float, n_t: int, delta0: float = 0.0) -> Delta:
    """Δ = p_t − p_v, SE_Δ = √(p_v(1−p_v)/n_v + p_t(1−p_t)/n_t), z = (Δ − δ₀)/SE_Δ, flag when −z > 3.

    When both proportions are 0 or 1 the SE is 0; the z then uses the Agresti–Caffo SE
    (one success and one failure added to each split) rather than dividing by zero.
    """
    if not n_v or not n_t:
        raise ValueError("Δ needs both a validation and a test result")
    return delta_from(correct_v / n_v, n_v, correct_t / n_t, n_t, delta0)


def delta_from(p_v: float, n_v: int, p_t: float, n_t: int, delta0: float = 0.0) -> Delta:
    """delta_stats on proportions (the published figures use the test accuracy as published)."""
    correct_v, correct_t = p_v * n_v, p_t * n_t
    delta = p_t - p_v
    se = _se(p_v, n_v, p_t, n_t)
    se_z = se or _se((correct_v + 1) / (n_v + 2), n_v + 2, (correct_t + 1) / (n_t + 2), n_t + 2)
    z = (delta - delta0) / se_z
    return Delta(delta=delta, se=se, ci95_low=delta - Z95 * se, ci95_high=delta + Z95 * se, z=z,
                 p_lower=normal_cdf(z), flagged=-z > FLAG_Z)


def holm(p_values: Sequence[float], alpha: float = HOLM_ALPHA) -> tuple[list[float], list[bool]]:
    """Holm–Bonferroni step-down: adjusted p-values and which hypotheses are rejected at `alpha`.

    adjusted p_(i) = max over j ≤ i of min(1, (m − j) · p_(j)) for the sorted p-values (j from 0).
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted, [a <= alpha for a in adjusted]


@dataclass(frozen=True)
class LadderDecision:
    n: int  # questions both runs answered
    mean_diff: float  # mean of (new − shown) per-question correctness
    sd: float  # sample standard deviation of the differences
    threshold: float  # s / √n
    moves: bool


def ladder(shown: dict[str, bool], candidate: dict[str, bool]) -> LadderDecision:
    """The Ladder rule (Blum & Hardt, 2015): the shown score moves to the candidate only when the paired
    mean gain over the shared questions exceeds s/√n."""
    shared = sorted(set(shown) & set(candidate))
    n = len(shared)
    if n < 2:
        return LadderDecision(n=n, mean_diff=0.0, sd=0.0, threshold=0.0, moves=False)
    diffs = [int(candidate[q]) - int(shown[q]) for q in shared]
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    threshold = sd / math.sqrt(n)
    return LadderDecision(n=n, mean_diff=mean, sd=sd, threshold=threshold, moves=mean > threshold)


def two_proportion_z(x1: int, n1: int, x2: int, n2: int) -> float | None:
    """Pooled z for p1 − p2 (the probe's validation-over-test excess); None when undefined."""
    if not n1 or not n2:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0
    return (x1 / n1 - x2 / n2) / se
