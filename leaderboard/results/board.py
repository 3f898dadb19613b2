"""The board's rows after reading: filters, significance ranks, search and sort (no database access here).

selectors.board_rows reads every measured row of a board with all its columns; the API and the pages then
narrow them with `view`, so the filtering and ranking rules live in one place. Ranks are computed among the
rows the filters keep (the name search and the model list do not change them). The paper's reported rows are
never ranked: they come back in a list of their own.
"""
from dataclasses import dataclass, field

from .ranking import significance_ranks

ON_DEVICE_MAX_PARAMS = 3_000_000_000
SIZE_CLASSES = ("mini", "small", "medium", "large")


@dataclass(frozen=True)
class Filters:
    """What narrows a board. flagged: None keeps every row, False hides flagged rows, True keeps only them.
    params_min / params_max: billions of parameters, inclusive."""

    size_class: str | None = None
    on_device: bool = False
    model_type: str | None = None
    precision: str | None = None
    flagged: bool | None = None
    params_min: float | None = None
    params_max: float | None = None

    @property
    def on_model_facts(self) -> bool:
        """Does a filter read a fact the paper's rows do not have (parameters, type, precision)?"""
        return bool(self.size_class or self.on_device or self.model_type or self.precision
                    or self.params_min is not None or self.params_max is not None)

    def keep(self, row, *, flagged=True) -> bool:
        params = row["params"]
        if self.size_class and row["size_class"] != self.size_class:
            return False
        if self.on_device and (params is None or params > ON_DEVICE_MAX_PARAMS):
            return False
        if self.params_min is not None and (params is None or params < self.params_min * 1e9):
            return False
        if self.params_max is not None and (params is None or params > self.params_max * 1e9):
            return False
        if self.model_type and row["model_type"] != self.model_type:
            return False
        if self.precision and row["precision"] != self.precision:
            return False
        return not flagged or self.flagged is None or row["flagged"] == self.flagged


def _sort_key(name):
    """Row -> sortable value (None: the row has no such figure)."""
    if name.startswith("category:"):
        slug = name.split(":", 1)[1]
        return lambda r: (r.get("categories") or {}).get(slug)
    return {"rank": lambda r: r["rank"], "accuracy": lambda r: r["accuracy"], "name": lambda r: r["hub_id"].lower(),
            "params": lambda r: r["params"], "date": lambda r: r["scored_at"], "test": lambda r: r.get("test_accuracy"),
            "delta": lambda r: r.get("delta"), "spread": lambda r: r.get("order_spread"),
            "latency": lambda r: r.get("latency_s"), "memory": lambda r: r.get("peak_memory_bytes"),
            "energy": lambda r: r.get("energy_j_per_question"), "precision": lambda r: r["precision"],
            "revision": lambda r: r["revision"], "template": lambda r: r.get("template"),
            "submitted": lambda r: r.get("submitted_at")}.get(name)


SORT_NAMES = ("rank", "accuracy", "name", "params", "date", "test", "delta", "spread", "latency", "memory", "energy",
              "precision", "revision", "template", "submitted")


def sort_names(categories=()) -> list[str]:
    """Every sort a board accepts (each also with a leading '-' for descending)."""
    return list(SORT_NAMES) + [f"category:{slug}" for slug in categories]


def board_order(row):
    """The board's order within a rank: most accurate first, then by name. selectors.board_rows returns rows in
    this order, so ranking keeps it and a sort by rank is one stable sort on a number."""
    return (-(row["accuracy"] or 0), row["hub_id"].lower(), row["precision"])


def sort_rows(rows, sort="rank"):
    """Sorted by `sort` ('-' first: descending); rows without that figure last either way; ties in board order
    (rank, then accuracy, then name). `rows` are in board order within each rank (as `rank` returns them)."""
    name, descending = sort.lstrip("-"), sort.startswith("-")
    key = _sort_key(name) or _sort_key("rank")
    by_rank = sorted(rows, key=lambda r: r["rank"] or 0)  # already so when they come from `rank`: linear
    if name == "rank":
        return by_rank[::-1] if descending else by_rank
    known = [r for r in by_rank if key(r) is not None]
    known.sort(key=key, reverse=descending)  # stable: ties keep the board's order
    return known + [r for r in by_rank if key(r) is None]


@dataclass
class Ranked:
    """The rows the filters keep, ranked among themselves, in rank order (board order within a rank)."""

    rows: list[dict]
    total: int  # measured rows on the board
    flagged_hidden: int  # rows the filters would keep but for being flagged
    filters: Filters
    by_hub: dict = field(default_factory=dict)  # hub id (lower case) -> its ranked rows


@dataclass
class View:
    rows: list[dict]  # measured rows kept, ranked, searched and sorted
    reported: list[dict]  # the paper's rows (unranked), when asked for and not excluded by a model-fact filter
    ranked: int  # rows the ranks are computed among (before the search)
    total: int  # measured rows on the board
    flagged_hidden: int  # rows the filters would keep but for being flagged
    reported_excluded: bool = False  # paper rows asked for but left out: a filter reads facts they do not have
    by_hub: dict = field(default_factory=dict)  # hub id (lower case) -> its ranked rows, before the search
    by_rank: list = field(default_factory=list)  # `rows` in rank order (board order within a rank)


def _matches(row, search, models):
    hub = row["hub_id"].lower()
    return (not search or search.lower() in hub) and (not models or hub in models)


def rank(rows, *, filters=Filters()) -> Ranked:
    """The rows `filters` keep, with their significance rank among themselves (new dicts: `rows`, from
    selectors.board_rows in board order, are not modified). What a page may keep per filter state."""
    kept, flagged_hidden = [], 0
    for row in rows:
        if filters.keep(row, flagged=False):
            if filters.flagged is None or row["flagged"] == filters.flagged:
                kept.append(row)
            elif row["flagged"]:
                flagged_hidden += 1
    ranks = significance_ranks([row["_cell"] for row in kept])
    counts = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    ranked = sorted(({**row, "rank": r, "tied": counts[r] > 1} for row, r in zip(kept, ranks)),
                    key=lambda row: row["rank"])
    by_hub = {}
    for row in ranked:
        by_hub.setdefault(row["hub_id"].lower(), []).append(row)
    return Ranked(rows=ranked, total=len(rows), flagged_hidden=flagged_hidden, filters=filters, by_hub=by_hub)


def narrow(ranked: Ranked, *, reported=(), search=None, models=(), sort="rank") -> View:
    """A ranked board searched (by name or hub ids: ranks unchanged) and sorted, with the paper's rows beside it."""
    models = {m.lower() for m in models or ()}
    shown = ranked.rows if not (search or models) else [row for row in ranked.rows if _matches(row, search, models)]
    filters = ranked.filters
    excluded = bool(reported) and (filters.on_model_facts or filters.flagged is True)
    paper = [] if excluded else [{**r, "rank": None, "tied": False} for r in reported if _matches(r, search, models)]
    paper.sort(key=lambda r: (-(r["accuracy"] or 0), r["hub_id"].lower()))
    return View(rows=sort_rows(shown, sort), reported=paper, ranked=len(ranked.rows), total=ranked.total,
                flagged_hidden=ranked.flagged_hidden, reported_excluded=excluded, by_hub=ranked.by_hub,
                by_rank=shown)


def view(rows, *, filters=Filters(), reported=(), search=None, models=(), sort="rank") -> View:
    """The board as a reader asked for it: rank, then narrow. `rows` (from selectors.board_rows) are not modified."""
    return narrow(rank(rows, filters=filters), reported=reported, search=search, models=models, sort=sort)
