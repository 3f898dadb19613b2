"""The board table's cells: the column preset's headers and one escaped HTML row per board row."""
from urllib.parse import quote

from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from .board_query import sort_links

REVISION_CHARS = 12


def number(value, places=1, signed=False):
    if value is None:
        return "–"
    return f"{value:+.{places}f}" if signed else f"{value:.{places}f}"


def params_text(value) -> str:
    """2_000_000_000 -> "2.0B", 350_000_000 -> "350M", 139_648 -> "140K" (the demo's tiny models, not "0M"); the
    pages' `params` filter too."""
    if value in (None, ""):
        return "–"
    value = int(value)
    if value >= 1_000_000_000:
        return f"{value / 1e9:.{0 if value >= 1e10 else 1}f}B"
    if value >= 999_500:
        return f"{round(value / 1e6)}M"
    return f"{round(value / 1e3)}K"


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


def headers(query, *, sealed, cats):
    """The header cells of the query's column preset, with their sort links."""
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
