"""Celery tasks of the default (trusted) queue: scoring, notices, the sweeper and the reconciler."""
from celery import shared_task

from leaderboard.core.logging import log_context

from . import lifecycle, notices, services
from .models import EvaluationRun, RunStatus


@shared_task(name="evaluations.score_run", acks_late=True, ignore_result=False)  # ids only: kept for operators
def score_run(run_id: int) -> dict:
    with log_context(run_id=run_id):
        # Conditional: only a run that finished predicting is scored, and only once.
        claimed = EvaluationRun.objects.filter(pk=run_id, status=RunStatus.SCORING).exists()
        if not claimed:
            return {"run": run_id, "scored": False}
        services.run_score(run=EvaluationRun.objects.select_related("benchmark_version").get(pk=run_id))
        lifecycle.run_finished(run_id=run_id)
        return {"run": run_id, "scored": True}


@shared_task(name="evaluations.notify_run", ignore_result=True)
def notify_run(run_id: int) -> None:
    with log_context(run_id=run_id):
        notices.run_notify(run_id=run_id)


@shared_task(name="evaluations.sweep", ignore_result=True)
def sweep() -> dict:
    return lifecycle.sweep()


@shared_task(name="evaluations.reconcile", ignore_result=True)
def reconcile() -> int:
    return lifecycle.reconcile()
