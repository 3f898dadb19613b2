"""Aggregates of per-question MRScores: means with 95% t-intervals, the paper's Table 9 bins,
a 1..10 histogram (the paper's Fig. 9), and Spearman's rank correlation with published figures."""
from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Sequence

Z95 = 1.959963984540054
# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30; above 30 a Cornish-Fisher expansion.
_T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]

# Table 9 of the paper: MRScore bins, highest first.
BINS = ((">= 7", 7.0, math.inf), ("5-6.9", 5.0, 7.0), ("3-4.9", 3.0, 5.0), ("< 3", -math.inf, 3.0))


def t975(df: int) -> float:
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


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


def bin_label(score: float) -> str:
    for label, low, high in BINS:
        if low <= score < high:
            return label
    return BINS[0][0]


def bin_counts(scores: Iterable[float]) -> dict[str, dict[str, Any]]:
    scores = list(scores)
    counts = {label: 0 for label, _, _ in BINS}
    for s in scores:
        counts[bin_label(s)] += 1
    n = len(scores)
    return {label: {"n": c, "share": (c / n) if n else None} for label, c in counts.items()}


def histogram(scores: Iterable[float]) -> list[int]:
    """Counts of scores in [1,2), [2,3), ..., [9,10) and exactly 10: ten buckets."""
    counts = [0] * 10
    for s in scores:
        counts[min(9, max(0, int(math.floor(s)) - 1))] += 1
    return counts


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


def summarize_rows(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Benchmark-level summary of per-question rows {score, method, mass?}."""
    scored = [r["score"] for r in rows if r.get("score") is not None]
    unparsable = [r for r in rows if r.get("method") == "unparsable"]
    methods: dict[str, int] = {}
    for r in rows:
        methods[r.get("method", "")] = methods.get(r.get("method", ""), 0) + 1
    masses = [r["mass"] for r in rows if r.get("mass") is not None]
    block = mean_ci(scored)
    summary: dict[str, Any] = {
        "n": len(rows), "n_scored": len(scored), "n_unparsable": len(unparsable),
        "unparsable_rate": (len(unparsable) / len(rows)) if rows else None,
        "mean": block["mean"], "sd": block["sd"], "ci95": block["ci95"],
        "bins": bin_counts(scored), "histogram": histogram(scored), "methods": methods,
    }
    if masses:
        summary["score_mass"] = {"mean": statistics.fmean(masses), "min": min(masses),
                                 "n_below_half": sum(1 for m in masses if m < 0.5)}
    return summary
