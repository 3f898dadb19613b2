"""The GPU worker's database role can do a run's work and nothing that a malicious model could abuse."""
import io
import uuid

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from knox.models import AuthToken

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.core.models import AuditRecord
from leaderboard.core.routing import parse_gpu_queues
from leaderboard.evaluations import lifecycle, runner, services
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.results.models import ResultAggregate, RunResult
from leaderboard.submissions.models import ModelEntry, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def gpu_role():
    """A fresh role (the test transaction's rollback removes it again), granted by the command."""
    role = f"gpu_worker_test_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
    call_command("grant_worker_role", role, stdout=io.StringIO())
    return role


@pytest.fixture
def broker(settings):
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("gpu-small", "gpu-large")
    yield client
    client.delete("gpu-small", "gpu-large")


class acting_as:
    """Run the enclosed queries as `role` (SET ROLE), then return to the test's superuser."""

    def __init__(self, role):
        self.role = role

    def __enter__(self):
        with connection.cursor() as cursor:
            cursor.execute(f'SET ROLE "{self.role}"')

    def __exit__(self, *exc):
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def refused(sql, params=()):
    """True when PostgreSQL refuses the statement for lack of privilege."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
    except DatabaseError as exc:
        assert "permission denied" in str(exc), exc
        return True
    return False


def predict_here(run_id):
    """The GPU task's steps in this process (and so under this connection's role): claim, the prediction
    process's body, record. The process boundary itself is covered by the worker tests."""
    run = lifecycle.run_claim_for_worker(run_id=run_id)
    outcome = runner.predict_claimed(run_id=run_id, attempt=run.attempts)
    return runner.record(run_id=run_id, attempt=run.attempts, outcome=outcome)


def test_it_works(demo_loaded, biased_model_dir, gpu_role, settings, monkeypatch, broker,
                  django_capture_on_commit_callbacks):
    """The real prediction path under the role: claim, questions, chunks, progress, a failed attempt
    retried on the run's stored queue, resumed from its stored chunk, handed off to scoring."""
    settings.RUN_BATCH_SIZE = 32
    settings.GPU_QUEUE_CLASSES = parse_gpu_queues("gpu-small:14e9,gpu-large")
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    model = ModelEntry.objects.create(hub_id="org/big-70b", namespace="org", params=70_000_000_000)
    submission = Submission.objects.create(submitter=User.objects.create_user("author"), model=model)
    run = services.run_create(version=version, split="validation", model_ref=str(biased_model_dir),
                              submission=submission)
    lifecycle.run_enqueue(run=run, route=True)  # the trusted side routes a new run
    beats, heartbeat = [], lifecycle.run_heartbeat

    def flaky_heartbeat(*, run):  # the second beat comes after the first chunk is stored
        beats.append(run.pk)
        if len(beats) == 2:
            raise RuntimeError("flaky GPU")
        heartbeat(run=run)

    monkeypatch.setattr(lifecycle, "run_heartbeat", flaky_heartbeat)
    with acting_as(gpu_role):
        with django_capture_on_commit_callbacks(execute=True):  # publishes the retry, as the role
            first = predict_here(run.pk)
        second = predict_here(run.pk)
    run.refresh_from_db()
    assert first["status"] == RunStatus.QUEUED and broker.llen("gpu-large") == 1 and broker.llen("gpu-small") == 0
    assert second["claimed"] and run.status == RunStatus.SCORING, (second, run.failure_reason)
    assert run.attempts == 2 and run.queue == "gpu-large"
    assert PredictionChunk.objects.filter(run=run).count() == 2 and run.progress_done == 480


def test_it_refuses_what_the_gpu_worker_must_not_touch(demo_loaded, gpu_role):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref="org/model")
    with acting_as(gpu_role):
        # Allowed: its own work.
        assert not refused("SELECT uid, text FROM benchmarks_question LIMIT 1")
        assert not refused("SELECT id, status, queue, attempts, probe_rows FROM evaluations_evaluationrun")
        assert not refused("UPDATE evaluations_evaluationrun SET progress_done = 1 WHERE id = %s", [run.pk])
        # Refused: credentials, sessions, tokens, submissions, audit, results, the run columns pages trust,
        # and every run's summary (exact per-topic counts, sealed runs' included).
        for model in (User, Session, AuthToken, Submission, ModelEntry, AuditRecord, ResultAggregate):
            assert refused(f"SELECT * FROM {model._meta.db_table} LIMIT 1"), model
        assert refused("SELECT summary FROM evaluations_evaluationrun")
        assert refused("SELECT * FROM evaluations_evaluationrun")
        assert refused(f"DELETE FROM {RunResult._meta.db_table}")
        assert refused("UPDATE evaluations_evaluationrun SET summary = '{}' WHERE id = %s", [run.pk])
        assert refused("UPDATE evaluations_evaluationrun SET hidden = true WHERE id = %s", [run.pk])
        assert refused("UPDATE evaluations_evaluationrun SET queue = 'gpu-x' WHERE id = %s", [run.pk])
        assert refused("UPDATE benchmarks_question SET text = 'x'")
        assert refused("DELETE FROM evaluations_predictionchunk")
        assert refused("CREATE TABLE smuggled (x int)")
    assert EvaluationRun.objects.get(pk=run.pk).progress_done == 1


def test_it_shows_the_role_chunks_of_running_runs_only(demo_loaded, gpu_role):
    """Row-level security: other runs' predictions stay out of reach, its own run's are there to resume."""
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    running, scored = (services.run_create(version=version, split="validation", model_ref=f"org/model-{i}")
                       for i in range(2))
    EvaluationRun.objects.filter(pk=running.pk).update(status=RunStatus.RUNNING)
    EvaluationRun.objects.filter(pk=scored.pk).update(status=RunStatus.SUCCEEDED)
    for run in (running, scored):
        PredictionChunk.objects.create(run=run, index=0, rows=[{"question_id": "q1", "predicted": "A"}])
    with acting_as(gpu_role):
        assert list(PredictionChunk.objects.values_list("run_id", flat=True)) == [running.pk]
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            PredictionChunk.objects.bulk_create([PredictionChunk(run=scored, index=1, rows=[])])
        PredictionChunk.objects.bulk_create([PredictionChunk(run=running, index=i, rows=[]) for i in (0, 1)],
                                            ignore_conflicts=True)  # a chunk re-sent after a crash is ignored
    assert PredictionChunk.objects.filter(run=scored).count() == 1
    assert PredictionChunk.objects.filter(run=running).count() == 2


def test_it_handles_a_missing_role(db):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("grant_worker_role", "no_such_role_here")


def test_it_refuses_an_unsafe_role_name(db):
    with pytest.raises(CommandError, match="not a plain PostgreSQL role name"):
        call_command("grant_worker_role", 'gpu"; DROP TABLE auth_user; --')
