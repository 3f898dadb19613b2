"""Display rules for figures leaving the server (ARCHITECTURE §6): a run's summary, and the aggregate cells of
results, contamination and the pages.

Open splits: percent to 2 places with counts (a run's summary: 1 place). Sealed (test) split: overall accuracy on
the split's published grid (benchmarks.sealed_grid: 0.1 point at 10,000 questions, coarser for smaller splits, so
each value fits several counts), its interval computed from that published value, no `correct` count, and nothing
below the overall level (a run's summary adds the per-variant figures, on the same grid). Per-topic (and
category/subcategory) test figures are omitted rather than rounded: a topic holds a handful of test questions, so
any figure would pin the exact count correct.
"""
from evaluator.statistics import wilson_interval

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


def difference(*, split: str, before: float | None, after: float | None):
    """The change between two published accuracies (percent): sealed ones are differenced as published, never
    from their exact fractions."""
    if before is None or after is None:
        return None
    return round(after - before, 1 if is_sealed(split) else 2)


# --- A run's summary (the status API and `manage.py evaluate`) ------------------------------------------------

def percent(value, places=1):
    return None if value is None else round(100 * value, places)


def _sealed(split: str, block: dict) -> tuple[float | None, list[float]]:
    """A sealed block's accuracy and interval as published: on its grid, the interval from that value (`cell`)."""
    if not block.get("n"):
        return None, []
    published = cell(split=split, n=block["n"], correct=block["correct"])
    return published["accuracy"], [published["ci95_low"], published["ci95_high"]]


def public_summary(*, split: str, summary: dict) -> dict:
    """Overall accuracy with its interval and the per-variant figures, in percent."""
    places = 1
    overall = summary.get("overall") or {}
    variants = summary.get("per_variant") or {}
    if is_sealed(split):
        accuracy, ci95 = _sealed(split, overall)
        per_variant = {v: _sealed(split, b)[0] for v, b in variants.items()}
    else:
        accuracy, ci95 = percent(overall.get("accuracy"), places), [percent(x, places) for x in overall.get("ci95") or []]
        per_variant = {v: percent(b.get("accuracy"), places) for v, b in variants.items()}
    out = {"n": overall.get("n"), "accuracy": accuracy, "ci95": ci95, "per_variant": per_variant}
    if summary.get("letter_mass"):
        out["letter_mass_mean"] = round(summary["letter_mass"]["mean"], 3)
    if not is_sealed(split) and summary.get("order_robustness"):
        out["order_robustness_max_minus_min"] = percent(summary["order_robustness"]["max_minus_min"], places)
    return out
