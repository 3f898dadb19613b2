"""Device speed reports as pages show them (issue 25): a GGUF file's device table and chart on its model page, beside
the server's cost profile and never mixed into it, and the "what runs well on my phone" board. Every table and chart
says how many people confirm a figure and its spread (lowest–highest vote), and that they come from people's own
devices; unconfirmed figures are listed apart, labelled, and never drawn or ranked."""
from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from leaderboard.devices import phone_figures, selectors

from ..board_cache import generation_cached

LABEL = "reported by people measuring on their own devices with llama-bench: not measured by this server"
OUTLIER_NOTE = ("Each account counts once (the median of its reports), weighed by what it cost to make (a confirmed "
                "address, its age, agreement before); a device's figure is the weighted median of the heaviest group "
                "of people within 3× of one another, confirmed when two or more agree and outweigh twice what "
                "disagrees. Every vote is judged again when one arrives: a person outside the figure's band is an "
                "outlier, left out until an admin accepts it.")
UNCONFIRMED_NOTE = ("Not confirmed yet: no second person's reports agree within 3×, or the votes disagree (disputed: "
                    "the figure of the heavier side, with the spread of every vote). Shown apart, never ranked and "
                    "never in a median elsewhere.")


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


def _people(n: int) -> str:
    return "1 person" if n == 1 else f"{n:,} people"


def confirmed_text(row) -> str:
    if row.get("disputed") and not row["confirmed"]:
        return (f"disputed: {_people(row['people'])} agree, {row['dissenting']:,} disagree (votes "
                f"{_rate(row['every_tg_min'])}–{_rate(row['every_tg_max'])} tokens/s)")
    return f"confirmed by {_people(row['confirmed_by'])}" if row["confirmed"] else \
        f"unconfirmed: {_people(row['people'])}"


def _seconds(value) -> str:
    return "–" if value is None else f"{value:,.2f} s" if value < 10 else f"{value:,.1f} s"


def _bytes(value) -> str:
    return "–" if value is None else f"{value / 2**30:,.2f} GiB" if value >= 2**30 else f"{value / 2**20:,.0f} MiB"


def ttft_text(row) -> str:
    """'1.42 s derived (from pp 300.0 tokens/s)'; the measured figure beside it where a report ran the length."""
    if row["ttft_derived_s"] is None and row["ttft_measured_s"] is None:
        return "–"
    parts = [f"{_seconds(row['ttft_derived_s'])} derived (from prompt {_rate(row['pp_median'])} tokens/s)"] \
        if row["ttft_derived_s"] is not None else []
    if row["ttft_measured_s"] is not None:
        parts.append(f"{_seconds(row['ttft_measured_s'])} measured ({_people(row['ttft_measured_people'])}, "
                     f"pp{row['prompt_tokens']})")
    return "; ".join(parts)


def sustained_text(row) -> str:
    drop = row["tg_sustained_drop"]
    if drop is None:
        return f"– (no report with -r {phone_figures.SUSTAINED_MIN_REPETITIONS} or more)"
    change = f"{-drop:+.0%}".replace("-", "−")
    return f"{change} first → last repetition ({_people(row['tg_sustained_people'])})"


FIT_WORDS = {phone_figures.FITS: "fits", phone_figures.TIGHT: "tight: over an app's share, within the RAM",
             phone_figures.TOO_BIG: "does not fit", phone_figures.UNKNOWN: "unknown"}


def fit_text(row) -> str:
    if row["fit"] == phone_figures.UNKNOWN:
        return "unknown: " + ("no RAM reported" if row["file_bytes"] else "the file's size is not known")
    need = _bytes(row["memory_need_bytes"]) + ("" if row["kv_cache_bytes"] is not None else " (file only: KV cache "
                                                                                           "not known)")
    return (f"{FIT_WORDS[row['fit']]}: {need} of {_bytes(row['app_budget_bytes'])} "
            f"({row['app_ram_share']:.0%} of {row['fit_ram_gb']:g} GB)")


def build_rows(row) -> list[dict]:
    return [{**b, "tg": _rate(b["tg_median"]), "pp": _rate(b["pp_median"]), "ttft": _seconds(b["ttft_derived_s"]),
             "people_text": _people(b["people"]), "reports_text": _plural(b["reports"], "report"),
             "number_text": f"b{b['build_number']}" if b["build_number"] else "–"} for b in row["build_medians"]]


def feel_notes(rows, *, one_file: bool = True) -> dict:
    """What each felt figure is, said once above its table: of one file (its page), or of each file (the board)."""
    first = rows[0] if rows and one_file else None
    tokens, source = (first["prompt_tokens"], first["prompt_tokens_source"]) if first else \
        (phone_figures.PUBLISHED_MEDIAN_PROMPT_TOKENS, phone_figures.SOURCE_PUBLISHED)
    prompt = (f"{tokens:,} tokens ({phone_figures.PROMPT_SOURCES[source]})" if first else
              "in each file's own tokens (its server cost profile; where it has none, "
              f"{phone_figures.PUBLISHED_MEDIAN_PROMPT_TOKENS} tokens of the published shapes)")
    kv = first and first["kv_cache_bytes"]
    if not first:
        cache = ("its KV cache at the profile's context (layers × KV heads × (key + value length) × 2 bytes, f16, "
                 "from the GGUF header; where those facts were not stored, the file alone is counted)")
    elif kv:
        cache = (f"its KV cache at the profile's context ({first['kv_context']:,} tokens: {_bytes(kv)}, layers × KV "
                 "heads × (key + value length) × 2 bytes, f16, from the GGUF header)")
    else:
        cache = (f"its KV cache at the profile's context ({first['kv_context']:,} tokens), whose size is not known: "
                 "the file's GGUF header facts were not stored, so only the file is counted")
    share = phone_figures.APP_RAM_SOURCE
    return {
        "ttft": (f"Time to first token at the benchmark's median prompt, {prompt}: derived, the prompt tokens / the "
                 "device's prompt speed (one prefill, at llama-bench's pp rate for another length: an "
                 "approximation); measured where a report ran llama-bench -p with exactly that length."),
        "sustained": ("Sustained: the change of generation tokens/s from the first to the last repetition of "
                      "llama-bench (samples_ts), from reports with at least "
                      f"{phone_figures.SUSTAINED_MIN_REPETITIONS} repetitions; a phone slows as it heats."),
        "fit": (f"Fits: the file's bytes plus {cache}, against the smallest RAM reported; {share}."),
    }


def table_row(row) -> dict:
    """A device table's row as shown: medians, the number of reports, their spread, and what they were measured with."""
    return {**row, "pp": _rate(row["pp_median"]), "tg": _rate(row["tg_median"]), "pp_spread": spread(row, "pp"),
            "tg_spread": spread(row, "tg"), "reports_text": _plural(row["reports"], "report"),
            "confirmed_text": confirmed_text(row),
            "chips_text": ", ".join(row["chips"]) or "–", "ram_text": _ram(row["ram_gb"]),
            "builds_text": ", ".join(row["builds"]) or "–", "tests_text": " · ".join(row["tests"]) or "–",
            "ttft_text": ttft_text(row), "sustained_text": sustained_text(row), "fit_text": fit_text(row),
            "build_rows": build_rows(row)}


def _summary(rows) -> str:
    shown = [r for r in rows if r["tg_median"] is not None]
    if not shown:
        return "No confirmed figure yet: nothing to draw."
    parts = [f"{r['device']}: median {_rate(r['tg_median'])} tokens/s ({r['confirmed_text']}, "
             f"{spread(r, 'tg')})" for r in shown[:6]]
    more = f"; and {len(shown) - 6} more devices" if len(shown) > 6 else ""
    return f"Generation speed on {_plural(len(shown), 'device')}, fastest first: {'; '.join(parts)}{more}."


def file_section(*, model, facts) -> dict | None:
    """The device table and chart of the GGUF file a run loaded (`facts`: gguf_make.file_facts), or None for a
    checkpoint's run or a file not made yet."""
    if model is None or not facts or not facts.get("sha256"):
        return None
    table = generation_cached(f"device-table|{model.pk}|{facts['sha256']}",
                              lambda: selectors.device_table(model_id=model.pk, sha256=facts["sha256"]))
    every = [table_row(r) for r in table]
    rows, unconfirmed = [r for r in every if r["confirmed"]], [r for r in every if not r["confirmed"]]
    reports, outliers = sum(r["reports"] for r in every), sum(r["outliers"] for r in every)
    query = urlencode({"hub_id": model.hub_id, "sha256": facts["sha256"]})
    return {
        "rows": rows, "unconfirmed": unconfirmed, "reports": reports, "outliers": outliers, "label": LABEL,
        "feel": feel_notes(every),
        "outlier_note": OUTLIER_NOTE, "unconfirmed_note": UNCONFIRMED_NOTE,
        "count_text": f"{_plural(reports, 'report')} from {_plural(len(every), 'device')}, "
                      f"{_plural(len(rows), 'device')} confirmed"
                      + (f"; {_plural(outliers, 'outlier')} left out until reviewed" if outliers else ""),
        "upload_url": f"{reverse('device-report-upload')}?{query}",
        "csv_url": f"{reverse('api-device-speeds')}?{query}&format=csv",
        "summary": _summary(rows),
        "empty": None if rows else "No confirmed figure from a device yet: a device's figure is drawn once two people "
                                   "agree.",
        "chart": {"devices": [{"name": r["device"], "median": r["tg_median"], "values": r["tg_values"],
                               "outliers": r["outlier_tg_values"], "n": r["confirmed_by"], "spread": r["tg_spread"]}
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
             "confirmed_text": f"confirmed by {_people(row['confirmed_by'])}",
             "ram_text": _ram(row["ram_gb"]), "builds_text": ", ".join(row["builds"]) or "–",
             "ttft_text": ttft_text(row), "sustained_text": sustained_text(row),
             **short_figures(row)} for row in board.rows]


def short_figures(row) -> dict:
    """The felt figures in a board's cells, each with its label (derived, measured, the share of RAM)."""
    ttft = " · ".join(filter(None, [
        row["ttft_derived_s"] is not None and f"{_seconds(row['ttft_derived_s'])} derived",
        row["ttft_measured_s"] is not None and f"{_seconds(row['ttft_measured_s'])} measured"])) or "–"
    drop = row["tg_sustained_drop"]
    fit = FIT_WORDS[row["fit"]].split(":")[0]
    if row["fit"] != phone_figures.UNKNOWN:
        fit += f" ({_bytes(row['memory_need_bytes'])} of {row['fit_ram_gb']:g} GB)"
    return {"ttft_short": ttft, "sustained_short": "–" if drop is None else f"{-drop:+.0%}".replace("-", "−"),
            "fit_short": fit}


def board_scope(query: BoardQuery, names: dict) -> str:
    """Which devices the board's speeds are of, in words."""
    device = names.get(" ".join(query.device.casefold().split()), query.device)
    ram = f"{query.ram_gb:g} GB of RAM" if query.ram_gb is not None else ""
    if device and ram:
        return f"{device} with {ram}"
    return device or (f"devices with {ram}" if ram else "every device reported")


def board_chart(rows, scope: str) -> dict:
    return {"points": [{"hub": r["hub_id"], "file": r["file"], "quant": r["quantization"], "gen": r["tg_median"],
                        "acc": r["accuracy"], "lo": r["ci95_low"], "hi": r["ci95_high"], "n": r["confirmed_by"],
                        "pareto": r["pareto"]} for r in rows], "scope": scope, "label": LABEL}


def board_summary(rows, scope: str) -> str:
    """The per-device chart in words: the fastest files and the frontier."""
    if not rows:
        return ""
    fastest = "; ".join(f"{r['file']}: {_rate(r['tg_median'])} tokens/s ({r['confirmed_text']}), "
                        f"{r['accuracy']:.2f}% accurate" for r in rows[:3])
    frontier = ", ".join(r["file"] for r in rows if r["pareto"])
    return f"{_plural(len(rows), 'file')} measured on {scope}, fastest first: {fastest}. Pareto frontier: {frontier}."
