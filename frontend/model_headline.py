"""The model page's headline and the board figures its topic table compares with.

The headline says where the model stands on the default board (Mobile-MMLU, validation, 0-shot, original order,
flagged models hidden as the board shows it): rank of N, accuracy with its 95% interval, the sealed test figure as
published (the run the Ladder rule shows), Δ with its flag, the spread across answer orders (runs with two or more)
and when the model was last evaluated, with links to compare it and to its per-topic CSV.

A board is read as results.selectors.leaderboard reads it (board_rows, ranked among the rows a reader sees by
results.board.view) once per board state (board_cache) and kept compact: per hub id the run ids and ranks of its
rows, plus the board's topic medians (one aggregate query, results.topic_medians).
"""
from urllib.parse import urlencode

from django.urls import NoReverseMatch, reverse

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.contamination import ladder as contamination_ladder
from leaderboard.evaluations import display
from leaderboard.results import board
from leaderboard.results import selectors as results_selectors
from leaderboard.results.models import Level
from leaderboard.results.topic_medians import topic_medians
from leaderboard.boards import selectors as boards

from .board_cache import board_cached

DEFAULT_BENCHMARK = "mobile-mmlu"
DEFAULT_BOARD = {"split": "validation", "shots": 0, "variant": "original"}
_RUN, _RANK, _TIED, _RANK_ALL, _FLAGGED, _CONTAMINATION, _ABOVE, _BELOW, _VIA = range(9)


def _standing(*, benchmark, split, shots, variant) -> dict:
    """One read of the board's rows (results.selectors.board_rows), ranked twice by results.board.view: as the
    default board shows them (flagged rows hidden) and with every row."""
    rows = boards.board_rows(benchmark=benchmark, split=split, shots=shots, variant=variant)
    shown = board.view(rows, filters=board.Filters(flagged=False)).rows  # best first
    everyone = board.view(rows).rows
    on_board = {}
    for i, r in enumerate(shown):
        on_board[r["run_id"]] = (r["rank"], r["tied"], shown[i - 1]["hub_id"] if i else None,
                                 shown[i + 1]["hub_id"] if i + 1 < len(shown) else None)
    out = {}
    for r in everyone:
        rank, tied, above, below = on_board.get(r["run_id"], (None, False, None, None))
        out.setdefault(r["hub_id"].lower(), []).append(
            (r["run_id"], rank, tied, r["rank"], r["flagged"], r.get("possible_contamination", False), above, below,
             r.get("flagged_via", "")))
    return {"rows": out, "shown": len(shown), "everyone": len(everyone),
            "medians": topic_medians(run_ids=list(on_board), split=split, variant=variant)}


def standing(*, benchmark, split="validation", shots=0, variant="original") -> dict:
    """The board's compact standing (see the module docstring), cached until the board changes."""
    return board_cached(f"model-standing|{variant}", benchmark=benchmark, split=split, shots=shots,
                        build=lambda: _standing(benchmark=benchmark, split=split, shots=shots, variant=variant))


def board_medians(result) -> dict[str, float]:
    """topic slug -> the median accuracy on the board of an open-split result (its benchmark, shots and order)."""
    if display.is_sealed(result.split):
        return {}
    return standing(benchmark=result.benchmark, split=result.split, shots=result.shots,
                    variant=result.primary_variant)["medians"]


def _shown_test(results, *, benchmark, shots, precision):
    """The sealed run the page shows for this board: the Ladder rule's choice for the model and precision, else
    the newest of that precision, else the newest."""
    tests = [r for r in results if display.is_sealed(r.split) and r.benchmark_id == benchmark.pk and r.shots == shots
             and not r.run.protocol]  # the board's protocol (the leaderboard's own settings)
    if not tests:
        return None
    shown = contamination_ladder.shown_test_runs(benchmark=benchmark, shots=shots)
    return (next((r for r in tests if shown.get((r.hub_id, r.precision)) == r.run_id), None)
            or next((r for r in tests if r.precision == precision), None) or tests[0])


def _delta(contamination, *, benchmark, shots, result):
    points = [d for d in contamination["latest"] if d["benchmark"] == benchmark.slug and d["shots"] == shots]
    if result is not None:
        mine = [d for d in points if (d["revision"], d["precision"]) == (result.revision, result.precision)]
        points = mine or points
    return points[0] if points else None


def _order_spread(result):
    cells = [c for c in results_selectors.result_cells(result=result, levels=[Level.OVERALL])
             if c["accuracy"] is not None]
    if len(cells) < 2:
        return None
    best, worst = max(cells, key=lambda c: c["accuracy"]), min(cells, key=lambda c: c["accuracy"])
    return {"points": round(best["accuracy"] - worst["accuracy"], 1), "orders": len(cells),
            "best": best["variant"], "worst": worst["variant"],
            "by_order": {c["variant"]: c for c in cells}}


def _questions_url(hub_id, results):
    """The question browser of the model's open-split runs (hub ids of the namespace/name form only)."""
    if not any(not display.is_sealed(r.split) for r in results):
        return None
    try:
        return reverse("model-questions", args=[hub_id])
    except NoReverseMatch:
        return None


def headline(*, hub_id, results, cells, contamination) -> dict:
    """results: the model's visible results, newest first; cells: run id -> its overall display cell (primary
    order, as the page's run history shows it); contamination: selectors.model_contamination of the model."""
    benchmark = bench_selectors.benchmark_get(slug=DEFAULT_BENCHMARK)
    out = {"board": {"benchmark": benchmark.name if benchmark else DEFAULT_BENCHMARK, **DEFAULT_BOARD},
           "last_evaluated": max((r.scored_at for r in results), default=None), "result": None,
           "questions_url": _questions_url(hub_id, results)}
    if benchmark is None:
        return out
    board = standing(benchmark=benchmark, **DEFAULT_BOARD)
    mine = {row[_RUN]: row for row in board["rows"].get(hub_id.lower(), [])}
    result = next((r for r in results if r.run_id in mine), None)  # the newest of the model's rows on the board
    shots = DEFAULT_BOARD["shots"]
    test = _shown_test(results, benchmark=benchmark, shots=shots, precision=result.precision if result else None)
    delta = _delta(contamination, benchmark=benchmark, shots=shots, result=result)
    out.update({"shown": board["shown"], "everyone": board["everyone"],
                "test": {"result": test, **cells[test.run_id]} if test is not None and test.run_id in cells else None,
                "delta": delta, "benchmark_slug": benchmark.slug,
                "csv_url": f"{reverse('api-results-topics-csv')}?"
                           + urlencode({"benchmark": benchmark.slug, "model": hub_id}, safe="/")})
    compare = [hub_id]
    if result is not None:
        row = mine[result.run_id]
        spread = _order_spread(result)
        cell = (spread["by_order"].get(DEFAULT_BOARD["variant"]) if spread else None) or next(
            (c for c in results_selectors.result_cells(result=result, levels=[Level.OVERALL])
             if c["variant"] == DEFAULT_BOARD["variant"]), None)
        out.update({"result": result, "cell": cell, "rank": row[_RANK], "tied": row[_TIED], "rank_all": row[_RANK_ALL],
                    "flagged": row[_FLAGGED], "possible_contamination": row[_CONTAMINATION], "spread": spread,
                    "flagged_via": row[_VIA]})
        compare += [h for h in (row[_ABOVE], row[_BELOW]) if h and h.lower() != hub_id.lower()]
    out["compare_url"] = f"{reverse('compare')}?" + urlencode({"models": ",".join(compare)}, safe=",/")
    out["compare_others"] = compare[1:]
    return out
