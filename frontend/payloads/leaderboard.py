"""The leaderboard page's data: one board's rows as compact arrays (lookup indices instead of repeated
strings, short revisions), so the page with 1,000 models stays small.

Built from results.selectors.leaderboard (ranks among all measured rows) plus the paper's rows; the
page filters, re-ranks and sorts in the browser. Cached until the board changes (board_cache.py).
"""
from django.urls import reverse

from leaderboard.results import display
from leaderboard.results import selectors as results_selectors

from ..board_cache import board_cached

FIELDS = ["hub_id", "revision", "precision", "params", "model_type", "flags", "n", "correct", "accuracy",
          "ci95_low", "ci95_high", "rank", "source", "run_id"]
FLAGGED, POSSIBLE_CONTAMINATION = 1, 2  # bits of "flags"
REVISION_CHARS = 12


def board_payload(*, benchmark, split, shots) -> dict:
    return board_cached("leaderboard", benchmark=benchmark, split=split, shots=shots,
                        build=lambda: _build(benchmark=benchmark, split=split, shots=shots))


def _build(*, benchmark, split, shots) -> dict:
    measured = results_selectors.leaderboard(benchmark=benchmark, split=split, shots=shots)
    reported = results_selectors.reported_rows(benchmark_slug=benchmark.slug, shots=shots)
    lookups = {"precision": [], "model_type": [], "source": ["measured"]}  # source 0 = measured here

    def idx(name, value):
        lookup = lookups[name]
        if value not in lookup:
            lookup.append(value)
        return lookup.index(value)  # a handful of values per lookup

    rows, notes = [], {}
    for r in measured + reported:
        flags = (FLAGGED if r["flagged"] else 0) | (POSSIBLE_CONTAMINATION if r.get("possible_contamination") else 0)
        rows.append([r["hub_id"], (r["revision"] or "")[:REVISION_CHARS], idx("precision", r["precision"]),
                     r["params"], idx("model_type", r["model_type"]), flags, r["n"], r["correct"], r["accuracy"],
                     r["ci95_low"], r["ci95_high"], r.get("rank"), idx("source", r["source"]), r["run_id"]])
        if r.get("ladder_note"):
            notes[r["run_id"]] = r["ladder_note"]
    return {"benchmark": benchmark.slug, "benchmark_name": benchmark.name, "split": split, "shots": shots,
            "sealed": display.is_sealed(split), "fields": FIELDS, "lookups": lookups, "rows": rows, "notes": notes,
            "measured": len(measured), "csv": reverse("api-leaderboard"), "model_url": model_url_prefix(),
            "contamination_url": reverse("contamination")}


def model_url_prefix() -> str:
    """/models/ : the page appends the hub id and a slash."""
    return reverse("model-detail", args=["x"])[:-len("x/")]


def summary(data) -> str:
    """The chart's text summary for the default view (the script rewrites it as filters change)."""
    measured = [r for r in data["rows"] if r[FIELDS.index("source")] == 0]
    if not measured:
        return f"No measured results yet on {data['benchmark_name']} ({data['split']}, {data['shots']}-shot)."
    acc, rank = FIELDS.index("accuracy"), FIELDS.index("rank")
    best = max(measured, key=lambda r: r[acc] or 0)
    first = sum(1 for r in measured if r[rank] == 1)
    lo, hi = FIELDS.index("ci95_low"), FIELDS.index("ci95_high")
    return (f"{len(measured)} measured models on {data['benchmark_name']} ({data['split']}, {data['shots']}-shot). "
            f"Highest accuracy: {best[0]} at {best[acc]}% (95% interval {best[lo]}–{best[hi]}). "
            f"{first} model{'s share' if first != 1 else ' holds'} rank 1 (not significantly different from the best).")
