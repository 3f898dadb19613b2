"""The GPU worker's database role can do a run's work and nothing that a malicious model could abuse."""
import io
import uuid

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction
from rest_framework.authtoken.models import Token

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.core.models import AuditRecord
from leaderboard.evaluations import runner, services
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.results.models import ResultAggregate, RunResult

pytestmark = pytest.mark.django_db


@pytest.fixture
def gpu_role():
    """A fresh role (the test transaction's rollback removes it again), granted by the command."""
    role = f"gpu_worker_test_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
    call_command("grant_worker_role", role, stdout=io.StringIO())
    return role


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


def test_it_works(demo_loaded, biased_model_dir, gpu_role, settings):
    """The real prediction path (claim, questions, chunks, progress, hand-off to scoring) under the role."""
    settings.RUN_BATCH_SIZE = 32
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref=str(biased_model_dir))
    with acting_as(gpu_role):
        result = runner.predict(run.pk)
    run.refresh_from_db()
    assert result["claimed"] and run.status == RunStatus.SCORING, (result, run.failure_reason)
    assert PredictionChunk.objects.filter(run=run).count() == 2 and run.progress_done == 480


def test_it_refuses_what_the_gpu_worker_must_not_touch(demo_loaded, gpu_role):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref="org/model")
    with acting_as(gpu_role):
        # Allowed: its own work.
        assert not refused("SELECT uid, text FROM benchmarks_question LIMIT 1")
        assert not refused("UPDATE evaluations_evaluationrun SET progress_done = 1 WHERE id = %s", [run.pk])
        # Refused: credentials, sessions, tokens, audit, results, and the run columns pages trust.
        for model in (User, Session, Token, AuditRecord, ResultAggregate):
            assert refused(f"SELECT * FROM {model._meta.db_table} LIMIT 1"), model
        assert refused(f"DELETE FROM {RunResult._meta.db_table}")
        assert refused("UPDATE evaluations_evaluationrun SET summary = '{}' WHERE id = %s", [run.pk])
        assert refused("UPDATE evaluations_evaluationrun SET hidden = true WHERE id = %s", [run.pk])
        assert refused("UPDATE benchmarks_question SET text = 'x'")
        assert refused("DELETE FROM evaluations_predictionchunk")
        assert refused("CREATE TABLE smuggled (x int)")
    assert EvaluationRun.objects.get(pk=run.pk).progress_done == 1


def test_it_handles_a_missing_role(db):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("grant_worker_role", "no_such_role_here")


def test_it_refuses_an_unsafe_role_name(db):
    with pytest.raises(CommandError, match="not a plain PostgreSQL role name"):
        call_command("grant_worker_role", 'gpu"; DROP TABLE auth_user; --')
