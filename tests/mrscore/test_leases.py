"""MRScore jobs are leased like evaluation runs (leaderboard/core/leases.py): a job whose worker died is taken
back by beat's sweeper, and one that has used its attempts ends FAILED with a reason."""
from datetime import timedelta

import pytest
from celery import current_app
from django.utils import timezone

from leaderboard.mrscore import services, tasks
from leaderboard.mrscore.models import JobStatus, MRScoreJob

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(demo_loaded, judge_server):
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    return services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"])[0]


@pytest.fixture
def sent(monkeypatch):
    messages = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, queue, countdown: messages.append(args))
    return messages


def worker_dies(job):
    MRScoreJob.objects.filter(pk=job.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))


def test_a_job_whose_worker_died_is_requeued_then_failed_past_its_attempts(job, sent, settings,
                                                                            django_capture_on_commit_callbacks):
    for attempt in range(1, settings.RUN_MAX_ATTEMPTS):
        assert services.job_claim(job=job) and job.attempts == attempt
        worker_dies(job)
        with django_capture_on_commit_callbacks(execute=True):
            assert tasks.sweep() == {"requeued": 1, "failed": 0}
        job.refresh_from_db()
        assert job.status == JobStatus.QUEUED and job.lease_expires_at is None and sent == [[job.pk]] * attempt
        assert f"attempt {attempt}" in job.failure_reason
    assert services.job_claim(job=job) and job.attempts == settings.RUN_MAX_ATTEMPTS
    worker_dies(job)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep() == {"requeued": 0, "failed": 1}
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.finished_at and job.lease_expires_at is None
    assert job.failure_reason.startswith(f"after {settings.RUN_MAX_ATTEMPTS} attempts") and "lease" in job.failure_reason
    assert len(sent) == settings.RUN_MAX_ATTEMPTS - 1  # no message for a failed job
    assert not services.job_claim(job=job)


def test_the_sweeper_leaves_a_renewed_lease_alone(job, sent):
    services.job_claim(job=job)
    worker_dies(job)
    services._store_chunk(job)(0, [{"uid": "x", "score": 7.0, "method": "parsed", "raw": "7"}])  # renews
    assert tasks.sweep() == {"requeued": 0, "failed": 0} and sent == []
    assert MRScoreJob.objects.get(pk=job.pk).status == JobStatus.RUNNING


def test_a_redelivered_message_never_starts_one_attempt_more(job, sent, settings, judge_server):
    MRScoreJob.objects.filter(pk=job.pk).update(attempts=settings.RUN_MAX_ATTEMPTS)
    assert tasks.judge_job.run(job.pk) == {"job": job.pk, "claimed": False}
    assert judge_server.requests == []


def test_a_superseded_worker_stops_without_touching_the_job(job, sent):
    services.job_claim(job=job)
    first = MRScoreJob.objects.get(pk=job.pk)
    worker_dies(job)
    assert services.job_claim(job=job) and job.attempts == 2  # the lease lapsed: another worker took over
    with pytest.raises(services.JobCancelled):
        services._store_chunk(first)(0, [])
    assert services.job_attempt_failed(job=first, attempt=first.attempts, reason="boom") == JobStatus.RUNNING
    after = MRScoreJob.objects.get(pk=job.pk)
    assert after.attempts == 2 and after.failure_reason == "" and sent == []
