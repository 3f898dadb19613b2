"""The run lifecycle's guarantees, each as an operator hit its failure: attempts, leases on the database's
clock, superseded workers, scoring as a counted job, a reconciler that re-publishes only what is lost,
text PostgreSQL refuses, and local runs that never reach a GPU queue."""
from datetime import timedelta
from unittest import mock

import pytest
import redis
from django.db.models.functions import Now
from django.utils import timezone

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.evaluations import lifecycle, selectors, services, tasks
from leaderboard.scoring import services as scoring
from leaderboard.scoring import tasks as score_tasks
from leaderboard.evaluations.failures import RunCancelled
from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def version(demo_loaded):
    return BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")


@pytest.fixture
def run(version):
    return services.run_create(version=version, split="validation", model_ref="org/model")


@pytest.fixture
def broker(settings, redis_broker):
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


def db_now():
    return EvaluationRun.objects.annotate(now=Now()).values_list("now", flat=True).first()


def test_a_claim_refuses_a_run_that_used_its_attempts(run, settings):
    EvaluationRun.objects.filter(pk=run.pk).update(attempts=settings.RUN_MAX_ATTEMPTS)  # a redelivered message
    assert lifecycle.run_claim_for_worker(run_id=run.pk) is None
    assert EvaluationRun.objects.get(pk=run.pk).attempts == settings.RUN_MAX_ATTEMPTS


def test_leases_run_on_the_databases_clock(run, settings):
    skewed = timezone.now() + timedelta(hours=1)  # a GPU host whose clock is an hour fast
    with mock.patch("django.utils.timezone.now", return_value=skewed):
        claimed = lifecycle.run_claim_for_worker(run_id=run.pk)
    lease = claimed.lease_expires_at - db_now()
    assert timedelta(0) < lease <= timedelta(seconds=settings.RUN_LEASE_SECONDS)


def test_a_superseded_worker_stops_without_touching_the_run(run, settings):
    first = lifecycle.run_claim_for_worker(run_id=run.pk)
    EvaluationRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    second = lifecycle.run_claim_for_worker(run_id=run.pk)  # the lease lapsed: another worker took over
    assert second.attempts == 2
    with pytest.raises(RunCancelled):
        lifecycle.run_heartbeat(run=first)
    status = lifecycle.run_attempt_failed(run_id=run.pk, attempt=first.attempts, code=FailureCode.EVALUATION_ERROR)
    after = EvaluationRun.objects.get(pk=run.pk)
    assert status == RunStatus.RUNNING and after.attempts == 2 and after.failure_code == ""
    lifecycle.run_heartbeat(run=second)  # the owner's lease is renewed


def test_the_sweeper_leaves_a_renewed_lease_alone(run, settings, django_capture_on_commit_callbacks):
    claimed = lifecycle.run_claim_for_worker(run_id=run.pk)
    EvaluationRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    lifecycle.run_heartbeat(run=claimed)  # renewed just before the sweeper's tick
    with django_capture_on_commit_callbacks(execute=False):
        assert lifecycle.sweep() == {"requeued": 0, "failed": 0, "rescored": 0}
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


def test_a_scoring_crash_ends_failed_after_its_attempts(run, settings, broker, django_capture_on_commit_callbacks):
    """A wrong sealed key made scoring crash on every try, and the reconciler re-sent it every 120 s forever."""
    settings.RUN_RETRY_DELAY_SECONDS = 0
    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.SCORING)
    with mock.patch.object(scoring, "run_score", side_effect=ValueError("InvalidToken: the key is wrong")), \
            django_capture_on_commit_callbacks(execute=True) as callbacks:
        results = [score_tasks.score_run(run.pk) for _ in range(settings.RUN_MAX_ATTEMPTS + 1)]
    after = EvaluationRun.objects.get(pk=run.pk)
    assert [r.get("status") for r in results] == [RunStatus.SCORING, RunStatus.SCORING, RunStatus.FAILED, None]
    assert after.status == RunStatus.FAILED and after.failure_code == FailureCode.SCORING_ERROR
    assert after.scoring_attempts == settings.RUN_MAX_ATTEMPTS
    assert "(ValueError)" in after.failure_reason and "key is wrong" not in after.failure_reason
    assert broker.llen("default") >= 1 and callbacks  # the retries were sent, and the notice


def test_the_sweeper_covers_scoring(run, settings, broker, django_capture_on_commit_callbacks):
    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.SCORING, scoring_attempts=1,
                                                   lease_expires_at=timezone.now() - timedelta(seconds=5))
    assert lifecycle.sweep()["rescored"] == 1 and broker.llen("default") == 1
    EvaluationRun.objects.filter(pk=run.pk).update(scoring_attempts=settings.RUN_MAX_ATTEMPTS)
    with django_capture_on_commit_callbacks(execute=False):
        assert lifecycle.sweep()["failed"] == 1
    assert EvaluationRun.objects.get(pk=run.pk).failure_code == FailureCode.SCORING_ERROR


def test_the_reconciler_republishes_only_lost_messages_oldest_first(version, settings, broker,
                                                                   django_capture_on_commit_callbacks):
    settings.RECONCILE_AFTER_SECONDS = 1
    runs = [services.run_create(version=version, split="validation", model_ref=f"org/m{i}") for i in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        for r in runs:
            lifecycle.run_enqueue(run=r, route=True)
    enqueued = dict(EvaluationRun.objects.values_list("pk", "enqueued_at"))
    past = timezone.now() - timedelta(minutes=6)
    EvaluationRun.objects.update(published_at=past)  # 6 minutes waiting for a busy GPU
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.reconcile() == 0 and lifecycle.reconcile() == 0
    assert broker.llen("gpu") == 3  # waiting messages were not doubled

    broker.delete("gpu")  # the broker lost them
    EvaluationRun.objects.update(published_at=past)
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.reconcile() == 3
    assert broker.llen("gpu") == 3
    assert dict(EvaluationRun.objects.values_list("pk", "enqueued_at")) == enqueued  # queued time kept
    from leaderboard.evaluations.broker import _run_id
    published = [_run_id(m) for m in reversed(broker.lrange("gpu", 0, -1))]  # LPUSH: the oldest is last
    assert published == [r.pk for r in runs]


def test_text_postgresql_refuses_is_stored_safely(run):
    """Generated text and failure reasons with NUL: PostgreSQL refuses \\u0000 in JSON and text."""
    services._chunk_store(run)(0, [{"question_id": "q", "output": "B\x00 dog", "predicted": "B"}])
    assert selectors.run_rows(run=run)[0]["output"] == "B\ufffd dog"
    lifecycle.run_fail(run=run, code=FailureCode.EVALUATION_ERROR, reason="bad\x00reason", excerpt="x\x00")
    after = EvaluationRun.objects.get(pk=run.pk)
    assert after.failure_reason == "bad\ufffdreason" and after.log_excerpt == "x\ufffd"


def test_a_local_run_is_never_sent_to_a_gpu_queue(run, broker, django_capture_on_commit_callbacks):
    """manage.py evaluate's model is a path on the operator's disk: if its process dies, the run fails."""
    EvaluationRun.objects.filter(pk=run.pk).update(queue=lifecycle.LOCAL_QUEUE)
    lifecycle.run_claim_for_worker(run_id=run.pk)
    EvaluationRun.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.sweep()["failed"] == 1
    assert EvaluationRun.objects.get(pk=run.pk).failure_code == FailureCode.WORKER_LOST
    assert broker.llen("gpu") == 0 and broker.llen(lifecycle.LOCAL_QUEUE) == 0


def test_a_second_beat_finds_the_sweeper_busy(db):
    """Two schedulers (a redeploy's overlap, a scaled service): one sweep or reconcile at a time."""
    import zlib

    import psycopg
    from django.db import connection

    s = connection.settings_dict
    other = psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"],
                            password=s["PASSWORD"] or None, dbname=s["NAME"], autocommit=False)
    try:
        other.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(b"evaluations.sweep")])
        assert "skipped" in tasks.sweep()
        assert tasks.reconcile() == 0  # another lock: the reconciler is not blocked by the sweeper
    finally:
        other.rollback()
        other.close()
    assert "skipped" not in tasks.sweep()


class HubHTTPError(Exception):
    """Shaped like huggingface_hub's HfHubHTTPError: the response carries the status."""

    def __init__(self, status):
        super().__init__(f"{status} Server Error")
        self.response = type("Response", (), {"status_code": status})()


@pytest.mark.parametrize("error", [HubHTTPError(503), HubHTTPError(429), OSError(28, "No space left on device"),
                                   ConnectionResetError("database connection lost")])
def test_infrastructure_errors_do_not_spend_the_models_attempts(run, settings, broker, error,
                                                                 django_capture_on_commit_callbacks):
    from leaderboard.evaluations.failures import classify, hint

    code = classify(error, during_load=True)
    assert code == FailureCode.INFRASTRUCTURE_ERROR
    settings.RUN_MAX_INFRA_RETRIES = 2
    for _ in range(2):
        claimed = lifecycle.run_claim_for_worker(run_id=run.pk)
        with django_capture_on_commit_callbacks(execute=True):
            assert lifecycle.run_attempt_failed(run_id=run.pk, attempt=claimed.attempts, code=code) == RunStatus.QUEUED
        assert EvaluationRun.objects.get(pk=run.pk).attempts == 0  # given back
    claimed = lifecycle.run_claim_for_worker(run_id=run.pk)
    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.run_attempt_failed(run_id=run.pk, attempt=claimed.attempts, code=code) == RunStatus.FAILED
    after = EvaluationRun.objects.get(pk=run.pk)
    assert after.failure_code == FailureCode.INFRASTRUCTURE_ERROR and after.infra_retries == 2
    assert after.failure_reason.endswith(hint(FailureCode.INFRASTRUCTURE_ERROR))  # the weights are not blamed


def test_a_broken_checkpoint_still_spends_attempts(run):
    from leaderboard.evaluations.failures import classify

    assert classify(ValueError("header too large: not a safetensors file"), during_load=True) == \
        FailureCode.MODEL_LOAD_ERROR


def test_the_model_cache_is_pruned_least_recently_used_first(fake_hub, tiny_model_dir, settings):
    from huggingface_hub import scan_cache_dir, snapshot_download

    from leaderboard.evaluations import model_cache
    from tests.support.fake_hub import files_from_folder

    for name in ("org/old", "org/newer", "org/current"):
        fake_hub.add_repo(name, repo_type="model", files=files_from_folder(tiny_model_dir))
        snapshot_download(name)
    each = {r.repo_id: r.size_on_disk for r in scan_cache_dir().repos}
    deleted = model_cache.prune(max_bytes=each["org/current"] + each["org/newer"], keep="org/current")
    assert deleted == ["org/old"]
    assert {r.repo_id for r in scan_cache_dir().repos} == {"org/newer", "org/current"}
    assert model_cache.prune(max_bytes=0, keep="org/current") == ["org/newer"]  # the loading model stays


def test_a_model_that_emits_nul_is_scored_not_failed(version, nul_model_dir):
    """Every generate-mode run of such a model failed 3 times: PostgreSQL refuses \\u0000 in JSON."""
    from evaluator.backends import create_backend

    run = services.run_create(version=version, split="validation", model_ref=str(nul_model_dir), mode="generate")
    lifecycle.run_claim_for_worker(run_id=run.pk)
    backend = create_backend("transformers", str(nul_model_dir), batch_size=32)
    result = services.run_predict(run=run, backend=backend, measure=False)
    assert "\x00" in result.rows[0]["output"]  # the model did emit it
    scoring.run_score(run=EvaluationRun.objects.get(pk=run.pk))
    stored = selectors.run_rows(run=run)
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.SUCCEEDED
    assert stored[0]["output"].startswith("\ufffd") and stored[0]["predicted"] is None
