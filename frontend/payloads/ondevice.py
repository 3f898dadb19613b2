"""The On-device board page (/leaderboard/on-device/): the board's On-device column set, a row per GGUF file of the open
validation split (leaderboard.boards.ondevice: the rows, filters, sorts and Pareto frontiers the API serves), read
once per board state (board_cache.py), with the two Pareto charts' data and their text summaries.

The URL keeps the page's state (OnDeviceQuery), so a link shows what its sender saw, with or without JavaScript.
"""
from dataclasses import dataclass, fields, replace
from urllib.parse import urlencode

from django.urls import reverse

from leaderboard.boards import ondevice
from leaderboard.demo.real_model import LABEL as DEMO_REAL_LABEL
from leaderboard.demo.real_model import demo_real_model, label_note

from ..board_cache import board_cached
from .board_query import FLAGGED, PAGE_SIZE, PRESETS, count_text, pager, sort_links
from .leaderboard import board_rows

COLUMNS = [("file", "File", "name", "col-model"), ("quantization", "Quantization", "quantization", ""),
           ("size", "Size (GB)", "size", "num"), ("accuracy", "Accuracy (95% CI)", "accuracy", "num"),
           ("change", "Change vs 16-bit (pt)", "change", "num"), ("flips", "Flip rate (%)", "flips", "num"),
           ("prompt", "Prompt tokens/s", "prompt", "num"), ("gen", "Generation tokens/s", "gen", "num"),
           ("ttft", "Time to first token (s)", "ttft", "num"), ("memory", "Peak memory (GB)", "memory", "num")]
MAX_COMPARE = 8  # the compare page's limit


@dataclass(frozen=True)
class OnDeviceQuery:
    """The page's state, as its URL keeps it (defaults are left out of URLs)."""

    benchmark: str = "mobile-mmlu"
    shots: int = 0
    quantization: tuple = ()
    fits_gb: float | None = None
    search: str = ""
    sort: str = ondevice.DEFAULT_SORT
    flagged: str = "hidden"  # as the board's page: hidden, show or only (flagged files, marked)
    page: int = 1

    def params(self, **changes) -> dict:
        state, out = replace(self, **changes), {}
        for f in fields(self):
            value = getattr(state, f.name)
            if value != f.default:
                out[f.name] = (",".join(value) if isinstance(value, tuple) else f"{value:g}"
                               if isinstance(value, float) else str(value))
        return out

    def url(self, path, **changes) -> str:
        query = urlencode(self.params(**changes))
        return f"{path}?{query}" if query else path

    def filters(self) -> ondevice.Filters:
        return ondevice.Filters(quantization=self.quantization, fits_gb=self.fits_gb, flagged=FLAGGED[self.flagged])

    def api_url(self) -> str:
        """The same rows from the API, as CSV (the page's own paging left out; flagged files when the page shows
        them)."""
        params = self.params(page=1, flagged="hidden")
        if self.flagged != "hidden":
            params["include_flagged"] = "true"
        return f"{reverse('api-leaderboard-on-device')}?{urlencode({**params, 'format': 'csv'})}"


def file_rows(*, benchmark, shots) -> list[dict]:
    """The board's GGUF rows with the On-device columns, built once per board state from the board's cached rows."""
    def build():  # reads the rows itself: it may run after the response (board_cache.py)
        rows = board_rows(benchmark=benchmark, split=ondevice.OPEN_SPLIT, shots=shots)
        return ondevice.ondevice_rows(benchmark=benchmark, shots=shots, rows=rows)

    return board_cached("ondevice-rows", benchmark=benchmark, split=ondevice.OPEN_SPLIT, shots=shots, build=build)


def _gb(value):
    return None if value is None else value / ondevice.GB


def gb_text(value) -> str:
    """Bytes in GB to the hundredth; under 0.1 GB to three significant figures (a tiny demo file reads 0.000594,
    not 0.00)."""
    if value is None:
        return "–"
    gb = _gb(value)
    return f"{gb:.2f}" if gb >= 0.1 else f"{gb:.3g}"


def _point(row) -> dict:
    return {"hub": row["hub_id"], "file": row["file"] or row["hub_id"], "quant": row["quantization"],
            "gb": _gb(row["file_bytes"]), "gen": ondevice.trusted_speed(row), "acc": row["accuracy"],
            "lo": row["ci95_low"], "hi": row["ci95_high"], "flagged": row["flagged"]}


def chart(view) -> dict:
    """The charts' points (the rows the filters keep: a search narrows the table, not the frontier) and each
    frontier as indices into them, in drawing order."""
    index = {r["run_id"]: i for i, r in enumerate(view.kept)}
    return {"points": [_point(r) for r in view.kept], "size": [index[k] for k in view.frontier_size],
            "speed": [index[k] for k in view.frontier_speed], "labels": labels(view.kept),
            "size_note": ondevice.FRONTIER_NOTE.format(better="smaller"),
            "speed_note": ondevice.FRONTIER_NOTE.format(better="faster")}


def labels(rows) -> list[str]:
    """The cost profiles' labels of these rows ("measured on a server CPU with N threads: a proxy, not a phone")."""
    return sorted({r["profile_label"] for r in rows if r["profile_label"]})


def _named(rows, keys, figure):
    by_run = {r["run_id"]: r for r in rows}
    return "; ".join(f"{by_run[k]['file'] or by_run[k]['hub_id']} ({figure(by_run[k])}, {by_run[k]['accuracy']:.1f}%)"
                     for k in keys if k in by_run)


def summaries(view) -> dict:
    """The text beside each chart: what it shows and which files are on its frontier."""
    rows = view.kept
    sized = [r for r in rows if r["file_bytes"] is not None and r["accuracy"] is not None]
    timed = [r for r in rows if ondevice.trusted_speed(r) is not None and r["accuracy"] is not None]
    noisy = sum(r["profile_reliable"] is False for r in rows)
    size = (f"{len(sized)} file{'s' if len(sized) != 1 else ''} by size and accuracy. "
            + ondevice.FRONTIER_NOTE.format(better="smaller") + ": "
            + _named(rows, view.frontier_size, lambda r: f"{gb_text(r['file_bytes'])} GB") + ".") if sized else ""
    unplaced = len(rows) - len(timed) - noisy
    speed = (f"{len(timed)} file{'s' if len(timed) != 1 else ''} by generation speed and accuracy, speeds "
             + " / ".join(labels(timed)) + ". " + ondevice.FRONTIER_NOTE.format(better="faster") + ": "
             + _named(rows, view.frontier_speed, lambda r: f"{r['gen_tokens_per_s']:.1f} tokens/s") + "."
             + (f" {unplaced} file{'s have' if unplaced != 1 else ' has'} no cost profile and "
                f"{'are' if unplaced != 1 else 'is'} not placed." if unplaced else "")
             + (f" {noisy} file{'s have' if noisy != 1 else ' has'} an unreliable cost profile (noisy after "
                "re-measuring) and " + ("are" if noisy != 1 else "is") + " not placed." if noisy else "")) \
        if timed else ""
    return {"size": size, "speed": speed}


def empties(view, *, total) -> dict:
    """Why a chart is not drawn, when it cannot be: no file at all, none the filters keep, none profiled."""
    if not total:
        nothing = ("No GGUF file has been evaluated on this board yet: submit one (a repository and its .gguf "
                   "file) and it appears here once scored.")
        return {"size": nothing, "speed": nothing}
    if not view.kept:
        return {"size": "No file matches these filters.", "speed": "No file matches these filters."}
    out = {"size": "", "speed": ""}
    if not any(ondevice.trusted_speed(r) is not None and r["accuracy"] is not None for r in view.kept):
        out["speed"] = ("No file shown has a reliable cost profile yet (the GPU worker measures it after predicting; "
                        "a noisy one is not charted), so there is no generation speed to chart.")
    return out


def presets(query) -> list[dict]:
    """The board's column sets, this one current: the others link back to the board with the same benchmark and
    shots (the board's own column-set links)."""
    path, board = reverse("leaderboard"), {"benchmark": query.benchmark, "shots": query.shots}
    out = []
    for key, label in PRESETS:
        params = {k: v for k, v in {**board, "columns": key}.items() if v not in ("mobile-mmlu", 0, "overview")}
        out.append({"label": label, "href": f"{path}?{urlencode(params)}" if params else path, "current": False})
    return out + [{"label": "On-device", "href": query.url(reverse("leaderboard-on-device"), page=1),
                   "current": True}]


def demo_label(hub_id: str, revision: str) -> dict | None:
    """The label of the demo's real model ({text, note}), on its row and its page; None for every other file."""
    model = demo_real_model(hub_id, revision)
    return {"text": DEMO_REAL_LABEL, "note": label_note(model)} if model else None


def page_rows(rows) -> list[dict]:
    """The table's rows with their compare link (the file against its 16-bit model, where it has one) and the demo's
    label of a real model's file."""
    compare = reverse("compare")
    return [{**r, "size_gb": gb_text(r["file_bytes"]), "rss_gb": gb_text(r["peak_rss_bytes"]),
             "compare_url": f"{compare}?{urlencode({'models': ','.join([r['hub_id'], r['base_hub_id']])})}"
             if r["base_hub_id"] else "", "demo_real": demo_label(r["hub_id"], r["revision"])} for r in rows]


def ondevice_page(*, benchmark, query: OnDeviceQuery, rows) -> dict:
    """Everything the page shows; rows: file_rows(...) (the query's quantizations are checked against them)."""
    view = ondevice.view(rows, filters=query.filters(), search=query.search, sort=query.sort)
    path = reverse("leaderboard-on-device")
    pages = pager(query, len(view.rows), path)
    start = (pages["page"] - 1) * PAGE_SIZE
    shown = view.rows[start:start + PAGE_SIZE]
    compare = [r["hub_id"] for r in view.rows[:MAX_COMPARE]]
    return {
        "query": query, "presets": presets(query), "pager": pages, "total": view.total, "kept": len(view.kept),
        "headers": sort_links(query, COLUMNS, path, descending_first=ondevice.DESCENDING_FIRST),
        "rows": page_rows(shown), "labels": labels(view.rows), "quantizations": ondevice.quantizations(rows),
        "count_text": count_text(len(view.rows), start + 1, start + len(shown), 0, query.search, noun="file"),
        "flagged_hidden": view.flagged_hidden, "show_flagged_url": query.url(path, flagged="show", page=1),
        "hide_flagged_url": query.url(path, flagged="hidden", page=1),
        "csv_url": query.api_url(), "chart": chart(view), "summaries": summaries(view),
        "empty": empties(view, total=view.total),
        "compare_url": f"{reverse('compare')}?{urlencode({'models': ','.join(compare)})}" if compare else "",
        "notes": {"open": ondevice.OPEN_SPLIT_NOTE, "fits": ondevice.FITS_NOTE},
        "caption": f"{benchmark.name}, validation split, {query.shots}-shot: GGUF files, one row each",
    }
