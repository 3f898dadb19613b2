"""Celery glue: the task takes a job id, claims the job by a conditional update, and calls the services.

Routed per job: a local judge model goes to the `gpu` queue, an HTTP judge to `default`
(services.job_enqueue). Retries are counted in the database (attempts); after
RUN_MAX_ATTEMPTS the job ends FAILED with its reason. The result holds ids only.
"""
import logging

from celery import shared_task
from django.conf import settings

from . import selectors, services

logger = logging.getLogger(__name__)


@shared_task(name="mrscore.judge", acks_late=True)
def judge_job(job_id: int):
    job = selectors.job_get(job_id=job_id)
    if job is None or not services.job_claim(job=job):
        return {"job": job_id, "claimed": False}
    try:
        judge = services.job_build_judge(job=job)
        services.job_run(job=job, judge=judge)
        services.job_finalize(job=job)
    except services.JobCancelled:
        return {"job": job_id, "claimed": True, "status": "cancelled"}
    except Exception as exc:  # noqa: BLE001 - every failure is recorded on the job
        reason = services.safe_reason(job=job, exc=exc)
        job.refresh_from_db()
        if job.attempts >= services.max_attempts():
            services.job_fail(job=job, reason=f"after {job.attempts} attempts: {reason}")
            logger.warning("MRScore job %s failed after %s attempts", job_id, job.attempts)
            return {"job": job_id, "claimed": True, "status": "failed"}
        services.job_requeue(job=job, reason=f"attempt {job.attempts}: {reason}")
        logger.info("MRScore job %s: attempt %s failed; retrying", job_id, job.attempts)
        judge_job.apply_async(args=[job_id], queue=services.job_queue_name(job=job),
                              countdown=getattr(settings, "RUN_RETRY_DELAY_SECONDS", 30))
        return {"job": job_id, "claimed": True, "status": "retrying"}
    return {"job": job_id, "claimed": True, "status": "succeeded"}
