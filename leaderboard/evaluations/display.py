"""How run figures may be shown. Sealed (test) results: overall and per-variant accuracy on the split's published
grid (benchmarks.sealed_grid), nothing per question."""
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.benchmarks.sealed_grid import publish


def percent(value, places=1):
    return None if value is None else round(100 * value, places)


def _sealed(block: dict) -> tuple[float | None, list[float]]:
    """A sealed block's accuracy and interval as published: on its grid, the interval from that value."""
    if not block.get("n"):
        return None, []
    figure = publish(block["correct"], block["n"])
    return figure.percent, list(figure.ci95_percent())


def public_summary(*, split: str, summary: dict) -> dict:
    """Overall accuracy with its interval and the per-variant figures, in percent."""
    places = 1
    overall = summary.get("overall") or {}
    variants = summary.get("per_variant") or {}
    if split in SEALED_SPLITS:
        accuracy, ci95 = _sealed(overall)
        per_variant = {v: _sealed(b)[0] for v, b in variants.items()}
    else:
        accuracy, ci95 = percent(overall.get("accuracy"), places), [percent(x, places) for x in overall.get("ci95") or []]
        per_variant = {v: percent(b.get("accuracy"), places) for v, b in variants.items()}
    out = {"n": overall.get("n"), "accuracy": accuracy, "ci95": ci95, "per_variant": per_variant}
    if summary.get("letter_mass"):
        out["letter_mass_mean"] = round(summary["letter_mass"]["mean"], 3)
    if split not in SEALED_SPLITS and summary.get("order_robustness"):
        out["order_robustness_max_minus_min"] = percent(summary["order_robustness"]["max_minus_min"], places)
    return out
