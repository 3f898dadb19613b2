"""The run lifecycle with real PostgreSQL, real Redis and real Celery worker processes (ARCHITECTURE §8)."""
import os
import signal

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations import lifecycle
from leaderboard.evaluations.models import EvaluationRun, FailureCode, PredictionChunk, RunStatus
from leaderboard.evaluations.selectors import run_rows
from leaderboard.hub.ids import ModelRef
from leaderboard.submissions.services import submission_create
from tests.support.lifecycle import start_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
FAST = dict(RUN_CHUNK_SIZE=48, RUN_LEASE_SECONDS=3, RUN_RETRY_DELAY_SECONDS=0, RUN_BATCH_SIZE=16, RUN_TORCH_THREADS=1)


@pytest.fixture
def fast_runs(settings):
    for key, value in FAST.items():
        setattr(settings, key, value)
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original", "R1"]
    return FAST


@pytest.fixture
def author(demo_loaded):
    return User.objects.create_user("author", "author@example.com", "pw")


def submit(author, **kwargs):
    return submission_create(user=author, ref=ModelRef("demo-org/tiny"), **kwargs)


def finished(submission):
    runs = list(EvaluationRun.objects.filter(submission=submission))
    return runs if runs and all(r.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) for r in runs) else None


def test_it_works(client, author, hub_model, redis_broker, fast_runs):
    """Submit through the API; watch progress move through the status API; the run finishes and is scored."""
    client.force_login(author)
    # Production topology: the GPU worker has no sealed key and no site secret; scoring is on the default worker.
    with start_worker(queues="gpu", **fast_runs) as worker, start_worker(queues="default", **fast_runs) as scorer:
        response = client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny"}, content_type="application/json")
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["revision_sha"] == hub_model.sha and body["runs"][0]["queue_position"] == 1
        url = reverse("api-submission-detail", args=[body["id"]])
        seen = []

        def done():
            status = client.get(url).json()
            seen.append(sum(r["items_done"] for r in status["runs"]))
            return status if status["status"] in ("succeeded", "failed") else None

        status = wait_until(done, timeout=180, interval=0.3,
                            message=lambda: f"the submission to finish\n{worker.log[-2000:]}\n{scorer.log[-1000:]}")
    assert status["status"] == "succeeded", status
    assert len(set(seen)) >= 3 and seen == sorted(seen), f"progress did not move forward: {seen}"
    validation, test = status["runs"]
    assert validation["split"] == "validation" and validation["accuracy"] is not None
    assert test["split"] == "test" and test["items_done"] == test["items_total"] == 480
    assert test["accuracy"] is not None  # predicted without the key, scored on the trusted side


def test_a_killed_worker_is_resumed_from_its_last_chunk(author, hub_model, redis_broker, fast_runs, settings):
    settings.SUBMISSION_DEFAULT_BENCHMARKS = ["mobile-mmlu"]
    submission = submit(author)
    run = EvaluationRun.objects.get(submission=submission, split="validation")
    first = start_worker(queues="gpu", **fast_runs)
    try:
        wait_until(lambda: PredictionChunk.objects.filter(run=run).count() >= 3, timeout=120,
                   message=lambda: f"a few chunks\n{first.log[-2000:]}")
        os.kill(first.proc.pid, signal.SIGKILL)  # no warm shutdown, no ack
        first.proc.wait()
    finally:
        first.stop()
    done_before = PredictionChunk.objects.filter(run=run).count()
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and done_before < 20

    wait_until(lambda: lifecycle.sweep()["requeued"], timeout=30, message="the lease to expire")
    with start_worker(**fast_runs) as second:
        wait_until(lambda: finished(submission), timeout=180, message=lambda: f"resumed run\n{second.log[-2000:]}")
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.attempts == 2
    chunks = list(PredictionChunk.objects.filter(run=run).values_list("index", flat=True))
    assert chunks == sorted(set(chunks)) and len(chunks) == 20  # 960 rows / 48, none twice

    # An uninterrupted run of the same model gives the same predictions.
    from leaderboard.evaluations import services

    straight = services.run_create(version=run.benchmark_version, split="validation", model_ref=run.model_ref,
                                   model_revision=run.model_revision, variants=run.variants)
    with start_worker(queues="gpu", **fast_runs) as third:
        from leaderboard.evaluations.lifecycle import send_predict

        send_predict(straight.pk)
        wait_until(lambda: EvaluationRun.objects.get(pk=straight.pk).status == RunStatus.SCORING, timeout=180,
                   message=lambda: f"the straight run\n{third.log[-2000:]}")
    assert run_rows(run=straight) == run_rows(run=run)


def test_a_task_delivered_twice_makes_one_run(author, hub_model, redis_broker, fast_runs):
    submission = submit(author, benchmarks=["mobile-mmlu"])
    run = EvaluationRun.objects.get(submission=submission, split="validation")
    lifecycle.send_predict(run.pk)  # a duplicate of the message queued on commit
    with start_worker(**fast_runs) as worker:
        wait_until(lambda: finished(submission), timeout=180, message=lambda: worker.log[-2000:])
        assert "not claimable" in worker.log or worker.wait_for("not claimable", timeout=10)
    run.refresh_from_db()
    assert run.attempts == 1 and EvaluationRun.objects.filter(submission=submission).count() == 2
    rows = run_rows(run=run)
    assert len(rows) == len({(r["question_id"], r["variant"]) for r in rows}) == 960


def test_a_model_that_crashes_on_load_fails_after_three_attempts(author, fake_hub, tiny_model_dir, redis_broker,
                                                                  fast_runs):
    from tests.support.fake_hub import files_from_folder

    files = files_from_folder(tiny_model_dir)
    files["model.safetensors"] = b"\xff" * 64  # not a safetensors file: loading raises every time
    files["README.md"] = b"---\nlicense: mit\n---\n"
    fake_hub.add_repo("demo-org/broken", repo_type="model", files=files, safetensors=1_000_000, license="mit")
    submission = submission_create(user=author, ref=ModelRef("demo-org/broken"))
    with start_worker(**fast_runs) as worker:
        runs = wait_until(lambda: finished(submission), timeout=180, message=lambda: worker.log[-3000:])
    for run in runs:
        assert run.status == RunStatus.FAILED and run.attempts == 3
        assert run.failure_code == FailureCode.MODEL_LOAD_ERROR
    assert "(details withheld: sealed split)" in next(r for r in runs if r.split == "test").log_excerpt


def test_no_run_is_lost_when_redis_is_flushed(author, hub_model, redis_broker, fast_runs, settings):
    import redis

    first = submit(author, benchmarks=["mobile-mmlu"])
    redis.Redis.from_url(redis_broker).flushdb()  # every queued message is gone (this database only)
    settings.RECONCILE_AFTER_SECONDS = 1
    wait_until(lambda: lifecycle.reconcile(), timeout=10, message="the reconciler to find the queued runs")

    def done():
        # The reconciler runs on, as beat runs it: a run published less than RECONCILE_AFTER_SECONDS before its first
        # pass is found at a later one (a full run saw one run of two republished and the other wait for ever). A
        # message still in the broker is left alone, so no run is published twice.
        lifecycle.reconcile()
        return finished(first)

    with start_worker(**fast_runs) as worker:
        runs = wait_until(done, timeout=240, message=lambda: worker.log[-2000:])
    assert all(r.status == RunStatus.SUCCEEDED for r in runs)
