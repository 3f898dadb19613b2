"""Display rules for figures leaving the server (ARCHITECTURE §6).

Open splits: percent to 2 places with counts. Sealed (test) split: overall accuracy on the split's published
grid (benchmarks.sealed_grid: 0.1 point at 10,000 questions, coarser for smaller splits, so each value fits
several counts), its interval computed from that published value, no `correct` count, and nothing below the
overall level. Per-topic (and category/subcategory) test figures are omitted rather than rounded: a topic holds
a handful of test questions, so any figure would pin the exact count correct.
"""
from evaluator.metrics import wilson_interval

from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.benchmarks.sealed_grid import grid_note, publish

SEALED_BREAKDOWN_NOTE = ("sealed test split: only overall accuracy is published, on a grid that fits the split's "
                         "size; per-category/subcategory/topic figures are withheld")


def is_sealed(split: str) -> bool:
    return split in SEALED_SPLITS


def cell(*, split: str, n: int, correct: int) -> dict:
    """accuracy and ci95 in percent for one aggregate, with the split's display rule applied."""
    if not n:
        return {"n": 0, "correct": None, "accuracy": None, "ci95_low": None, "ci95_high": None}
    if not is_sealed(split):
        lo, hi = wilson_interval(correct, n)
        return {"n": n, "correct": correct, "accuracy": round(100 * correct / n, 2),
                "ci95_low": round(100 * lo, 2), "ci95_high": round(100 * hi, 2)}
    figure = publish(correct, n)
    lo, hi = figure.ci95_percent()
    return {"n": n, "correct": None, "accuracy": figure.percent, "ci95_low": lo, "ci95_high": hi,
            "grid": figure.grid_points, "grid_note": grid_note(n)}


def published_percent(*, split: str, n: int, correct: int) -> float | None:
    """The accuracy in percent exactly as `cell` publishes it (sealed: on its grid)."""
    return cell(split=split, n=n, correct=correct)["accuracy"]


def difference(*, split: str, before: float | None, after: float | None):
    """The change between two published accuracies (percent): sealed ones are differenced as published, never
    from their exact fractions."""
    if before is None or after is None:
        return None
    return round(after - before, 1 if is_sealed(split) else 2)
