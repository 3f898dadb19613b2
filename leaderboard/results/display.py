"""Display rules for figures leaving the server (ARCHITECTURE §6).

Open splits: percent to 2 places with counts. Sealed (test) split: overall accuracy and its
interval to 0.1 point, no `correct` count (it would give the exact figure), and nothing below
the overall level. Per-topic (and category/subcategory) test figures are omitted rather than
rounded to 1 point: a topic holds a handful of test questions, so even a 1-point figure pins the
exact count correct, and two runs' topic counts would then say which sealed questions changed.
"""
from evaluator.metrics import wilson_interval

from leaderboard.benchmarks.models import SEALED_SPLITS

SEALED_BREAKDOWN_NOTE = ("sealed test split: only overall accuracy is published (0.1 point); "
                         "per-category/subcategory/topic figures are withheld")


def is_sealed(split: str) -> bool:
    return split in SEALED_SPLITS


def cell(*, split: str, n: int, correct: int) -> dict:
    """accuracy and ci95 in percent for one aggregate, with the split's display rule applied."""
    places = 1 if is_sealed(split) else 2
    if not n:
        return {"n": 0, "correct": None, "accuracy": None, "ci95_low": None, "ci95_high": None}
    if is_sealed(split):
        # The interval from the published (rounded) accuracy: its bounds then say nothing finer than it.
        correct = round(correct / n, 3) * n
    lo, hi = wilson_interval(correct, n)
    return {"n": n, "correct": None if is_sealed(split) else correct,
            "accuracy": round(100 * correct / n, places), "ci95_low": round(100 * lo, places),
            "ci95_high": round(100 * hi, places)}


def difference(*, split: str, before: float | None, after: float | None):
    if before is None or after is None:
        return None
    return round(100 * (after - before), 1 if is_sealed(split) else 2)
