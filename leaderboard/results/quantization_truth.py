"""On-device variants: each GGUF file's run against the 16-bit run of its base model (issue 24, section 3).

A GGUF run is paired with its base model's 16-bit run of the same plan (benchmark version, split, shots, template
and its hash, protocol, mode, chat template; the file run's primary answer order among the base run's, with the same
seed where it is a seeded shuffle: the prompts and the answer order are then the same) question by question on that
answer order, and compared (evaluator/quantization_truth.py).
Where there is no such run, the row says why instead of showing a number.

Open splits only (ARCHITECTURE §6): flips and KL per question of the sealed split would tell which sealed
questions a model gets right, so a sealed run is never listed here, and `_pair` refuses one whatever its caller
checked. Unlike the other results selectors, this module reads two runs' prediction chunks; a comparison of two
scored runs never changes, so it is cached per pair of runs.

The base model of a run: the checkpoint this server made its file from (section 2b), else its submission's GGUF facts
(the file's `general.base_model.*`, else the card's `base_model`).
"""
import logging
from dataclasses import asdict

from django.core.cache import cache
from django.db.models import Q

from evaluator.quantization_truth import PairedComparison, compare
from evaluator.variants import RANDOM
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.core.errors import SealedSplitError
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk
from leaderboard.hub.precisions import PRECISIONS
from leaderboard.submissions.models import ModelEntry, Submission

from .selectors import model_hub_id, model_hub_ids, visible_results

log = logging.getLogger(__name__)

# The unquantized reference a file is compared with: a 16-bit run, or a run in the checkpoint's own dtype ("auto", as
# `manage.py evaluate` runs the demo's models; float32 where a checkpoint is stored so).
UNQUANTIZED_REFERENCES = (*sorted(name for name, spec in PRECISIONS.items() if spec.bits == 16 and name != "gguf"), "auto",
               "float32")
OPEN_SPLIT_NOTE = ("Compared on the open validation split only: per-question flips on the sealed test split would "
                   "tell which sealed questions a model gets right.")
# The run settings that make two runs' prompts the same (what each is called on the page). The answer order compared
# is the file run's primary one: the base run must have run it, with the same seed where it is a seeded shuffle.
PLAN_SETTINGS = {"template": "template", "template_hash": "template hash", "protocol": "protocol", "mode": "mode",
                 "use_chat_template": "chat template"}
_CACHE_SECONDS = 24 * 3600

BASE_UNKNOWN = "base-unknown"
BASE_NOT_ON_BOARD = "base-not-on-board"
NO_16BIT_RUN = "no-16-bit-run"
SETTINGS_DIFFER = "settings-differ"


def base_model_of(run: EvaluationRun) -> str | None:
    """The hub id of the model the run's file was made from: the checkpoint this server made it from, else as the
    submitted file's header facts name it."""
    if run.gguf_recipe:
        return run.gguf_recipe["source"]
    submission = run.submission
    return ((submission.gguf_facts or {}).get("base_model") or None) if submission else None


def _differences(result, other) -> list[str]:
    run, base = result.run, other.run
    out = [label for name, label in PLAN_SETTINGS.items() if getattr(run, name) != getattr(base, name)]
    order = result.primary_variant
    if order not in base.variants:
        out.append(f"answer orders (no {order})")
    elif order in RANDOM and run.seed != base.seed:
        out.append("answer-order seed")
    return out


def _base_candidates(results, bases) -> tuple[set, dict]:
    """(the bases with a visible run, (base, version, split, shots) -> its 16-bit results there, newest first) for
    these results: two queries whatever their number. bases: hub ids in the board's spelling."""
    if not bases:
        return set(), {}
    on_board = set(visible_results(hub_id__in=bases, protocol=None).order_by().values_list("hub_id", flat=True)
                   .distinct())
    candidates = {}
    for r in visible_results(hub_id__in=on_board, protocol=None, precision__in=UNQUANTIZED_REFERENCES,
                             benchmark_version_id__in={r.benchmark_version_id for r in results},
                             split__in={r.split for r in results}, shots__in={r.shots for r in results}):
        candidates.setdefault((r.hub_id, r.benchmark_version_id, r.split, r.shots), []).append(r)
    return on_board, candidates


def _choose_base(result, base: str | None, on_board, candidates):
    """(the base's 16-bit result of the same plan, None) or (None, (code, why)); base in the board's spelling."""
    if not base:
        return None, (BASE_UNKNOWN, "No 16-bit run to compare with: the file names no base model (no "
                                    "general.base_model in its header, no base_model on its card).")
    if base not in on_board:
        return None, (BASE_NOT_ON_BOARD, f"No 16-bit run of {base} on the board: {base} is not on the board.")
    same_questions = candidates.get((base, result.benchmark_version_id, result.split, result.shots), [])
    if not same_questions:
        return None, (NO_16BIT_RUN, f"No 16-bit run of {base} on the board for {result.benchmark.name} "
                                    f"v{result.benchmark_version.number}, {result.split}, {result.shots}-shot.")
    for candidate in same_questions:  # newest first
        if not _differences(result, candidate):
            return candidate, None
    differ = ", ".join(_differences(result, same_questions[0]))
    return None, (SETTINGS_DIFFER, f"No 16-bit run of {base} on the board with this run's settings: its latest "
                                   f"16-bit run (run {same_questions[0].run_id}) differs in {differ}.")


def _rows(run: EvaluationRun, variant: str) -> dict[str, dict]:
    out = {}
    for rows in PredictionChunk.objects.filter(run=run).order_by("index").values_list("rows", flat=True).iterator(
            chunk_size=8):
        for row in rows:
            if row.get("variant") == variant:
                out[row["question_id"]] = row
    return out


def _pair(file_result, base_result) -> PairedComparison:
    """The comparison of two open-split runs on the file's primary answer order, paired by question."""
    if file_result.split in SEALED_SPLITS or base_result.split in SEALED_SPLITS:
        raise SealedSplitError("sealed test runs are never compared question by question")
    variant = file_result.primary_variant
    base_rows = _rows(base_result.run, variant)
    file_rows = _rows(file_result.run, variant)
    return compare((base_rows[uid], row) for uid, row in file_rows.items() if uid in base_rows)


def _cached_pair(file_result, base_result) -> PairedComparison:
    key = f"quantization-truth:v1:{file_result.pk}:{file_result.scored_at.timestamp()}:{base_result.pk}:" \
          f"{base_result.scored_at.timestamp()}"
    try:
        stored = cache.get(key)
    except Exception:
        log.exception("cache unavailable; comparing runs %s and %s uncached", file_result.run_id, base_result.run_id)
        return _pair(file_result, base_result)
    if stored is not None:
        return PairedComparison(**stored)
    report = _pair(file_result, base_result)
    try:
        cache.set(key, asdict(report), _CACHE_SECONDS)
    except Exception:
        log.exception("could not cache the comparison of runs %s and %s", file_result.run_id, base_result.run_id)
    return report


def _pct(value):
    return None if value is None else round(100 * value, 2)


def _figures(report: PairedComparison) -> dict:
    ci, change_ci = report.file_ci95 or (None, None), report.change_ci95 or (None, None)
    return {"n": report.n, "base_accuracy": _pct(report.base_accuracy), "accuracy": _pct(report.file_accuracy),
            "ci95_low": _pct(ci[0]), "ci95_high": _pct(ci[1]), "accuracy_change": _pct(report.change),
            "change_ci95_low": _pct(change_ci[0]), "change_ci95_high": _pct(change_ci[1]),
            "flips": report.changed, "flip_rate": _pct(report.share(report.changed)),
            "right_to_wrong": report.right_to_wrong, "right_to_wrong_rate": _pct(report.share(report.right_to_wrong)),
            "wrong_to_right": report.wrong_to_right, "wrong_to_right_rate": _pct(report.share(report.wrong_to_right)),
            "kl_n": report.kl_n, "mean_kl": None if report.mean_kl is None else round(report.mean_kl, 6)}


_EMPTY_FIGURES = dict.fromkeys(_figures(PairedComparison(0, 0, 0, 0, 0, 0, 0, None)), None)


def _row(result, base, base_result, missing) -> dict:
    model = result.model
    row = {"hub_id": result.hub_id, "gguf_file": model.gguf_file if model else "",
           "quantization": model.quantization if model else "", "run_id": result.run_id,
           "benchmark": result.benchmark.slug, "benchmark_version": result.benchmark_version.number,
           "split": result.split, "shots": result.shots, "protocol": result.run.protocol,
           "variant": result.primary_variant, "base_hub_id": base, "base_run_id": base_result.run_id if base_result
           else None, "base_precision": base_result.precision if base_result else None,
           "compared": base_result is not None,
           "reason_code": missing[0] if missing else "", "reason": missing[1] if missing else ""}
    return row | (_figures(_cached_pair(result, base_result)) if base_result else _EMPTY_FIGURES)


def comparisons(results) -> list[dict]:
    """comparison() of each open-split GGUF result, in order, in a fixed number of queries whatever their number (the
    On-device board lists every file); each pair's figures come from the cache once compared."""
    results = list(results)
    named = {r.pk: base_model_of(r.run) for r in results}
    spelled = model_hub_ids([b for b in named.values() if b])
    bases = {pk: spelled[b] if b else None for pk, b in named.items()}
    on_board, candidates = _base_candidates(results, {b for b in bases.values() if b})
    return [_row(r, bases[r.pk], *_choose_base(r, bases[r.pk], on_board, candidates)) for r in results]


def comparison(result) -> dict:
    """One open-split GGUF run against its base model's 16-bit run: the figures, or why there are none."""
    return comparisons([result])[0]


def _open_gguf_results(hub_ids):
    return [r for r in visible_results(hub_id__in=hub_ids, protocol=None, run__backend="llamacpp")
            .select_related("benchmark_version") if r.split not in SEALED_SPLITS]


def variant_entries(*, base_hub_id: str) -> list[str]:
    """The GGUF models on the board made from `base_hub_id` (as their submissions' header facts say, or made here)."""
    submitted = Submission.objects.filter(gguf_facts__base_model__iexact=base_hub_id).values("model_id")
    return list(ModelEntry.objects.filter(Q(pk__in=submitted) | Q(made_from__hub_id__iexact=base_hub_id), hidden=False)
                .exclude(gguf_file="").order_by("hub_id").values_list("hub_id", flat=True))


def on_device(*, hub_id: str) -> dict:
    """A model page's "On-device variants": for a GGUF model, its open-split runs against its base; for any other,
    the GGUF files made from it. role: "file", "base" or "" (neither: nothing to show)."""
    hub_id = model_hub_id(hub_id)
    entry = ModelEntry.objects.filter(hub_id=hub_id).first()
    if entry is not None and entry.gguf_file:
        role, files = "file", [hub_id]
    else:
        files = variant_entries(base_hub_id=hub_id)
        role = "base" if files else ""
    rows = comparisons(_open_gguf_results(files)) if files else []
    return {"role": role, "rows": rows, "note": OPEN_SPLIT_NOTE}
