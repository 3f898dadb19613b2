"""Celery glue for the GPU queue: ids in, ids out. The work is in leaderboard.evaluations.runner."""
from celery import shared_task


@shared_task(name="evaluator.predict_run", acks_late=True, reject_on_worker_lost=True, ignore_result=False)
def predict_run(run_id: int) -> dict:
    from leaderboard.core.logging import log_context
    from leaderboard.evaluations.runner import predict

    with log_context(run_id=run_id):  # every log line of the run carries its id
        return predict(run_id)
