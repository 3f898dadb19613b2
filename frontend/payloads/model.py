"""The model page: one chosen run's breakdown (categories, subcategories, topics, variants) and the
model's runs, history, Δ, efficiency and reproducibility. Sealed runs: overall only (the selector
returns nothing below it)."""
from django.conf import settings

from evaluator.ondevice_profile import reliability
from evaluator.protocols import get_protocol

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.evaluations import display
from leaderboard.results.models import Level

VARIANT_ORDER = ["original", "fixed-A", "fixed-B", "fixed-C", "fixed-D", "R1", "R2", "R3", "R4"]
EFFICIENCY_ROWS = [  # (key, label, format)
    ("load_seconds", "Load time", "{:.1f} s"),
    ("prefill_tokens_per_s", "Prefill throughput", "{:,.0f} tokens/s"),
    ("batch1_latency_s.p50", "Batch-1 latency per question (median)", "{:.3f} s"),
    ("batch1_latency_s.p95", "Batch-1 latency per question (p95)", "{:.3f} s"),
    ("peak_memory_bytes", "Peak memory", "bytes"),
    ("weight_bytes", "Weights", "bytes"),
    ("param_count", "Parameters counted", "{:,}"),
    ("energy_j_per_question", "Energy per question", "{:.2f} J"),
]


def choose_result(results, run_id=None):
    """The run whose breakdown the page shows: the one asked for, else the newest open-split run of the
    leaderboard's own settings (Mobile-MMLU first), else the newest run."""
    if run_id is not None:
        return next((r for r in results if r.run_id == run_id), None)
    open_runs = [r for r in results if not display.is_sealed(r.split) and not r.run.protocol]
    preferred = [r for r in open_runs if r.benchmark.slug == "mobile-mmlu"] or open_runs or results
    return preferred[0] if preferred else None


def run_rows(results, history, chosen) -> list[dict]:
    """One run-history table, newest first: each run with its published overall figure (primary order) and the
    change from the previous run on the same benchmark, split and shots (history: run id -> its row)."""
    return [{"result": r, "sealed": display.is_sealed(r.split), "current": r == chosen,
             **history.get(r.run_id, display.cell(split=r.split, n=0, correct=0))} for r in results]


def topics_vs_board(topics, medians) -> list[dict]:
    """The topic rows with the board's median accuracy of each topic and the difference from it, in points."""
    out = []
    for t in topics:
        median = medians.get(t["key"])
        vs = round(t["accuracy"] - median, 1) if median is not None and t["accuracy"] is not None else None
        out.append({**t, "board_median": median, "vs_median": vs})
    return out


def _get(data, dotted):
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _bytes(value):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:,.1f} {unit}" if unit != "B" else f"{value:,} B"
        value /= 1024


def efficiency_rows(efficiency: dict) -> list[tuple[str, str]]:
    out = []
    for key, label, fmt in EFFICIENCY_ROWS:
        value = _get(efficiency or {}, key)
        if value is None:
            continue
        out.append((label, _bytes(value) if fmt == "bytes" else fmt.format(value)))
    return out


# CPU features that decide llama.cpp's kernels (x86 SIMD, Arm NEON/SVE/dot-product/matrix): the card keeps them all.
_SIMD_FLAGS = ("avx", "fma", "f16c", "amx", "asimd", "neon", "sve", "i8mm", "dotprod", "bf16")


def _load(profile: dict) -> str:
    loads = [x for x in profile.get("load_average") or [] if x is not None]
    cpus = profile.get("cpus_available")
    return f"; load average {max(loads):.1f}" + (f" on {cpus} CPUs" if cpus else "") if loads else ""


def cost_profile_card(profile: dict | None) -> dict | None:
    """A GGUF run's cost profile (evaluator/ondevice_profile.py) as the model page shows it, with its label."""
    if not profile:
        return None
    card = {"label": profile.get("label", ""), "error": profile.get("error", ""), "rows": [],
            "measured_for_run": profile.get("measured_for_run"), "unreliable": None}
    if card["error"]:
        return card
    verdict = reliability(profile, max_cv=settings.ONDEVICE_PROFILE_MAX_CV)
    if not verdict["reliable"]:
        card["unreliable"] = (f"Unreliable: the figures stayed noisy after {verdict['attempts']} measurement"
                              f"{'s' if verdict['attempts'] != 1 else ''} ({'; '.join(verdict['reasons'])}). "
                              "They are shown as measured and kept off the On-device board's speed frontier.")
    pp, tg, ttft, cpu = profile["pp"], profile["tg"], profile["ttft"], profile.get("cpu", {})
    simd = [f for f in cpu.get("flags", []) if f.startswith(_SIMD_FLAGS)]
    energy = profile.get("energy")
    card["rows"] = [
        (f"Prompt processing (pp{pp['tokens']})",
         f"{pp['tokens_per_s']:,.1f} ± {pp['sd']:,.1f} tokens/s ({len(pp['runs'])} runs)"),
        (f"Generation (tg{tg['tokens']})", f"{tg['tokens_per_s']:,.1f} ± {tg['sd']:,.1f} tokens/s ({len(tg['runs'])} runs)"),
        ("Time to first token", f"{ttft['seconds']:.3f} ± {ttft['sd']:.3f} s (a median Mobile-MMLU prompt: "
                                f"{ttft['prompt_chars']:,} characters, {ttft['prompt_tokens']:,} tokens)"),
        ("Peak resident memory", f"{_bytes(profile['peak_rss_bytes'])} "
                                 f"({'file memory-mapped' if profile['mmap'] else 'file read into memory'})"),
        ("File size", _bytes(profile["file_bytes"])),
        ("CPU", f"{cpu.get('model', 'unknown')} ({cpu.get('machine', '?')}), {profile['threads']} threads, no GPU"
                + (f"; {' '.join(simd)}" if simd else "") + _load(profile)),
        ("llama.cpp", f"{profile.get('llama_cpp', {}).get('llama_cpp_commit', 'unknown')}"),
        ("Energy", f"{energy['tg_joules_per_token']:.3g} J per generated token, {energy['pp_joules_per_token']:.3g} "
                   f"J per prompt token (RAPL, {energy['scope']})" if energy else
                   f"not measured: {profile.get('energy_why') or 'no readable counter'}"),
    ]
    return card


def breakdown(result, cells) -> dict:
    """Chart data of an open-split run: categories and subcategories (primary variant) and the
    accuracy of every variant overall and per category."""
    primary = result.primary_variant
    levels = {Level.CATEGORY: [], Level.SUBCATEGORY: [], Level.TOPIC: []}
    by_variant = {}
    for c in cells:
        if c["variant"] == primary and c["level"] in levels:
            levels[c["level"]].append(c)
        if c["level"] in (Level.OVERALL, Level.CATEGORY):
            by_variant.setdefault(c["variant"], {})[c["key"]] = c["accuracy"]
    taxonomy = sorted(bench_selectors.topic_index(benchmark=result.benchmark), key=lambda t: t.order)
    order = {t.slug: i for i, t in enumerate(taxonomy)}
    cat_order = {}
    for t in taxonomy:
        cat_order.setdefault(t.subcategory.category.slug, len(cat_order))
    categories = sorted(levels[Level.CATEGORY], key=lambda c: cat_order.get(c["key"], 99))
    cat_names = {c["key"]: c["name"] for c in categories}
    subcategories = sorted(levels[Level.SUBCATEGORY],
                           key=lambda c: (cat_order.get(c["key"].split("/")[0], 99), c["name"]))
    topics = sorted(levels[Level.TOPIC], key=lambda c: order.get(c["key"], 999))
    variants = [v for v in VARIANT_ORDER if v in by_variant] + sorted(v for v in by_variant if v not in VARIANT_ORDER)
    columns = [("", "Overall")] + [(c["key"], c["name"]) for c in categories]
    pick = ("key", "name", "n", "correct", "accuracy", "ci95_low", "ci95_high")
    return {
        "categories": [{k: c[k] for k in pick} for c in categories],
        "subcategories": [{**{k: c[k] for k in pick}, "category": cat_names.get(c["key"].split("/")[0], "")}
                          for c in subcategories],
        "topics": topics,
        "variants": {"names": variants, "columns": [name for _, name in columns],
                     "z": [[by_variant[v].get(key) for key, _ in columns] for v in variants]},
    }


def robustness(data) -> dict | None:
    """Spread of the overall accuracy across variants (max − min), from the heatmap's first column."""
    overall = [row[0] for row in data["variants"]["z"] if row and row[0] is not None]
    if len(overall) < 2:
        return None
    names = data["variants"]["names"]
    z = [row[0] for row in data["variants"]["z"]]
    best, worst = names[z.index(max(overall))], names[z.index(min(overall))]
    return {"spread": round(max(overall) - min(overall), 1), "best": best, "worst": worst,
            "high": max(overall), "low": min(overall)}


def _extremes(cells):
    scored = [c for c in cells if c["accuracy"] is not None]
    if not scored:
        return None
    hi = max(scored, key=lambda c: c["accuracy"])
    lo = min(scored, key=lambda c: c["accuracy"])
    return hi, lo


def _pc(value) -> str:
    """Open-split figures on the page: one decimal."""
    return f"{value:.1f}"


def summaries(data, robustness) -> dict:
    """Text beside each chart (what a reader who cannot see it needs)."""
    where = f"{data['benchmark']}, {data['split']} split, {data['shots']}-shot, run {data['run_id']}"
    out = {}
    ext = _extremes(data["categories"])
    out["radar"] = (f"Accuracy in {len(data['categories'])} categories ({where}): highest {ext[0]['name']} "
                    f"({_pc(ext[0]['accuracy'])}%), lowest {ext[1]['name']} ({_pc(ext[1]['accuracy'])}%)."
                    if ext else "No category figures for this run.")
    ext = _extremes(data["subcategories"])
    out["subcategories"] = (f"{len(data['subcategories'])} subcategories with 95% intervals: highest "
                            f"{ext[0]['name']} ({_pc(ext[0]['accuracy'])}%), lowest {ext[1]['name']} "
                            f"({_pc(ext[1]['accuracy'])}%)." if ext else "No subcategory figures for this run.")
    if robustness:
        out["variants"] = (f"Overall accuracy across {len(data['variants']['names'])} answer orders ranges from "
                           f"{_pc(robustness['low'])}% ({robustness['worst']}) to {_pc(robustness['high'])}% "
                           f"({robustness['best']}): a spread of {robustness['spread']} points.")
    else:
        out["variants"] = ""
        out["variants_empty"] = (
            f"No order-robustness chart: it needs a run with at least two answer orders, and run {data['run_id']} "
            "evaluated one. Submissions are evaluated under all nine orders (original, fixed-A to fixed-D, R1 to "
            "R4) on the validation split: pick such a run above, or submit the model to get one.")
    return out


def protocol_card(chosen) -> dict:
    """A protocol run's settings for the reproducibility card (evaluator/protocols.py), and on an open split the
    share of answers no pattern could read (a sealed run's stays unpublished, as all its figures but one)."""
    if chosen is None or not chosen.run.protocol:
        return {}
    unparsed = None if display.is_sealed(chosen.split) else (chosen.run.summary or {}).get("unparsed")
    return {"protocol": get_protocol(chosen.run.protocol).describe(),
            "unparsed": f"{unparsed['n']} of {chosen.run.summary['n_rows']} ({100 * unparsed['rate']:.1f}%)"
            if unparsed else None}
