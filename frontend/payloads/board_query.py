"""The leaderboard page's state as its URL keeps it (BoardQuery), and the links made from it: the column headers'
sort links, the pager and the count of the rows shown. The topic page's table uses them too."""
import math
from dataclasses import dataclass, fields, replace
from urllib.parse import urlencode

from django.urls import reverse

from leaderboard.results import board

PAGE_SIZE = 100
MAX_PINS = 20
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


def sort_links(query, columns, path, descending_first=DESCENDING_FIRST):
    """Header cells for (key, label, sort, css class) columns: a link that sorts by the column (the other way when
    it is the current sort) and aria-sort on the sorted one; the sorts in descending_first go best first."""
    current, descending = query.sort.lstrip("-"), query.sort.startswith("-")
    out = []
    for key, label, sort, cls in columns:
        if sort is None:
            out.append({"key": key, "label": label, "sort": "", "cls": cls, "aria_sort": None, "href": None})
            continue
        first = f"-{sort}" if sort in descending_first or sort.startswith("category:") else sort
        if sort == current:
            target, aria = (sort, "descending") if descending else (f"-{sort}", "ascending")
        else:
            target, aria = first, None
        out.append({"key": key, "label": label, "sort": sort, "cls": cls, "aria_sort": aria,
                    "href": query.url(path, sort=target, page=1)})
    return out


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


def count_text(n, start, end, pins, search, noun="model"):
    if not n:
        return "No rows shown."
    what = f"{n:,} {noun}{'s' if n != 1 else ''}" + (f" matching “{search}”" if search else "")
    text = f"Showing {start:,}–{end:,} of {what}" if n > end - start + 1 or start > 1 else f"Showing {what}"
    return text + (f", {pins} pinned above." if pins else ".")
