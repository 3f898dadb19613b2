"""Device speed reports as pages show them (issue 25): a GGUF file's device table and chart on its model page, beside
the server's cost profile and never mixed into it, and the "what runs well on my phone" board. Every table and chart
says how many reports it counts and their spread (lowest–highest), and that they come from people's own devices."""
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from leaderboard.devices import selectors

LABEL = "reported by people measuring on their own devices with llama-bench: not measured by this server"
OUTLIER_NOTE = ("A report more than 3× away from the median of the same file and device is an outlier: left out of "
                "the medians until an admin accepts it.")


def _rate(value) -> str:
    return "–" if value is None else f"{value:,.1f}"


def spread(row, kind: str) -> str:
    """'a–b' of a kind's reports (one report: its figure), or '–'."""
    low, high = row[f"{kind}_min"], row[f"{kind}_max"]
    if low is None:
        return "–"
    return _rate(low) if low == high else f"{_rate(low)}–{_rate(high)}"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _ram(values) -> str:
    return ", ".join(f"{v:g} GB" for v in values) or "–"


def table_row(row) -> dict:
    """A device table's row as shown: medians, the number of reports, their spread, and what they were measured with."""
    return {**row, "pp": _rate(row["pp_median"]), "tg": _rate(row["tg_median"]), "pp_spread": spread(row, "pp"),
            "tg_spread": spread(row, "tg"), "reports_text": _plural(row["reports"], "report"),
            "chips_text": ", ".join(row["chips"]) or "–", "ram_text": _ram(row["ram_gb"]),
            "builds_text": ", ".join(row["builds"]) or "–", "tests_text": " · ".join(row["tests"]) or "–"}


def _summary(rows, reports: int) -> str:
    if not reports:
        return "No counted report yet: nothing to draw."
    shown = [r for r in rows if r["tg_median"] is not None]
    parts = [f"{r['device']}: median {_rate(r['tg_median'])} tokens/s ({_plural(r['reports'], 'report')}, "
             f"{spread(r, 'tg')})" for r in shown[:6]]
    more = f"; and {len(shown) - 6} more devices" if len(shown) > 6 else ""
    return f"Generation speed on {_plural(len(shown), 'device')}, fastest first: {'; '.join(parts)}{more}."


def file_section(*, model, facts) -> dict | None:
    """The device table and chart of the GGUF file a run loaded (`facts`: gguf_make.file_facts), or None for a
    checkpoint's run or a file not made yet."""
    if model is None or not facts or not facts.get("sha256"):
        return None
    rows = [table_row(r) for r in selectors.device_table(model_id=model.pk, sha256=facts["sha256"])]
    reports, outliers = sum(r["reports"] for r in rows), sum(r["outliers"] for r in rows)
    query = urlencode({"hub_id": model.hub_id, "sha256": facts["sha256"]})
    return {
        "rows": rows, "reports": reports, "outliers": outliers, "label": LABEL, "outlier_note": OUTLIER_NOTE,
        "count_text": f"{_plural(reports, 'report')} from {_plural(sum(1 for r in rows if r['reports']), 'device')}"
                      + (f"; {_plural(outliers, 'outlier')} left out until reviewed" if outliers else ""),
        "upload_url": f"{reverse('device-report-upload')}?{query}",
        "csv_url": f"{reverse('api-device-speeds')}?{query}&format=csv",
        "summary": _summary(rows, reports),
        "empty": None if reports else "No counted report from a device yet: upload one to start the chart.",
        "chart": {"devices": [{"name": r["device"], "median": r["tg_median"], "values": r["tg_values"],
                               "outliers": r["outlier_tg_values"], "n": r["reports"], "spread": r["tg_spread"]}
                              for r in rows if r["tg_values"] or r["outlier_tg_values"]],
                  "label": LABEL},
    }


@dataclass(frozen=True)
class BoardQuery:
    benchmark: str
    shots: int
    device: str = ""
    ram_gb: float | None = None
    min_accuracy: float | None = None


def device_choices(query: BoardQuery) -> dict:
    """The filters' options: the devices and RAM sizes reported (with each device's count of reports)."""
    return {"devices": [{**d, "selected": d["key"] == " ".join(query.device.casefold().split())}
                        for d in selectors.devices()],
            "ram_sizes": [{"value": f"{v:g}", "selected": v == query.ram_gb} for v in selectors.ram_sizes()]}


def board_rows(board) -> list[dict]:
    return [{**row, "tg": _rate(row["tg_median"]), "pp": _rate(row["pp_median"]), "tg_spread": spread(row, "tg"),
             "reports_text": _plural(row["reports"], "report"), "devices_text": _plural(row["devices"], "device"),
             "ram_text": _ram(row["ram_gb"]), "builds_text": ", ".join(row["builds"]) or "–"} for row in board.rows]


def board_scope(query: BoardQuery, names: dict) -> str:
    """Which devices the board's speeds are of, in words."""
    device = names.get(" ".join(query.device.casefold().split()), query.device)
    ram = f"{query.ram_gb:g} GB of RAM" if query.ram_gb is not None else ""
    if device and ram:
        return f"{device} with {ram}"
    return device or (f"devices with {ram}" if ram else "every device reported")


def board_chart(rows, scope: str) -> dict:
    return {"points": [{"hub": r["hub_id"], "file": r["file"], "quant": r["quantization"], "gen": r["tg_median"],
                        "acc": r["accuracy"], "lo": r["ci95_low"], "hi": r["ci95_high"], "n": r["reports"],
                        "pareto": r["pareto"]} for r in rows], "scope": scope, "label": LABEL}


def board_summary(rows, scope: str) -> str:
    """The per-device chart in words: the fastest files and the frontier."""
    if not rows:
        return ""
    fastest = "; ".join(f"{r['file']}: {_rate(r['tg_median'])} tokens/s ({_plural(r['reports'], 'report')}), "
                        f"{r['accuracy']:.2f}% accurate" for r in rows[:3])
    frontier = ", ".join(r["file"] for r in rows if r["pareto"])
    return f"{_plural(len(rows), 'file')} measured on {scope}, fastest first: {fastest}. Pareto frontier: {frontier}."
