"""Celery glue: the task takes a job id, claims the job by a conditional update, and calls the services.

Routed per job: a local judge model goes to the `gpu` queue, an HTTP judge to `default`
(services.job_enqueue). Retries are counted in the database (attempts); after
RUN_MAX_ATTEMPTS the job ends FAILED with its reason. The result holds ids only.
"""
import logging

from celery import shared_task

from leaderboard.core.leases import exclusive

from . import selectors, services
from .models import JobStatus

logger = logging.getLogger(__name__)


@shared_task(name=services.JUDGE_TASK, acks_late=True)
def judge_job(job_id: int):
    job = selectors.job_get(job_id=job_id)
    if job is None or not services.job_claim(job=job):
        return {"job": job_id, "claimed": False}
    attempt = job.attempts
    try:
        judge = services.job_build_judge(job=job)
        services.job_run(job=job, judge=judge)
        services.job_finalize(job=job)
    except services.JobCancelled:
        return {"job": job_id, "claimed": True, "status": "cancelled"}
    except Exception as exc:  # every failure is recorded on the job
        status = services.job_attempt_failed(job=job, attempt=attempt,
                                             reason=services.safe_reason(job=job, exc=exc))
        logger.warning("MRScore job %s: attempt %s failed; now %s", job_id, attempt, status)
        return {"job": job_id, "claimed": True, "status": {JobStatus.QUEUED: "retrying"}.get(status, str(status))}
    return {"job": job_id, "claimed": True, "status": "succeeded"}


@shared_task(name="mrscore.sweep", ignore_result=True)
def sweep() -> dict:
    with exclusive("mrscore.sweep") as mine:
        return services.jobs_sweep() if mine else {"skipped": "another sweeper holds the lock"}
