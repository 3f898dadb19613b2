"""The leaderboard page: one page of a board, filtered, ranked and sorted on the server from the board's rows
(results.selectors.board_rows, read once per board state: board_cache.py; ranked and narrowed by results.board,
the rules the API uses), pinned rows on top, the column preset's headers with their sort links, a pager, the paper's
rows in a section of their own, and the chart's top rows.

The URL keeps the page's whole state (BoardQuery), so a link shows what its sender saw, with or without
JavaScript; pages/leaderboard.js asks the same view for the board fragment instead of reloading the page.
"""
import heapq
import itertools
import math
from dataclasses import dataclass, fields, replace
from functools import partial
from urllib.parse import quote, urlencode

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.results import board
from leaderboard.results import selectors as results_selectors

from ..board_cache import board_cached, board_state

PAGE_SIZE = 100
CHART_ROWS = 20
MAX_PINS = 20
REVISION_CHARS = 12
FLAGGED = {"hidden": False, "show": None, "only": True}  # the page's values -> Filters.flagged
PRESETS = (("overview", "Overview"), ("categories", "Categories"), ("robustness", "Robustness & efficiency"),
           ("provenance", "Provenance"))
PRESET_SHORT = {"robustness": ("Robustness", " & efficiency")}  # phones show the first part
# Which way a column sorts first: best or most recent on top, smallest first for costs and sizes.
DESCENDING_FIRST = {"accuracy", "date", "test", "submitted"}


@dataclass(frozen=True)
class BoardQuery:
    """The page's state, as its URL keeps it (defaults are left out of URLs)."""

    benchmark: str = "mobile-mmlu"
    split: str = "validation"
    shots: int = 0
    search: str = ""
    flagged: str = "hidden"
    size_class: str = ""
    params_min: float | None = None
    params_max: float | None = None
    on_device: bool = False
    model_type: str = ""
    precision: str = ""
    include_reported: bool = False
    sort: str = "rank"
    columns: str = "overview"
    page: int = 1
    pins: tuple = ()

    def params(self, **changes) -> dict:
        state = replace(self, **changes)
        out = {}
        for f in fields(self):
            value = getattr(state, f.name)
            if value == f.default:
                continue
            name = "pin" if f.name == "pins" else f.name
            out[name] = (",".join(value) if isinstance(value, tuple) else "true" if value is True
                         else f"{value:g}" if isinstance(value, float) else str(value))
        return out

    def url(self, path, **changes) -> str:
        query = urlencode(self.params(**changes))
        return f"{path}?{query}" if query else path

    def filters(self) -> board.Filters:
        return board.Filters(size_class=self.size_class or None, on_device=self.on_device,
                             model_type=self.model_type or None, precision=self.precision or None,
                             flagged=FLAGGED[self.flagged], params_min=self.params_min, params_max=self.params_max)

    @property
    def drawer_filters(self) -> int:
        """How many filters of the drawer are set (it opens by itself when any is)."""
        return sum(bool(v) for v in (self.size_class, self.params_min is not None, self.params_max is not None,
                                     self.on_device, self.model_type, self.precision, self.include_reported))

    def api_url(self) -> str:
        """The same rows from the API, as CSV (pins and pages are the page's own)."""
        q = {"benchmark": self.benchmark, "split": self.split, "shots": self.shots, "format": "csv"}
        flagged = FLAGGED[self.flagged]
        if flagged is not None:
            q["flagged"] = "true" if flagged else "false"
        for name in ("size_class", "model_type", "precision", "search"):
            if getattr(self, name):
                q[name] = getattr(self, name)
        for name in ("params_min", "params_max"):
            if getattr(self, name) is not None:
                q[name] = f"{getattr(self, name):g}"
        if self.on_device:
            q["on_device"] = "true"
        if self.include_reported:
            q["include_reported"] = "true"
        if self.sort != "rank":
            q["sort"] = self.sort
        return f"{reverse('api-leaderboard')}?{urlencode(q)}"


def board_rows(*, benchmark, split, shots, state=""):
    return board_cached("board-rows", benchmark=benchmark, split=split, shots=shots, state=state,
                        build=lambda: results_selectors.board_rows(benchmark=benchmark, split=split, shots=shots))


def ranked(*, benchmark, split, shots, rows, filters, name="board", state=""):
    """The rows `filters` keep, ranked (results.board.rank), with the most accurate of them for the chart: kept
    in this process per board state and filters."""
    def build():
        out = board.rank(rows, filters=filters)
        return out, heapq.nsmallest(CHART_ROWS, (r for r in out.rows if r["accuracy"] is not None), key=_by_accuracy)

    return board_cached(f"{name}-ranked:{filters!r}", benchmark=benchmark, split=split, shots=shots, local=True,
                        state=state, build=build)


def _by_accuracy(row):
    return (-row["accuracy"], row["hub_id"].lower())


def categories(*, benchmark) -> list[tuple[str, str]]:
    """(slug, name) of the benchmark's categories in taxonomy order."""
    out = {}
    for t in sorted(bench_selectors.topic_index(benchmark=benchmark), key=lambda t: t.subcategory.category.order):
        out.setdefault(t.subcategory.category.slug, t.subcategory.category.name)
    return list(out.items())


# --- cells -------------------------------------------------------------------------------------------------------

def number(value, places=1, signed=False):
    if value is None:
        return "–"
    return f"{value:+.{places}f}" if signed else f"{value:.{places}f}"


def params_text(value) -> str:
    if value is None:
        return "–"
    return f"{value / 1e9:.{0 if value >= 1e10 else 1}f}B" if value >= 1e9 else f"{round(value / 1e6)}M"


def _date(value) -> str:
    return value.date().isoformat() if value else "–"


def _cell(text, cls="num", title=""):
    return {"text": text, "cls": cls, "title": title}


def _preset_cells(row, preset, *, sealed, category_slugs):
    if preset == "categories":
        return [_cell(number(row["categories"].get(slug))) for slug in category_slugs]
    if preset == "robustness":
        latency, memory = row["latency_s"], row["peak_memory_bytes"]
        return [_cell(number(row["order_spread"])),
                _cell(number(latency * 1000 if latency is not None else None, 0)),
                _cell(number(memory / 1e9 if memory is not None else None)),
                _cell(number(row["energy_j_per_question"], 2))]
    if preset == "provenance":
        template = (row["template"] or "–") + (" · chat" if row["chat_template"] else "")
        return [_cell((row["revision"] or "–")[:REVISION_CHARS], "mono", row["revision"] or ""),
                _cell(row["precision"] or "–", ""), _cell(template, ""), _cell(_date(row["submitted_at"]), ""),
                _cell(_date(row["scored_at"]), "")]
    cells = []
    if not sealed:
        grid = row["test_grid"]
        cells.append(_cell(number(row["test_accuracy"]), "num",
                           f"sealed test split, published on a {grid:g}-point grid" if grid else ""))
    flag = " ⚑" if row["possible_contamination"] else ""
    cells.append(_cell(number(row["delta"], signed=True) + flag, "num flag-text" if flag else "num",
                       "possible contamination: validation above test by more than 3 standard errors" if flag else ""))
    cells += [_cell(params_text(row["params"])), _cell(_date(row["scored_at"]), "")]
    return cells


def sort_links(query, columns, path):
    """Header cells for (key, label, sort, css class) columns: a link that sorts by the column (the other way when
    it is the current sort) and aria-sort on the sorted one."""
    current, descending = query.sort.lstrip("-"), query.sort.startswith("-")
    out = []
    for key, label, sort, cls in columns:
        if sort is None:
            out.append({"key": key, "label": label, "sort": "", "cls": cls, "aria_sort": None, "href": None})
            continue
        first = f"-{sort}" if sort in DESCENDING_FIRST or sort.startswith("category:") else sort
        if sort == current:
            target, aria = (sort, "descending") if descending else (f"-{sort}", "ascending")
        else:
            target, aria = first, None
        out.append({"key": key, "label": label, "sort": sort, "cls": cls, "aria_sort": aria,
                    "href": query.url(path, sort=target, page=1)})
    return out


def _headers(query, *, sealed, cats):
    fixed = [("rank", "Rank", "rank", "col-rank num"), ("model", "Model", "name", "col-model"),
             ("accuracy", "Accuracy (95% CI)", "accuracy", "col-acc num")]
    extra = {
        "overview": ([] if sealed else [("test", "Sealed test", "test", "num")])
        + [("delta", "Δ (pt)", "delta", "num"), ("params", "Params", "params", "num"),
           ("date", "Evaluated", "date", "")],
        "categories": ([] if sealed else
                       [(f"category:{slug}", name, f"category:{slug}", "num wrap") for slug, name in cats]),
        "robustness": [("spread", "Order spread (pt)", "spread", "num"),
                       ("latency", "Latency p50 (ms)", "latency", "num"),
                       ("memory", "Peak memory (GB)", "memory", "num"),
                       ("energy", "Energy (J/question)", "energy", "num")],
        "provenance": [("revision", "Revision", "revision", ""), ("precision", "Precision", "precision", ""),
                       ("template", "Template", "template", ""), ("submitted", "Submitted", "submitted", ""),
                       ("date", "Evaluated", "date", "")],
    }[query.columns]
    return sort_links(query, fixed + extra, reverse("leaderboard"))


FLAG_TITLES = {True: "possible contamination: validation above test by more than 3 standard errors",
               False: "flagged by an admin"}
TIE = mark_safe('<span class="tie" title="tied: not significantly different">=</span>')


def row_html(row, *, query, sealed, category_slugs, repeated, model_url, contamination_url, pinned=False,
             outside=False) -> str:
    """One table row, escaped: partials/board.html places 100 of them (built here, it takes a tenth of the time
    a template loop takes). repeated: hub ids with more than one row, whose rows name their precision."""
    places = 1 if sealed else 2
    lo, hi, hub = row["ci95_low"], row["ci95_high"], row["hub_id"]
    label, glyph, pressed = ("Unpin", "★", "true") if pinned else ("Pin", "☆", "false")
    rank = format_html("{}{}", "–" if row["rank"] is None else row["rank"], TIE if row["tied"] else "")
    notes = []
    if hub in repeated:
        notes.append(format_html(" <small>{}</small>", row["precision"]))
    if row["flagged"]:
        contamination = row["possible_contamination"]
        notes.append(format_html(' <a class="badge flag" href="{}" title="{}">⚑ {}</a>', contamination_url,
                                 FLAG_TITLES[contamination], "possible contamination" if contamination else "flagged"))
    if outside:
        notes.append(mark_safe(' <span class="badge">outside these filters</span>'))
    if row.get("ladder_note"):
        notes.append(format_html(' <small class="ladder-note">{}</small>', row["ladder_note"]))
    interval = (format_html('<small class="ci">{}–{}</small>', number(lo, places), number(hi, places))
                if lo is not None else "")
    cells = format_html_join("", '<td class="{}"{}>{}</td>', (
        (c["cls"], format_html(' title="{}"', c["title"]) if c["title"] else "", c["text"])
        for c in _preset_cells(row, query.columns, sealed=sealed, category_slugs=category_slugs)))
    return format_html(
        '<tr data-hub-id="{hub}"{cls}><td class="col-rank num"><input type="checkbox" class="pick needs-js" '
        'value="{hub}" aria-label="Compare {hub}"><button type="button" class="pin needs-js" data-pin="{hub}" '
        'aria-pressed="{pressed}" aria-label="{label} {hub}">{glyph}</button>{rank}</td>'
        '<th scope="row" class="col-model"><a href="{href}">{hub}</a>{notes}</th>'
        '<td class="col-acc num">{accuracy}{interval}</td>{cells}</tr>\n',
        hub=hub, cls=mark_safe(' class="pinned"') if pinned else "", pressed=pressed, label=label, glyph=glyph,
        rank=rank, href=f"{model_url}{quote(hub, safe='/')}/", notes=mark_safe("".join(notes)),
        accuracy=number(row["accuracy"], places), interval=interval, cells=cells)


# --- the page ----------------------------------------------------------------------------------------------------

def pager(query, count, path):
    """Links to the pages of `count` rows (PAGE_SIZE each) at `path`, keeping the query's state."""
    pages = max(1, math.ceil(count / PAGE_SIZE))
    page = min(query.page, pages)
    shown = sorted({1, pages, *range(max(1, page - 2), min(pages, page + 2) + 1)})
    links, last = [], 0
    for number in shown:
        if number > last + 1:
            links.append({"gap": True})
        links.append({"number": number, "current": number == page, "href": query.url(path, page=number)})
        last = number
    return {"page": page, "pages": pages, "links": links if pages > 1 else [],
            "previous": query.url(path, page=page - 1) if page > 1 else None,
            "next": query.url(path, page=page + 1) if page < pages else None}


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


def count_text(n, start, end, pins, search):
    if not n:
        return "No rows shown."
    what = f"{n:,} model{'s' if n != 1 else ''}" + (f" matching “{search}”" if search else "")
    text = f"Showing {start:,}–{end:,} of {what}" if n > end - start + 1 or start > 1 else f"Showing {what}"
    return text + (f", {pins} pinned above." if pins else ".")


def board_page(*, benchmark, query: BoardQuery, cats) -> dict:
    """Everything the board fragment (partials/board.html) shows; cats: categories(benchmark=...)."""
    sealed = query.split == "test"
    state = board_state(benchmark=benchmark, split=query.split, shots=query.shots)
    rows = board_rows(benchmark=benchmark, split=query.split, shots=query.shots, state=state)
    reported = (results_selectors.reported_rows(benchmark_slug=benchmark.slug, shots=query.shots)
                if query.include_reported else [])
    kept, best = ranked(benchmark=benchmark, split=query.split, shots=query.shots, rows=rows, state=state,
                        filters=query.filters())
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
        "headers": _headers(query, sealed=sealed, cats=cats),
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
                                   local=True, state=state,
                                   build=lambda: sorted({r["precision"] for r in rows if r["precision"]})),
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
