"""Celery tasks of the default (trusted) queue: scoring, notices, the sweeper and the reconciler."""
import logging

from celery import shared_task

from leaderboard.core.leases import exclusive
from leaderboard.core.logging import log_context

from . import lifecycle, notices, services
from .models import EvaluationRun

log = logging.getLogger(__name__)


@shared_task(name="evaluations.score_run", acks_late=True, ignore_result=False)  # ids only: kept for operators
def score_run(run_id: int) -> dict:
    with log_context(run_id=run_id):
        # Conditional: only a run that finished predicting is scored, by one scorer, attempts counted.
        if not lifecycle.score_claim(run_id=run_id):
            return {"run": run_id, "scored": False}
        try:
            services.run_score(run=EvaluationRun.objects.select_related("benchmark_version").get(pk=run_id))
        except Exception as exc:  # noqa: BLE001 - counted; FAILED with a notice after RUN_MAX_ATTEMPTS
            log.warning("run %s: scoring failed (%s)", run_id, type(exc).__name__)
            return {"run": run_id, "scored": False, "status": lifecycle.score_failed(run_id=run_id, exc=exc)}
        lifecycle.run_finished(run_id=run_id)
        return {"run": run_id, "scored": True}


@shared_task(name="evaluations.notify_run", ignore_result=True)
def notify_run(run_id: int) -> None:
    with log_context(run_id=run_id):
        notices.run_notify(run_id=run_id)


@shared_task(name="evaluations.sweep", ignore_result=True)
def sweep() -> dict:
    with exclusive("evaluations.sweep") as mine:
        return lifecycle.sweep() if mine else {"skipped": "another sweeper holds the lock"}


@shared_task(name="evaluations.reconcile", ignore_result=True)
def reconcile() -> int | dict:
    with exclusive("evaluations.reconcile") as mine:
        return lifecycle.reconcile() if mine else {"skipped": "another reconciler holds the lock"}
