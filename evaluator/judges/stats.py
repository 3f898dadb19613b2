"""Aggregates of per-question MRScores: the paper's Table 9 bins, a 1..10 histogram (the paper's Fig. 9)
and a benchmark's summary (means with 95% t-intervals from evaluator.statistics)."""
from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Sequence

from ..statistics import mean_ci

# Table 9 of the paper: MRScore bins, highest first.
BINS = ((">= 7", 7.0, math.inf), ("5-6.9", 5.0, 7.0), ("3-4.9", 3.0, 5.0), ("< 3", -math.inf, 3.0))


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
