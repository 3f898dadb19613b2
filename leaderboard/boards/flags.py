"""Flags follow the model (issue 38): the one rule every board, frontier, chart, compare page, CSV and API reads for
whether a GGUF file is flagged.

A board row is flagged by an admin (its run: evaluations.admin_services.run_set_flagged; its model entry: the
submissions admin's "Flag" action) or by the contamination monitor (its model revision's latest published point judged
possible contamination: contamination.selectors.Board); selectors.board_rows sets both. A GGUF file is a model entry of
its own with no sealed run, so the monitor never judges it, and an admin flags the model, not each of its files. So a
file also takes its base model's flag: the 16-bit model this server made it from (`<base>@<QUANT>`, the run's recipe)
or the model its submission names as base (the file's `general.base_model.*`, else its card's `base_model`):
results.quantization_truth.base_model_of, the same reading the On-device comparison makes.

The base's flag is read on the same board, as that board shows the base: its row of the file's revision (a file made
here has its base's revision), else its newest row, plus an admin's flag of the base's entry whether or not the base
is on the board. `flagged_via` names the base a file's flag came from ("" when the file is flagged on its own or not
at all), so a page can say why a file with no sealed score of its own is marked.
"""
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results.quantization_truth import base_model_of
from leaderboard.results.selectors import model_hub_ids
from leaderboard.submissions.models import ModelEntry

GGUF = "gguf"  # the precision of every GGUF run, submitted or made here


def base_models(run_ids) -> dict[int, str]:
    """run id -> the hub id (the board's spelling) of the model the run's GGUF file was made from or names as base;
    runs whose file names none are left out. Two queries whatever their number."""
    runs = (EvaluationRun.objects.filter(pk__in=list(run_ids)).select_related("submission")
            .only("gguf_recipe", "submission_id", "submission__gguf_facts"))
    named = {run.pk: base for run in runs if (base := base_model_of(run))}
    spelled = model_hub_ids(set(named.values()))
    return {run_id: spelled[base] for run_id, base in named.items()}


def _base_flag(rows, revision) -> tuple[bool, bool]:
    """(flagged, possible contamination) of a base model as its rows on a board show it: the rows of `revision`
    when it has any, else its newest row."""
    same = [r for r in rows if r["revision"] == revision]
    shown = same or sorted(rows, key=lambda r: r["scored_at"], reverse=True)[:1]
    return any(r["flagged"] for r in shown), any(r["possible_contamination"] for r in shown)


def follow(rows) -> list[dict]:
    """Every row of one board (selectors.board_rows: `flagged` and `possible_contamination` of its own) with its
    base model's flag added to each GGUF file's row, and `flagged_via` set on every row. Modified in place and
    returned; three queries whatever the number of rows."""
    files = [r for r in rows if r["precision"] == GGUF]
    bases = base_models(r["run_id"] for r in files) if files else {}
    by_hub = {}
    for row in rows:
        row["flagged_via"] = ""
        if row["precision"] != GGUF:
            by_hub.setdefault(row["hub_id"].lower(), []).append(row)
    flagged_entries = {h.lower() for h in ModelEntry.objects.filter(hub_id__in=set(bases.values()), flagged=True)
                       .values_list("hub_id", flat=True)} if bases else set()
    for row in files:
        base = bases.get(row["run_id"])
        if base is None or base.lower() == row["hub_id"].lower():
            continue
        flagged, contamination = _base_flag(by_hub.get(base.lower(), []), row["revision"])
        flagged = flagged or base.lower() in flagged_entries
        if flagged and not row["flagged"]:
            row["flagged_via"] = base
        row.update(flagged=row["flagged"] or flagged,
                   possible_contamination=row["possible_contamination"] or contamination)
    return rows
