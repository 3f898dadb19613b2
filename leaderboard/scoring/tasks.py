"""The scoring task of the default (trusted) queue. Its name keeps the `evaluations.` prefix of the messages
already queued and of the operators' dashboards; lifecycle.send_score sends it by that name."""
import logging

from celery import shared_task

from leaderboard.core.logging import log_context
from leaderboard.evaluations import lifecycle
from leaderboard.evaluations.models import EvaluationRun

from . import services

log = logging.getLogger(__name__)


@shared_task(name=lifecycle.SCORE_TASK, acks_late=True, ignore_result=False)  # ids only: kept for operators
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
