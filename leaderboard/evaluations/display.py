"""How run figures may be shown. Sealed (test) results: overall accuracy to 0.1 point, nothing per question."""
from leaderboard.benchmarks.models import SEALED_SPLITS


def percent(value, places=1):
    return None if value is None else round(100 * value, places)


def public_summary(*, split: str, summary: dict) -> dict:
    """Overall accuracy with its interval and the per-variant figures, in percent."""
    places = 1
    overall = summary.get("overall") or {}
    out = {
        "n": overall.get("n"),
        "accuracy": percent(overall.get("accuracy"), places),
        "ci95": [percent(x, places) for x in overall.get("ci95") or []],
        "per_variant": {v: percent(b.get("accuracy"), places) for v, b in (summary.get("per_variant") or {}).items()},
    }
    if summary.get("letter_mass"):
        out["letter_mass_mean"] = round(summary["letter_mass"]["mean"], 3)
    if split not in SEALED_SPLITS and summary.get("order_robustness"):
        out["order_robustness_max_minus_min"] = percent(summary["order_robustness"]["max_minus_min"], places)
    return out
