"""The public boards: results' measured rows with contamination's columns (Δ as published, the flag), then
narrowed and ranked (leaderboard.results.board).

Above results and contamination in the layers (docs/ARCHITECTURE.md §7): contamination reads results' rows to
judge Δ, so results cannot read contamination's judgement back; the board that shows both is composed here.
"""
from django.db.models.functions import Lower

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.contamination import selectors as contamination
from leaderboard.core.cache_generation import per_generation
from leaderboard.results import board, quantization_truth
from leaderboard.results import selectors as results
from leaderboard.results.models import ReportedSource
from leaderboard.submissions.models import ModelEntry

from . import flags, rank_comparison


def _contamination(*, benchmark, shots):
    """(hub_id, revision, precision) -> (Δ in points as published, flagged): each model revision's latest
    published point judged on the board (contamination.selectors.Board, as `point_row` reads it)."""
    judged = contamination.Board(benchmark=benchmark, shots=shots)
    return {key: (round(100 * j.delta.delta, 1), j.flagged) for key, j in judged.by_key.items()}


def board_rows(*, benchmark, split="validation", shots=0, variant="original", version=None, topics=()):
    """Every measured row of a board with every column the board shows, unfiltered and unranked (board.view
    narrows and ranks them), in a fixed number of queries whatever the number of models. `topics`: the
    accuracy is pooled over those topics' questions (open splits only). A GGUF file's row carries its base model's
    flag too (flags.follow: the one rule every board reads)."""
    rows = results.measured_rows(benchmark=benchmark, split=split, shots=shots, variant=variant, version=version,
                                 topics=topics)
    deltas = _contamination(benchmark=benchmark, shots=shots)
    for row in rows:  # board order does not depend on these columns
        delta, flag = deltas.get((row["hub_id"], row["revision"], row["precision"]), (None, False))
        row.update(delta=delta, possible_contamination=flag, flagged=row["flagged"] or flag)
    return flags.follow(rows)


DEFAULT_BOARD = "mobile-mmlu"  # the board a page or API about one model reads its flag on (validation, 0-shot)


def _default_board_flags() -> dict[str, dict]:
    """hub id (lower case) -> {flagged, possible_contamination, flagged_via} of each flagged model of the default board
    (Mobile-MMLU, validation, 0-shot), its rows merged."""
    benchmark = bench_selectors.benchmark_get(slug=DEFAULT_BOARD)
    out: dict[str, dict] = {}
    for row in board_rows(benchmark=benchmark) if benchmark else []:
        if row["flagged"]:
            mark = out.setdefault(row["hub_id"].lower(), {"flagged": True, "possible_contamination": False,
                                                          "flagged_via": ""})
            mark.update(possible_contamination=mark["possible_contamination"] or row["possible_contamination"],
                        flagged_via=mark["flagged_via"] or row["flagged_via"])
    return out


def model_flags(hub_ids) -> dict[str, dict]:
    """hub id (lower case) -> {flagged, possible_contamination, flagged_via} of each model, for a page or API about one
    model: as the default board shows its rows (flags.follow: a file carries its base model's flag), else an admin's
    flag of its entry or of the entry it was made from (a model not on it). The board's flags are read once per
    results generation (per_generation): reading a board of 10,000 models for one model's flag took 0.8 s."""
    wanted = {h.lower() for h in hub_ids}
    out = {h: {"flagged": False, "possible_contamination": False, "flagged_via": ""} for h in wanted}
    on_board = per_generation(f"flags:{DEFAULT_BOARD}", _default_board_flags) if wanted else {}
    for hub_id in wanted & on_board.keys():
        out[hub_id] = dict(on_board[hub_id])
    unflagged = [h for h in wanted if not out[h]["flagged"]]
    entries = (ModelEntry.objects.annotate(lower=Lower("hub_id")).filter(lower__in=unflagged)
               .values_list("lower", "flagged", "made_from__hub_id", "made_from__flagged"))
    for hub_id, flagged, base, base_flagged in entries if unflagged else []:
        if flagged or base_flagged:
            out[hub_id].update(flagged=True, flagged_via="" if flagged else base)
    return out


def on_device(*, hub_id) -> dict:
    """A model's "On-device variants" (results.quantization_truth.on_device: a file against its base, or a base's
    files), the model and each file marked with its flag (model_flags)."""
    report = quantization_truth.on_device(hub_id=hub_id)
    marks = model_flags([hub_id, *(r["hub_id"] for r in report["rows"])])
    return {**report, **marks[hub_id.lower()], "rows": [{**r, **marks[r["hub_id"].lower()]} for r in report["rows"]]}


def leaderboard(*, benchmark, split="validation", shots=0, variant="original", size_class=None, on_device=False,
                model_type=None, precision=None, flagged=None, params_min=None, params_max=None,
                include_reported=False, search=None, models=(), topics=(), sort="rank", version=None):
    """The measured rows ranked by significance among the filtered set (the name search and the model list do
    not change ranks), then the paper's rows when asked for: labelled, unranked, after every measured row."""
    rows = board_rows(benchmark=benchmark, split=split, shots=shots, variant=variant, version=version, topics=topics)
    filters = board.Filters(size_class=size_class, on_device=on_device, model_type=model_type, precision=precision,
                            flagged=flagged, params_min=params_min, params_max=params_max)
    reported = results.reported_rows(benchmark_slug=benchmark.slug, shots=shots, variant=variant) if include_reported and not topics else []
    shown = board.view(rows, filters=filters, reported=reported, search=search, models=models, sort=sort)
    return shown.rows + shown.reported


PAPER_TABLE2 = "paper, Table 2"  # the label of the paper's rows in the mobile-vs-general view
MOBILE_BENCHMARKS = ("mobile-mmlu", "mobile-mmlu-pro")
GENERAL_BENCHMARKS = ("mmlu-pro", "mmlu-cf")  # general knowledge: TIGER-Lab/MMLU-Pro, microsoft/MMLU-CF


def _paper_rows(*, benchmark_slug, shots):
    label = ReportedSource.TABLE2.label
    return [r for r in results.reported_rows(benchmark_slug=benchmark_slug, shots=shots) if r["source"] == label]


def mobile_vs_general(*, mobile, general, split="validation", shots=0, include_flagged=False):
    """Models measured on a Mobile-MMLU board (`mobile`, a slug; `split`: validation, or test with its published
    figures) and on a general benchmark's open board (`general`, a slug), paired (rank_comparison.pair), with
    Spearman's correlation; the paper's Table 2 rows paired apart, never mixed into the measured ranks or
    correlation. A benchmark not hosted here has an empty board (the paper's rows remain). Flagged models are left
    out unless asked for, as the board page does; hidden models are on no board."""
    filters = board.Filters(flagged=None if include_flagged else False)
    benchmarks = [(bench_selectors.benchmark_get(slug=mobile), split), (bench_selectors.benchmark_get(slug=general),
                                                                       "validation")]
    boards = [board_rows(benchmark=b, split=s, shots=shots) if b else [] for b, s in benchmarks]
    measured = rank_comparison.pair(*(board.rank(rows, filters=filters).rows for rows in boards))
    paper = rank_comparison.pair(_paper_rows(benchmark_slug=mobile, shots=shots),
                                 _paper_rows(benchmark_slug=general, shots=shots), source=PAPER_TABLE2)
    hidden = 0 if include_flagged else len(rank_comparison.pair(*boards)) - len(measured)
    return {"measured": measured, "paper": paper, "correlation": rank_comparison.correlation(measured),
            "paper_correlation": rank_comparison.correlation(paper), "flagged_hidden": hidden}
