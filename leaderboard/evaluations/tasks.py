"""Celery tasks of the runs (ids in, ids out): the GPU queue's prediction task, and on the default (trusted)
queue notices, the sweeper and the reconciler (scoring is leaderboard.scoring.tasks)."""
import logging

from celery import shared_task

from leaderboard.core.leases import exclusive
from leaderboard.core.logging import log_context

from . import broker, lifecycle, notices
from .runner import predict

log = logging.getLogger(__name__)


# The name is older than this module and stays: queued messages, the GPU route ("evaluator.*" in
# CELERY_TASK_ROUTES) and the reconciler's broker scan (broker.TASK) all go by it.
@shared_task(name=broker.TASK, acks_late=True, reject_on_worker_lost=True, ignore_result=False)
def predict_run(run_id: int) -> dict:
    """GPU queue: claim the run, predict it in a process of its own, hand off scoring (runner.predict)."""
    with log_context(run_id=run_id):  # every log line of the run carries its id
        return predict(run_id)


@shared_task(name=lifecycle.NOTIFY_TASK, ignore_result=True)
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
