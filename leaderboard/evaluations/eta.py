"""How long runs take, for the ETAs on the status, queue and my-submissions pages.

A run's work is its predictions (questions × answer orders, fixed in its plan) times the model's size in
billions of parameters: one forward pass per prediction, whose cost grows with the parameters. The queue's
pace is the median seconds per unit of work of its last successful runs. Below MIN_BILLIONS, loading and
per-question overhead dominate, so smaller models count as that size. A run under way is timed by its own
pace once it has predictions to show.
"""
from statistics import median

from django.db.models import F, Sum

from .models import EvaluationRun, RunStatus

RECENT_RUNS = 20
MIN_BILLIONS = 0.5


def _billions(params, typical=1.0):
    return max((params / 1e9) if params else typical, MIN_BILLIONS)


def queue_pace(queue: str) -> tuple[float, float] | None:
    """(seconds per unit of work, typical size in billions) from the queue's recent successful runs; None if none."""
    recent = (EvaluationRun.objects.filter(queue=queue, status=RunStatus.SUCCEEDED, started_at__isnull=False,
                                           finished_at__isnull=False, progress_total__gt=0)
              .order_by("-finished_at")
              .values_list("started_at", "finished_at", "progress_total", "submission__model__params")[:RECENT_RUNS])
    rows = list(recent)
    if not rows:
        return None
    sizes = [p / 1e9 for *_, p in rows if p]
    typical = median(sizes) if sizes else 1.0
    pace = median((end - start).total_seconds() / (total * _billions(params, typical))
                  for start, end, total, params in rows)
    return pace, typical


def run_seconds(*, predictions: int, params: int | None, pace: tuple[float, float]) -> float:
    """The whole run, before it starts."""
    per_work, typical = pace
    return per_work * predictions * _billions(params, typical)


def remaining_seconds(run: EvaluationRun, pace: tuple[float, float] | None, now) -> float | None:
    """What is left of a run that has started: its own measured pace once it has predictions, else the queue's
    (None without either)."""
    left = max(run.progress_total - run.progress_done, 0)
    if run.status == RunStatus.SCORING or not run.progress_total:
        return 0.0
    if run.progress_done and run.started_at:
        return (now - run.started_at).total_seconds() / run.progress_done * left
    return None if pace is None else run_seconds(predictions=left, params=run_params(run), pace=pace)


def waiting_work_seconds(*, queue: str, before_pk: int, pace: tuple[float, float]) -> float:
    """Queued runs of `queue` that start before run `before_pk`, in seconds, in one query."""
    per_work, typical = pace
    rows = (EvaluationRun.objects.filter(queue=queue, status=RunStatus.QUEUED, pk__lt=before_pk)
            .values("submission__model__params").annotate(predictions=Sum(F("progress_total"))))
    return sum(per_work * r["predictions"] * _billions(r["submission__model__params"], typical) for r in rows)


def run_params(run):
    submission = run.submission
    return submission.model.params if submission is not None else None
