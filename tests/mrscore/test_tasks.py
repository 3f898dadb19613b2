"""The Celery task through a real worker process and Redis (no eager mode): an HTTP judge job on the
default queue, claimed by a conditional update, finalised with its aggregates."""
import pytest
from celery import current_app

from leaderboard.benchmarks.demo import demo_import
from leaderboard.mrscore import services
from leaderboard.mrscore.models import JobStatus, MRScoreJob
from tests.support.lifecycle import start_worker, wait_until
from tests.support.parallel import spare_broker

# A broker database of its own: a worker of another test session on the shared test broker must not take
# this job (it would look for it in another database).
BROKER = spare_broker()


def flush_broker():
    import redis

    redis.Redis.from_url(BROKER).flushdb()

@pytest.mark.slow
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_it_works(judge_server):
    demo_import()
    judge_server.reply = lambda q: "6/10"
    flush_broker()
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint, revision="r9")
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"], chunk_size=200)
    assert services.job_queue_name(job=job) == "default"
    from leaderboard.celery import app
    from leaderboard.mrscore.tasks import judge_job

    with start_worker(queues="default", CELERY_BROKER_URL=BROKER) as worker, app.connection_for_write(BROKER) as conn:
        judge_job.apply_async(args=[job.pk], queue=services.job_queue_name(job=job), connection=conn)
        try:
            wait_until(lambda: MRScoreJob.objects.get(pk=job.pk).status in (JobStatus.SUCCEEDED, JobStatus.FAILED),
                       timeout=60, message="the MRScore job to finish")
        except AssertionError:
            raise AssertionError(worker.log[-3000:]) from None
        assert worker.wait_for("mrscore.judge", timeout=10)
        log = worker.log
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED, job.failure_reason + log[-2000:]
    assert job.attempts == 1 and job.summary["mean"] == pytest.approx(6.0)
    assert job.topic_scores.count() == 80 and job.judge_details["served_models"] == ["judge-x"]
    assert "Which" not in log  # no question text in the worker's log
    flush_broker()


@pytest.mark.django_db
def test_it_enqueues_on_commit_by_judge_kind(judge_server, demo_loaded, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, queue, countdown: sent.append((name, args, queue)))
    http, _ = services.job_create(benchmark_slug="mobile-mmlu", splits=["validation"],
                                  spec=services.judge_spec_from_options(model="m", endpoint=judge_server.endpoint))
    local, _ = services.job_create(benchmark_slug="mobile-mmlu", splits=["validation"],
                                   spec=services.judge_spec_from_options(model="org/judge", revision="abc"))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.job_enqueue(job=http)
        services.job_enqueue(job=local)
    assert sent == [] and len(callbacks) == 2  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    assert sent == [("mrscore.judge", [http.pk], "default"), ("mrscore.judge", [local.pk], "gpu")]


@pytest.mark.django_db
def test_it_handles_a_job_that_is_already_claimed(judge_server):
    demo_import()
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"])
    assert services.job_claim(job=job)
    from leaderboard.mrscore.tasks import judge_job

    assert judge_job.run(job.pk) == {"job": job.pk, "claimed": False}  # a duplicate delivery does nothing
    assert judge_server.requests == []
