"""Reads the pages need on top of the apps' selectors: summaries across a board's models.

Everything here aggregates the stored aggregate rows in the database (never per-question data),
in a fixed number of queries whatever the number of models. Per-topic figures are refused for
the sealed split, as in leaderboard.results.selectors.topic_table.
"""
from django.db.models import Avg, Count, F, FloatField, Max, Min, Prefetch, Sum
from django.db.models.functions import Cast

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import Topic
from leaderboard.core.errors import SealedSplitError
from leaderboard.core.rows import first_per_key
from leaderboard.evaluations import display
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.results import selectors as results_selectors
from leaderboard.results.models import Level, ResultAggregate, RunResult
from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.models import Submission


def board_fingerprint(*, benchmark, split, shots) -> str:
    """Changes whenever a result is written to or removed from a board. Reads the results table alone
    (its index), so it stays cheap whatever the planner knows; hides and flags reach cached pages
    through the results cache generation instead (results_changed())."""
    version = bench_selectors.version_current(benchmark=benchmark)
    agg = RunResult.objects.filter(benchmark_version=version, split=split, shots=shots).aggregate(
        count=Count("pk"), last=Max("pk"), scored=Max("scored_at"))
    scored = agg["scored"].isoformat() if agg["scored"] else "-"
    return f"v{version.pk if version else 0}:{agg['count']}:{agg['last']}:{scored}"


def board_shots(*, benchmark) -> list[int]:
    """Shot settings that have results on the benchmark (0 always offered)."""
    shots = set(RunResult.objects.filter(benchmark=benchmark, run__protocol="").values_list("shots", flat=True)
                .distinct())
    return sorted(shots | {0})


def _refuse_sealed(split):
    if display.is_sealed(split):
        raise SealedSplitError(display.SEALED_BREAKDOWN_NOTE)


def _percent(correct, n):
    return round(100 * correct / n, 2) if n else None


def open_board(*, benchmark, split="validation", shots=0) -> dict[int, tuple[str, str, str]]:
    """result id -> (hub_id, revision, precision) of an open-split board: the latest visible result per
    (model, revision, precision), as results.selectors.leaderboard picks them, without loading the
    runs' JSON fields (a page over 1,000 models needs only these columns)."""
    _refuse_sealed(split)
    version = bench_selectors.version_current(benchmark=benchmark)
    key = ("hub_id", "revision", "precision")
    rows = results_selectors.visible_results(benchmark_version=version, split=split, shots=shots).values("pk", *key)
    return {r["pk"]: tuple(r[name] for name in key) for r in first_per_key(rows, *key)}  # newest first in


def topic_summary(*, benchmark, split="validation", shots=0, variant="original") -> list[dict]:
    """Per topic, across the board's models: the mean of the models' accuracies, its spread and the
    pooled accuracy, in taxonomy order. Topics nobody was scored on have models = 0."""
    ids = list(open_board(benchmark=benchmark, split=split, shots=shots))
    ratio = Cast("correct", FloatField()) / Cast("n", FloatField())
    cells = {row["key"]: row for row in (
        ResultAggregate.objects.filter(result_id__in=ids, level=Level.TOPIC, variant=variant, n__gt=0)
        .values("key").annotate(models=Count("id"), n_sum=Sum("n"), correct_sum=Sum("correct"), mean=Avg(ratio),
                                low=Min(ratio), high=Max(ratio)))}
    out = []
    for topic in Topic.objects.filter(benchmark=benchmark).select_related("subcategory__category").order_by("order"):
        cell = cells.get(topic.slug) or {"models": 0, "n_sum": 0, "correct_sum": 0, "mean": None, "low": None,
                                         "high": None}
        out.append({"slug": topic.slug, "topic": topic.name, "subcategory": topic.subcategory.name,
                    "category": topic.subcategory.category.name, "models": cell["models"], "n": cell["n_sum"],
                    "pooled": _percent(cell["correct_sum"], cell["n_sum"]),
                    **{k: None if cell[k] is None else round(100 * cell[k], 2) for k in ("mean", "low", "high")},
                    "published_mrscore": topic.published_mrscore})
    return out


def board_topic_cells(*, results, variant="original") -> dict[int, dict[str, dict]]:
    """result id -> topic slug -> display cell, for a handful of results (the compare page). Open splits only."""
    for r in results:
        _refuse_sealed(r.split)
    out = {r.pk: {} for r in results}
    for a in ResultAggregate.objects.filter(result__in=list(out), level=Level.TOPIC, variant=variant):
        out[a.result_id][a.key] = {"name": a.name, **display.cell(split="validation", n=a.n, correct=a.correct)}
    return out


def latest_result(*, hub_id, benchmark, split="validation", shots=0):
    """A model's newest visible result on a board (any revision or precision), or None."""
    version = bench_selectors.version_current(benchmark=benchmark)
    return results_selectors.visible_results(hub_id=hub_id, benchmark_version=version, split=split,
                                             shots=shots).first()


def overall_cells(*, results, variant="original") -> dict[int, dict]:
    """result id -> overall display cell (primary variant unless one is named)."""
    out = {}
    by_pk = {r.pk: r for r in results}
    for a in ResultAggregate.objects.filter(result__in=list(by_pk), level=Level.OVERALL):
        result = by_pk[a.result_id]
        if a.variant == (variant or result.primary_variant):
            out[a.result_id] = display.cell(split=result.split, n=a.n, correct=a.correct)
    return out


def models_with_results(*, benchmark, split="validation", shots=0, limit=None) -> list[str]:
    """Hub ids on an open-split board, best first by overall accuracy (the compare page's chooser)."""
    ids = list(open_board(benchmark=benchmark, split=split, shots=shots))
    rows = (ResultAggregate.objects.filter(result_id__in=ids, level=Level.OVERALL, n__gt=0,
                                          variant=F("result__primary_variant"))
            .annotate(acc=Cast("correct", FloatField()) / Cast("n", FloatField()))
            .order_by("-acc", "result__hub_id").values("result__hub_id"))
    out = [r["result__hub_id"] for r in first_per_key(rows, "result__hub_id")]  # best first in: each model's best
    return out[:limit] if limit else out


# --- Submissions: the public queue, an author's own submissions --------------------------------------------------

def submission_current_status(*, submission) -> str:
    """The submission's status over its current runs, by the submissions app's rule: a run an admin re-ran is
    history, so an old failure no longer decides the headline once its re-run succeeds."""
    current = Submission.objects.prefetch_related(Prefetch("runs", queryset=EvaluationRun.objects.filter(
        reruns__isnull=True))).get(pk=submission.pk)
    return submission_selectors.submission_status(submission=current)


def public_hub_id(run) -> str | None:
    """The hub id a public page may name for a run: a submitted model's, unless the model, the submission or
    the run is hidden. Runs an operator started by hand (no submission; their model may be a local path) and
    uploaded predictions are not named."""
    submission = run.submission
    if submission is None or submission.kind != "model" or submission.hidden or run.hidden or submission.model.hidden:
        return None
    return submission.model.hub_id


QUEUE_PAGE_RUNS = 200


def run_queue(*, limit=QUEUE_PAGE_RUNS) -> list[dict]:
    """Runs under way, then queued runs in the order they start (position per GPU queue, as
    submissions.selectors.run_queue_position counts it), with their ETA."""
    active = (RunStatus.RUNNING, RunStatus.SCORING, RunStatus.QUEUED)
    runs = (EvaluationRun.objects.filter(status__in=active)
            .select_related("submission__model", "benchmark_version__benchmark").order_by("pk"))
    rows, positions = [], {}
    for run in runs:
        position = None
        if run.status == RunStatus.QUEUED:
            position = positions[run.queue] = positions.get(run.queue, 0) + 1
        rows.append({"run": run, "position": position, "hub_id": public_hub_id(run),
                     "params": run.submission.model.params if run.submission else None})
    rows.sort(key=lambda r: (r["position"] is not None, r["run"].queue, r["position"] or 0, r["run"].pk))
    rows = rows[:limit]
    for row in rows:
        row["eta_seconds"] = submission_selectors.run_eta_seconds(run=row["run"])
    return rows


MY_SUBMISSIONS_SHOWN = 50


def my_submissions(*, user, limit=MY_SUBMISSIONS_SHOWN) -> tuple[list, int]:
    """The user's newest submissions (hidden ones too: they are the author's) with the current status of each,
    and how many there are in all."""
    mine = submission_selectors.submissions_of(user=user).order_by("-created_at")
    out = list(mine[:limit])
    for submission in out:
        submission.current_status = submission_current_status(submission=submission)
    return out, mine.count()
