"""The leaderboard page: one page of a board, filtered, ranked and sorted on the server from the board's rows
(results.selectors.board_rows, read once per board state: board_cache.py; ranked and narrowed by results.board,
the rules the API uses), pinned rows on top, the column preset's headers with their sort links, a pager, the paper's
rows in a section of their own, and the chart's top rows.

The URL keeps the page's whole state (BoardQuery, board_query.py), so a link shows what its sender saw, with or
without JavaScript; pages/leaderboard.js asks the same view for the board fragment instead of reloading the page.
The table's cells and rows are built in board_table.py.
"""
import heapq
import itertools
from functools import partial

from django.urls import reverse
from django.utils.safestring import mark_safe

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.results import board
from leaderboard.results import selectors as results_selectors
from leaderboard.boards import selectors as boards

from ..board_cache import board_cached, board_state
from .board_query import PAGE_SIZE, PRESET_SHORT, PRESETS, BoardQuery, count_text, pager
from .board_table import headers, number, row_html

CHART_ROWS = 20


def board_rows(*, benchmark, split, shots, state=""):
    return board_cached("board-rows", benchmark=benchmark, split=split, shots=shots, state=state,
                        build=lambda: boards.board_rows(benchmark=benchmark, split=split, shots=shots))


def ranked(*, benchmark, split, shots, rows, filters, reread, name="board", state=""):
    """The rows `filters` keep, ranked (results.board.rank), with the most accurate of them for the chart: kept
    in this process per board state and filters. reread(): the rows again, read by itself; a request that
    recomputes the board ranks them after the recompute, so its process's next reader does not rank them (a second
    at 10,000 models on a busy machine) on its own time."""
    def build(rows):
        out = board.rank(rows, filters=filters)
        return out, heapq.nsmallest(CHART_ROWS, (r for r in out.rows if r["accuracy"] is not None), key=_by_accuracy)

    return board_cached(f"{name}-ranked:{filters!r}", benchmark=benchmark, split=split, shots=shots, local=True,
                        state=state, build=partial(build, rows), refresh=lambda: build(reread()))


def _precisions(rows):
    return sorted({r["precision"] for r in rows if r["precision"]})


def _by_accuracy(row):
    return (-row["accuracy"], row["hub_id"].lower())


def categories(*, benchmark) -> list[tuple[str, str]]:
    """(slug, name) of the benchmark's categories in taxonomy order."""
    out = {}
    for t in sorted(bench_selectors.topic_index(benchmark=benchmark), key=lambda t: t.subcategory.category.order):
        out.setdefault(t.subcategory.category.slug, t.subcategory.category.name)
    return list(out.items())


def _pinned(query, shown, all_rows):
    """The pinned rows (in the order pinned): their ranked row when the filters keep it, else their row with no
    rank, marked as outside the filters."""
    out = []
    for hub in query.pins:
        ranked = shown.by_hub.get(hub.lower())
        if ranked:
            out += [(row, False) for row in ranked]
        else:
            out += [({**row, "rank": None, "tied": False}, True) for row in all_rows
                    if row["hub_id"].lower() == hub.lower()]
    return out


def _chart(shown, best, *, sealed):
    """The chart's rows: the most accurate of the rows shown and the paper's (best: of the unsearched board)."""
    rows = shown.rows if len(shown.by_rank) < shown.ranked else best  # searched: among the matches
    top = heapq.nsmallest(CHART_ROWS, (r for r in list(rows) + shown.reported if r["accuracy"] is not None),
                          key=_by_accuracy)
    return {"sealed": sealed, "rows": [[r["hub_id"], r["accuracy"], r["ci95_low"], r["ci95_high"], r["rank"],
                                        int(r["flagged"]), int(r["reported"]), r["precision"]] for r in top]}


def chart_summary(shown, *, sealed, benchmark_name, query) -> str:
    """The chart's text: what it shows and its leader (flagged or not, so "Highest" never hides a flag)."""
    if not shown.total:
        return empty_text(shown, benchmark_name=benchmark_name, query=query)
    if not shown.rows and not shown.reported:
        return "No model matches these filters."
    places = 1 if sealed else 2
    # The most accurate row has nobody significantly above it, so it is among the first rank's rows.
    first_rank = shown.by_rank[0]["rank"] if shown.by_rank else None
    leaders = list(itertools.takewhile(lambda r: r["rank"] == first_rank, shown.by_rank))
    measured = [r for r in (leaders if len(shown.by_rank) == shown.ranked else shown.rows)
                if r["accuracy"] is not None]
    parts = [f"{len(shown.rows)} measured model{'s' if len(shown.rows) != 1 else ''} shown"
             + (f", {len(shown.reported)} reported by the paper (not ranked)" if shown.reported else "")
             + f". The chart shows the {min(CHART_ROWS, len(shown.rows) + len(shown.reported))} most accurate."]
    if measured:
        best = max(measured, key=lambda r: r["accuracy"])
        interval = (f" (95% interval {number(best['ci95_low'], places)}–{number(best['ci95_high'], places)})"
                    if best["ci95_low"] is not None else "")
        flag = ", flagged for possible contamination" if best["possible_contamination"] else (
            ", flagged" if best["flagged"] else "")
        first = len(leaders) if first_rank == 1 else 0
        parts.append(f"Highest measured: {best['hub_id']} at {number(best['accuracy'], places)}%{interval}{flag}. "
                     f"{first} model{'s share' if first != 1 else ' holds'} rank 1 (not significantly different "
                     "from the best).")
    if shown.flagged_hidden:
        parts.append(f"{shown.flagged_hidden} flagged model{'s are' if shown.flagged_hidden != 1 else ' is'} hidden.")
    return " ".join(parts)


def empty_text(shown, *, benchmark_name, query) -> str:
    if not shown.total:
        return (f"No model has been evaluated on {benchmark_name} ({query.split}, {query.shots}-shot) yet; submitted "
                "models appear here once scored."
                + ("" if query.include_reported else " Tick “Show the paper's reported rows” for the paper's figures."))
    text = "No model matches these filters."
    if shown.flagged_hidden:
        text += f" {shown.flagged_hidden} flagged model{'s are' if shown.flagged_hidden != 1 else ' is'} hidden."
    return text


def board_page(*, benchmark, query: BoardQuery, cats) -> dict:
    """Everything the board fragment (partials/board.html) shows; cats: categories(benchmark=...)."""
    sealed = query.split == "test"
    state = board_state(benchmark=benchmark, split=query.split, shots=query.shots)
    rows = board_rows(benchmark=benchmark, split=query.split, shots=query.shots, state=state)
    reported = (results_selectors.reported_rows(benchmark_slug=benchmark.slug, shots=query.shots)
                if query.include_reported else [])
    reread = partial(board_rows, benchmark=benchmark, split=query.split, shots=query.shots)
    kept, best = ranked(benchmark=benchmark, split=query.split, shots=query.shots, rows=rows, state=state,
                        filters=query.filters(), reread=reread)
    shown = board.narrow(kept, reported=reported, search=query.search or None, sort=query.sort)
    pinned = _pinned(query, shown, rows)
    pinned_keys = {(r["hub_id"], r["revision"], r["precision"]) for r, _ in pinned}
    rest = ([r for r in shown.rows if (r["hub_id"], r["revision"], r["precision"]) not in pinned_keys]
            if pinned else shown.rows)
    path = reverse("leaderboard")
    pages = pager(query, len(rest), path)
    start = (pages["page"] - 1) * PAGE_SIZE
    page_rows = rest[start:start + PAGE_SIZE]
    repeated = {r["hub_id"] for r in page_rows if len(shown.by_hub.get(r["hub_id"].lower(), ())) > 1}
    view = partial(row_html, query=query, sealed=sealed, category_slugs=[slug for slug, _ in cats],
                   repeated=repeated, model_url=model_url_prefix(), contamination_url=reverse("contamination"))
    return {
        "query": query, "sealed": sealed, "preset": query.columns,
        "presets": [{"key": key, "label": PRESET_SHORT.get(key, (label,))[0],
                     "more": PRESET_SHORT.get(key, (label, ""))[1], "current": key == query.columns,
                     "href": query.url(path, columns=key)} for key, label in PRESETS],
        "headers": headers(query, sealed=sealed, cats=cats),
        "rows_html": mark_safe("".join([view(r, pinned=True, outside=outside) for r, outside in pinned]
                                       + [view(r) for r in page_rows])),
        "pinned_count": len(pinned), "pager": pages, "total": shown.total, "ranked": shown.ranked,
        "count_text": count_text(len(shown.rows), start + 1, start + len(page_rows), len(pinned), query.search),
        "flagged_hidden": shown.flagged_hidden, "show_flagged_url": query.url(path, flagged="show", page=1),
        "hide_flagged_url": query.url(path, flagged="hidden", page=1),
        "reported": shown.reported, "reported_excluded": shown.reported_excluded,
        "empty": "" if page_rows or pinned else empty_text(shown, benchmark_name=benchmark.name, query=query),
        "sealed_categories": sealed and query.columns == "categories",
        "csv_url": query.api_url(),
        "chart": {**_chart(shown, best, sealed=sealed),
                  "summary": chart_summary(shown, sealed=sealed, benchmark_name=benchmark.name, query=query)},
        "precisions": board_cached("board-precisions", benchmark=benchmark, split=query.split, shots=query.shots,
                                   local=True, state=state, build=partial(_precisions, rows),
                                   refresh=lambda: _precisions(reread())),
        "caption": (f"{benchmark.name}, {query.split} split"
                    + (" (sealed: overall accuracy only, on its published grid)" if sealed else "")
                    + f", {query.shots}-shot, original order"),
    }


# --- the compact rows the compare page's scatter reads ------------------------------------------------------------

FIELDS = ["hub_id", "params", "accuracy", "source"]


def board_payload(*, benchmark, split, shots) -> dict:
    """Every measured row of a board as [hub_id, params, accuracy, 0] (source 0: measured here)."""
    rows = board_rows(benchmark=benchmark, split=split, shots=shots)
    return {"fields": FIELDS, "rows": [[r["hub_id"], r["params"], r["accuracy"], 0] for r in rows]}


def model_url_prefix() -> str:
    """/models/ : the page appends the hub id and a slash."""
    return reverse("model-detail", args=["x"])[:-len("x/")]
