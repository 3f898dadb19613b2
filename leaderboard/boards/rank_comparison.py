"""Mobile against general knowledge (the Mobile-MMLU paper's central claim, its Table 2): two boards' rows paired by
model, each model's place among the paired models on each benchmark, the rank change and Spearman's correlation.
Pure: no database (leaderboard.boards.selectors.mobile_vs_general reads the rows).

Everything is computed from the figures the boards publish (`accuracy`, the interval, the board's rank), never from
counts: a sealed figure is on its grid, so two models on the same grid point are tied here, as they are on the board,
and no order finer than the published rounding can be read from a rank or the correlation (ARCHITECTURE §6).
"""
from evaluator.statistics import spearman

SPEARMAN_METHOD = ("Spearman's rho: Pearson's correlation of the average ranks of the published accuracies (ties "
                   "share the mean of their places); 95% interval by Fisher's z with the Fieller-Hartley-Pearson "
                   "standard error sqrt(1.06 / (n - 3)); none below 4 models")
SORTS = ("mobile_rank", "general_rank", "rank_change", "mobile_accuracy", "general_accuracy", "name")
_SIDE_FIELDS = {"run_id": "run_id", "accuracy": "accuracy", "ci95_low": "ci95_low", "ci95_high": "ci95_high",
                "grid": "grid", "rank": "board_rank"}  # a board row's field -> this table's (prefixed)


def competition_ranks(values) -> list[int]:
    """1 + the number of values strictly above each value: ties share the best place ("1, 2, 2, 4")."""
    ordered = sorted(values, reverse=True)
    first = {}
    for place, value in enumerate(ordered, start=1):
        first.setdefault(value, place)
    return [first[v] for v in values]


def _key(row):
    return row["hub_id"].lower(), row.get("precision") or ""


def _latest(rows) -> dict:
    """(hub id in lower case, precision) -> that model's newest row (a later revision stands for the model)."""
    out = {}
    for row in rows:
        if row.get("accuracy") is None:
            continue
        key = _key(row)
        kept = out.get(key)
        if kept is None or (row.get("scored_at") and kept.get("scored_at") and row["scored_at"] > kept["scored_at"]):
            out[key] = row
    return out


def _side(prefix, row) -> dict:
    return {f"{prefix}_{ours}": row.get(name) for name, ours in _SIDE_FIELDS.items()}


def pair(mobile_rows, general_rows, *, source="measured") -> list[dict]:
    """One row per model (and precision) present on both boards: both sides' published figures, the board's rank
    on each (`*_board_rank`, the rows' `rank`), then `mobile_rank`/`general_rank`: places among the paired models,
    and `rank_change` = general rank - mobile rank (positive: the model does better on mobile knowledge than its
    general knowledge would place it; a mobile specialist)."""
    mobile, general = _latest(mobile_rows), _latest(general_rows)
    pairs = []
    for key, m in mobile.items():
        g = general.get(key)
        if g is None:
            continue
        pairs.append({"source": source, "hub_id": m["hub_id"], "precision": m.get("precision") or "",
                      "flagged": bool(m.get("flagged") or g.get("flagged")),
                      **_side("mobile", m), **_side("general", g)})
    places_m = competition_ranks([p["mobile_accuracy"] for p in pairs])
    places_g = competition_ranks([p["general_accuracy"] for p in pairs])
    for p, pm, pg in zip(pairs, places_m, places_g):
        p.update(mobile_rank=pm, general_rank=pg, rank_change=pg - pm)
    pairs.sort(key=lambda p: (p["mobile_rank"], p["general_rank"], p["hub_id"].lower()))
    return pairs


def correlation(pairs) -> dict:
    """Spearman's rho between the paired models' published accuracies, with its 95% interval and n."""
    result = spearman([p["mobile_accuracy"] for p in pairs], [p["general_accuracy"] for p in pairs])
    low, high = result["ci95"]
    return {"rho": result["rho"], "ci95_low": low, "ci95_high": high, "n": result["n"], "method": SPEARMAN_METHOD}


def _sort_value(name):
    return {"mobile_rank": lambda p: p["mobile_rank"], "general_rank": lambda p: p["general_rank"],
            "rank_change": lambda p: p["rank_change"], "mobile_accuracy": lambda p: p["mobile_accuracy"],
            "general_accuracy": lambda p: p["general_accuracy"], "name": lambda p: p["hub_id"].lower()}[name]


def sort_pairs(pairs, sort="mobile_rank") -> list[dict]:
    """Sorted by one of SORTS ('-' first: descending); ties keep the mobile order."""
    name = sort.lstrip("-")
    return sorted(pairs, key=_sort_value(name), reverse=sort.startswith("-"))
