"""The project's statistics, once: the normal distribution, intervals of proportions and means, tests of two
proportions and of paired scores, multiplicity corrections and rank correlation.

Pure Python (math only): the web process has no numpy or scipy, and every layer above imports this one.
tests/evaluator/test_statistics.py checks each function against scipy.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

Z95 = 1.959963984540054  # the normal quantile of 0.975: two-sided 95%
# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30; above 30 a Cornish-Fisher expansion.
_T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]


def normal_cdf(x: float) -> float:
    """Φ(x); erfc keeps the lower tail accurate far below 0."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with df degrees of freedom (to the table's 4 decimals up to df 30)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


# --- proportions -------------------------------------------------------------------------------------------

def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion p observed on n trials (n may be an effective, fractional n);
    well-behaved at 0%, 100% and small n, unlike the normal one. No trials: (0, 1)."""
    if n <= 0:
        return (0.0, 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_interval(correct: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of `correct` successes out of n."""
    return wilson(correct / n if n else 0.0, n, z)


def agresti_caffo_var(p: float, n: float) -> float:
    """Variance of a proportion with one success and one failure added: p̃(1−p̃)/(n+2), p̃ = (pn+1)/(n+2)."""
    adjusted = (p * n + 1) / (n + 2)
    return adjusted * (1 - adjusted) / (n + 2)


def newcombe(p1: float, n1: float, p2: float, n2: float, z: float = Z95) -> tuple[float, float]:
    """Newcombe's hybrid score interval (his method 10) for p1 − p2 from the two Wilson intervals."""
    lo1, hi1 = wilson(p1, n1, z)
    lo2, hi2 = wilson(p2, n2, z)
    d = p1 - p2
    return (d - math.sqrt((p1 - lo1) ** 2 + (hi2 - p2) ** 2),
            d + math.sqrt((hi1 - p1) ** 2 + (p2 - lo2) ** 2))



def newcombe_paired(a: int, b: int, c: int, d: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's score interval for a difference of paired proportions (his 1998 paper on paired data, method
    10), for p1 − p2 with p1 = (a+b)/n, p2 = (a+c)/n, from the 2×2 table of the same n items: a both successes,
    b first only, c second only, d neither. The two Wilson intervals are combined with the correlation
    φ = (ad − bc)/√((a+b)(c+d)(a+c)(b+d)), a positive ad − bc less n/2 (0 where a margin is empty); with φ = 0
    it is `newcombe`. Unlike the paired difference's normal interval, it does not shrink to a point when no item
    changed (b = c = 0). Checked against Fagerland, Lydersen & Laake's worked example (Cavo et al., 2012)."""
    n = a + b + c + d
    if n == 0:
        return (-1.0, 1.0)
    p1, p2 = (a + b) / n, (a + c) / n
    lo1, hi1 = wilson(p1, n, z)
    lo2, hi2 = wilson(p2, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    # Newcombe's φ: a positive ad − bc is reduced by n/2 (and not below 0), as his method 10 prescribes.
    cross: float = a * d - b * c
    cross = max(0.0, cross - n / 2) if cross > 0 else cross
    phi = cross / math.sqrt(margins) if margins else 0.0
    below = math.sqrt(max(0.0, (p1 - lo1) ** 2 - 2 * phi * (p1 - lo1) * (hi2 - p2) + (hi2 - p2) ** 2))
    above = math.sqrt(max(0.0, (hi1 - p1) ** 2 - 2 * phi * (hi1 - p1) * (p2 - lo2) + (p2 - lo2) ** 2))
    return (max(-1.0, p1 - p2 - below), min(1.0, p1 - p2 + above))

def two_proportion_z(x1: float, n1: int, x2: float, n2: int) -> float | None:
    """Pooled z for p1 − p2; None when a side has no trials, 0 when both are 0% or both 100%."""
    if not n1 or not n2:
        return None
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0
    return (x1 / n1 - x2 / n2) / se


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def binomial_upper(x: int, n: int, p: float) -> float:
    """The exact one-sided binomial test: P(X ≥ x) for X ~ Binomial(n, p).

    The tail on x's side of the mean is summed (the upper one, else one minus the lower one), each term from its
    logarithm, so tiny tails keep their precision.
    """
    if x <= 0 or p >= 1:
        return 1.0
    if x > n or p <= 0:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    upper = x > n * p
    logs = [_log_comb(n, k) + k * log_p + (n - k) * log_q for k in (range(x, n + 1) if upper else range(x))]
    top = max(logs)
    mass = math.exp(top) * math.fsum(math.exp(v - top) for v in logs)
    return min(1.0, mass) if upper else min(1.0, max(0.0, 1.0 - mass))


# --- means and paired scores -------------------------------------------------------------------------------

def mean_ci(values: Sequence[float]) -> dict[str, Any]:
    """Mean with a 95% t-interval (None bounds for n < 2)."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "ci95": [None, None]}
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": 1, "mean": mean, "sd": None, "ci95": [None, None]}
    sd = statistics.stdev(values)
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci95": [mean - half, mean + half]}


@dataclass(frozen=True)
class LadderDecision:
    n: int  # questions both runs answered
    mean_diff: float  # mean of (new − shown) per-question correctness
    sd: float  # sample standard deviation of the differences
    threshold: float  # s / √n
    moves: bool


def ladder(shown: Mapping[str, bool], candidate: Mapping[str, bool]) -> LadderDecision:
    """The Ladder rule (Blum & Hardt, 2015), a paired test: the shown score moves to the candidate only when
    the mean gain over the shared questions exceeds s/√n (a paired t statistic above 1)."""
    shared = sorted(set(shown) & set(candidate))
    n = len(shared)
    if n < 2:
        return LadderDecision(n=n, mean_diff=0.0, sd=0.0, threshold=0.0, moves=False)
    diffs = [int(candidate[q]) - int(shown[q]) for q in shared]
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    threshold = sd / math.sqrt(n)
    return LadderDecision(n=n, mean_diff=mean, sd=sd, threshold=threshold, moves=mean > threshold)


# --- multiplicity --------------------------------------------------------------------------------------------

def holm(p_values: Sequence[float], alpha: float = 0.05) -> tuple[list[float], list[bool]]:
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


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values: q_(i) = min over j ≥ i of min(1, m·p_(j)/j) (ranks j from 1)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i], reverse=True)
    q = [1.0] * m
    running = 1.0
    for position, i in enumerate(order):
        running = min(running, m * p_values[i] / (m - position))
        q[i] = min(1.0, running)
    return q


# --- rank correlation ----------------------------------------------------------------------------------------

def _ranks(values: Sequence[float]) -> list[float]:
    """Average ranks (1-based), ties sharing the mean of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> dict[str, Any]:
    """Spearman's rho (Pearson on average ranks) with a 95% interval from Fisher's z using the
    Fieller-Hartley-Pearson standard error sqrt(1.06 / (n - 3))."""
    n = len(xs)
    if n != len(ys):
        raise ValueError("xs and ys differ in length")
    if n < 3:
        return {"rho": None, "n": n, "ci95": [None, None]}
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return {"rho": None, "n": n, "ci95": [None, None]}
    rho = sxy / math.sqrt(sxx * syy)
    if n <= 3 or abs(rho) >= 1:
        return {"rho": rho, "n": n, "ci95": [None, None]}
    z, se = math.atanh(rho), math.sqrt(1.06 / (n - 3))
    return {"rho": rho, "n": n, "ci95": [math.tanh(z - Z95 * se), math.tanh(z + Z95 * se)]}
