"""Accuracy with Wilson intervals, per topic / per variant, and order robustness."""
from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from .statistics import wilson_interval


def accuracy_block(correct: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(correct, n)
    return {"n": n, "correct": correct, "accuracy": (correct / n) if n else None, "ci95": [lo, hi]}


def aggregate_counts(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """(topic, variant) -> n, correct: the small rows the leaderboard pages read. Unlabelled rows are skipped."""
    acc: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.get("correct") is None:
            continue
        cell = acc[(r.get("topic", ""), r["variant"])]
        cell[0] += 1
        cell[1] += bool(r["correct"])
    return [{"topic": t, "variant": v, "n": n, "correct": c} for (t, v), (n, c) in sorted(acc.items())]


def summarize(rows: Sequence[Mapping[str, Any]], variants: Sequence[str] | None = None) -> dict[str, Any]:
    """Summary of a run. The headline ("overall", "per_topic") is the `original` variant when
    present, else the first variant, so shuffled variants never inflate n."""
    variants = list(variants) if variants else list(dict.fromkeys(r["variant"] for r in rows))
    primary = "original" if "original" in variants else (variants[0] if variants else None)
    labelled = [r for r in rows if r.get("correct") is not None]

    per_variant = {}
    for v in variants:
        vr = [r for r in labelled if r["variant"] == v]
        per_variant[v] = accuracy_block(sum(bool(r["correct"]) for r in vr), len(vr))

    prim = [r for r in labelled if r["variant"] == primary]
    by_topic: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in prim:
        by_topic[r.get("topic", "")][0] += bool(r["correct"])
        by_topic[r.get("topic", "")][1] += 1

    accs = [b["accuracy"] for b in per_variant.values() if b["accuracy"] is not None]
    robustness = None
    if len(accs) >= 2:
        robustness = {
            "variants": [v for v in variants if per_variant[v]["accuracy"] is not None],
            "max_minus_min": max(accs) - min(accs),
            "std": statistics.pstdev(accs),
        }

    masses = [r["letter_mass"] for r in rows if r.get("letter_mass") is not None]
    parsed = [r for r in rows if "parsed" in r]
    summary: dict[str, Any] = {
        "n_rows": len(rows),
        "n_questions": len({r["question_id"] for r in rows}),
        "n_unlabelled_rows": len(rows) - len(labelled),
        "primary_variant": primary,
        "overall": accuracy_block(sum(bool(r["correct"]) for r in prim), len(prim)),
        "per_topic": {t: accuracy_block(c, n) for t, (c, n) in sorted(by_topic.items())},
        "per_variant": per_variant,
        "order_robustness": robustness,
        "ties": sum(1 for r in rows if r.get("tie")),
    }
    if masses:
        summary["letter_mass"] = {"mean": statistics.fmean(masses), "min": min(masses)}
    if parsed:
        unparsed = sum(1 for r in parsed if not r["parsed"])
        summary["unparsed"] = {"n": unparsed, "rate": unparsed / len(parsed)}
    guessed = [r for r in labelled if r.get("guessed")]
    if guessed:  # mmlu-pro-cot-guess: unread answers scored by the publisher's seeded random guess
        summary["random_guess"] = {"n": len(guessed), "correct": sum(bool(r["correct"]) for r in guessed)}
    return summary
