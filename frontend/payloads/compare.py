"""The compare page: a models × topics accuracy heatmap (the paper's Fig. 18) and size against
accuracy, measured here on Mobile-MMLU beside the paper's reported Mobile-MMLU and MMLU figures
(the paper's Figs. 11-12). Open split only: per-topic sealed figures are never published.

Flagged models and files (leaderboard.boards.flags: a file carries its base model's flag) are marked where chosen, and
left out of what the page picks for a reader (the default models, the chooser, the other models on the scatter), as the
board hides them by default."""
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.results import selectors as results_selectors
from leaderboard.results.ondevice_facts import LLAMACPP, ondevice_facts
from leaderboard.submissions import selectors as submission_selectors

from .. import selectors
from ..paper import PAPER_PARAMS_B
from . import leaderboard as board
from .ondevice import gb_text

MAX_MODELS = 8


def parse_models(raw: str) -> list[str]:
    out = []
    for hub_id in (raw or "").split(","):
        hub_id = hub_id.strip()
        if hub_id and hub_id not in out:
            out.append(hub_id)
    return out[:MAX_MODELS]


def chosen_results(*, benchmark, hub_ids, shots=0):
    """(found results in the asked order, hub ids without a visible open-split result)."""
    found, missing = [], []
    for hub_id in hub_ids:
        result = None if submission_selectors.model_hidden(hub_id=hub_id) else selectors.latest_result(
            hub_id=hub_id, benchmark=benchmark, split="validation", shots=shots)
        (found if result is not None else missing).append(result or hub_id)
    return found, missing


def heatmap(*, benchmark, results) -> dict:
    topics = sorted(bench_selectors.topic_index(benchmark=benchmark), key=lambda t: t.order)
    cells = selectors.board_topic_cells(results=results)
    return {"models": [r.hub_id for r in results], "topics": [t.name for t in topics],
            "slugs": [t.slug for t in topics],
            "z": [[cells[r.pk].get(t.slug, {}).get("accuracy") for t in topics] for r in results],
            "n": [[cells[r.pk].get(t.slug, {}).get("n") for t in topics] for r in results]}


def flagged_rows(*, benchmark, shots=0) -> dict:
    """(hub id in lower case, revision, precision) -> the flagged rows of the open board the page compares on (the
    board's cached rows: flags as every board reads them)."""
    rows = board.board_rows(benchmark=benchmark, split="validation", shots=shots)
    return {(r["hub_id"].lower(), r["revision"], r["precision"]): r for r in rows if r["flagged"]}


def flag_of(result, flagged) -> dict | None:
    """{possible_contamination, flagged_via} of a chosen result when its board row is flagged, else None."""
    row = flagged.get((result.hub_id.lower(), result.revision, result.precision))
    return row and {"possible_contamination": row["possible_contamination"], "flagged_via": row["flagged_via"]}


def unflagged(hub_ids, flagged) -> list[str]:
    """The hub ids none of whose rows is flagged (what the page offers a reader by default)."""
    hidden = {key[0] for key in flagged}
    return [h for h in hub_ids if h.lower() not in hidden]


def scatter(*, benchmark, chosen_ids) -> dict:
    """Measured points from the board's (cached) rows, flagged ones only where chosen; the paper's from its
    reported rows."""
    chosen = {h.lower() for h in chosen_ids}
    measured = [r for r in board.board_rows(benchmark=benchmark, split="validation", shots=0)
                if r["params"] and r["accuracy"] is not None and (not r["flagged"] or r["hub_id"].lower() in chosen)]
    paper = {}
    for slug in ("mobile-mmlu", "mmlu"):
        paper[slug] = [[r["hub_id"], PAPER_PARAMS_B[r["hub_id"]], r["accuracy"]]
                       for r in results_selectors.reported_rows(benchmark_slug=slug)
                       if r["hub_id"] in PAPER_PARAMS_B]
    return {"benchmark": benchmark.name,
            "measured": [[r["hub_id"], round(r["params"] / 1e9, 3), r["accuracy"], int(r["hub_id"] in chosen_ids),
                          int(r["flagged"])] for r in measured],
            "paper_mobile_mmlu": paper["mobile-mmlu"], "paper_mmlu": paper["mmlu"]}


def summaries(heat, points) -> dict:
    out = {}
    models, z = heat["models"], heat["z"]
    if models:
        leads = {m: 0 for m in models}
        gap, gap_topic = -1, None
        for j, topic in enumerate(heat["topics"]):
            column = [(row[j], m) for row, m in zip(z, models) if row[j] is not None]
            if not column:
                continue
            leads[max(column)[1]] += 1
            spread = max(column)[0] - min(column)[0]
            if spread > gap:
                gap, gap_topic = spread, topic
        leader = max(leads, key=leads.get)
        out["heatmap"] = (f"Accuracy of {len(models)} model{'s' if len(models) != 1 else ''} on {len(heat['topics'])} "
                          f"topics (validation split, 0-shot). {leader} is best on {leads[leader]} topics"
                          + (f"; the widest gap between the models is on {gap_topic} ({gap:.1f} points)."
                             if len(models) > 1 and gap_topic else "."))
    else:
        out["heatmap"] = "No model chosen has an open-split result on this benchmark."
    mobile = {name: acc for name, _, acc in points["paper_mobile_mmlu"]}
    mmlu = {name: acc for name, _, acc in points["paper_mmlu"]}
    both = [name for name in mobile if name in mmlu]
    higher = sum(1 for name in both if mmlu[name] > mobile[name])
    compared = sum(p[3] for p in points["measured"])
    out["scatter"] = (f"{len(points['measured'])} models measured here with a known size ({compared} of them "
                      f"compared), beside {len(both)} models reported by the paper: for {higher} of those "
                      f"{len(both)}, the paper's MMLU accuracy is above their Mobile-MMLU accuracy.")
    return out


def ondevice(results, flagged=None) -> list[dict]:
    """The On-device columns of the chosen GGUF files (file, size, change vs 16-bit, flip rate, tokens/s, time to
    first token, peak memory, the profile's label), in the chosen order, each with whether its 16-bit model is
    among the chosen (else a link adds it)."""
    facts = ondevice_facts(run_ids=[r.run_id for r in results if r.run.backend == LLAMACPP])
    chosen = {r.hub_id.lower() for r in results}
    out = []
    for r in results:
        row = facts.get(r.run_id)
        if row is None:
            continue
        base = row["base_hub_id"]
        out.append({**row, "hub_id": r.hub_id, "run_id": r.run_id, "accuracy": None,
                    "size_gb": gb_text(row["file_bytes"]), "rss_gb": gb_text(row["peak_rss_bytes"]),
                    "add_base": bool(base) and base.lower() not in chosen, "flag": flag_of(r, flagged or {})})
    return out
