"""The contamination page: Δ (test − validation, points) per model revision with its 95% interval and
flag, most suspicious first, and the board-wide mean Δ over time (an ageing validation set shows as
a downward drift)."""
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.contamination import selectors as contamination_selectors

CHART_ROWS = 40
REVISION_CHARS = 12
MIN_SERIES_POINTS = 3  # a line through fewer points is not a trend


def page_data(*, benchmark, shots) -> tuple[dict, list[dict]]:
    rows = contamination_selectors.board(benchmark=benchmark, shots=shots)
    history = contamination_selectors.board_history(benchmark=benchmark, shots=shots)
    # The δ₀ in force for the current version (a row's own δ₀ differs for a reference model: it is judged
    # against the other references only).
    delta0 = round(100 * contamination_selectors.delta0(
        benchmark=benchmark, shots=shots, version=bench_selectors.version_current(benchmark=benchmark)), 2)
    data = {
        "benchmark": benchmark.name, "shots": shots, "delta0": delta0, "total": len(rows),
        "delta": [[r["hub_id"], (r["revision"] or "")[:REVISION_CHARS], r["precision"], r["delta"], r["ci95_low"],
                   r["ci95_high"], r["z"], int(bool(r["flagged"] or r["flag_reasons"]))] for r in rows[:CHART_ROWS]],
        "history": [[p["date"].isoformat(), p["mean_delta"], p["models"]] for p in history],
    }
    return data, rows


def summaries(data, rows) -> dict:
    out = {}
    flagged = sum(1 for r in rows if r["flagged"] or r["flag_reasons"])
    if rows:
        worst = rows[0]
        plural = "s" if len(rows) != 1 else ""
        out["delta"] = (f"{len(rows)} model revision{plural} with a validation and a sealed test result; "
                        f"{flagged} flagged for possible contamination. The chart shows the "
                        f"{min(len(rows), CHART_ROWS)} most suspicious (lowest z). Most suspicious: {worst['hub_id']}, "
                        f"Δ = {worst['delta']:+.1f} points (95% interval {worst['ci95_low']} to {worst['ci95_high']}), "
                        f"z = {worst['z']}. δ₀ = {data['delta0']:+.2f} points.")
    else:
        out["delta"] = ""
        out["delta_empty"] = ("No model has both a validation and a sealed test result yet, so there is no Δ to show. "
                              "Every submitted model is evaluated on both splits; its Δ appears here once both are "
                              "scored.")
    h = data["history"]
    if h:
        out["history"] = (f"Mean Δ across the board on {len(h)} day{'s' if len(h) != 1 else ''} with new results: "
                          f"first {h[0][1]:+.2f} points ({h[0][0]}, {h[0][2]} models), latest {h[-1][1]:+.2f} points "
                          f"({h[-1][0]}, {h[-1][2]} models). A steady fall would mean the open validation set is "
                          f"ageing into training data.")
    else:
        out["history"] = "No Δ history yet."
    if len(h) < MIN_SERIES_POINTS:
        out["history_empty"] = (
            f"No chart of Δ over time yet: a trend needs at least {MIN_SERIES_POINTS} days with new Δ points, and "
            f"there {'is' if len(h) == 1 else 'are'} {len(h)} so far. A day counts once a model on it has both a "
            "validation and a sealed test result; the chart appears as more models are evaluated on both splits.")
    return out
