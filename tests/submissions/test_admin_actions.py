"""Admin actions on runs: staff only, a reason asked for, an audit record written, nothing deleted."""
import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.core.models import AuditRecord
from leaderboard.evaluations import lifecycle, runner, services
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, FailureCode, PredictionChunk, RunStatus

pytestmark = pytest.mark.django_db
CHANGELIST = "admin:evaluations_evaluationrun_changelist"


@pytest.fixture
def run(demo_loaded):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    return services.run_create(version=version, split="validation", model_ref="demo-org/tiny")


@pytest.fixture
def staff(client):
    user = User.objects.create_user("admin1", "a@example.com", "pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="evaluations"))
    client.force_login(user)
    return user


def act(client, action, run, reason=None):
    data = {"action": action, "_selected_action": [run.pk]}
    if reason is not None:
        data.update(apply="1", reason=reason)
    return client.post(reverse(CHANGELIST), data)


def test_it_asks_for_a_reason_then_cancels_with_an_audit_record(client, staff, run):
    page = act(client, "cancel", run)
    assert page.status_code == 200 and b'name="reason"' in page.content
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.QUEUED  # nothing done yet

    assert act(client, "cancel", run, reason="duplicate of run 7").status_code == 302
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.failure_code == "CANCELLED"
    record = AuditRecord.objects.get(action="cancel")
    assert record.actor == staff and record.reason == "duplicate of run 7" and record.target_id == str(run.pk)


def test_rerun_makes_a_new_run_and_keeps_the_old(client, staff, run):
    act(client, "rerun", run, reason="new vLLM version")
    new = EvaluationRun.objects.exclude(pk=run.pk).get()
    assert new.rerun_of == run and new.status == RunStatus.QUEUED and EvaluationRun.objects.count() == 2
    assert AuditRecord.objects.get(action="rerun").details == {"new_run": new.pk}


@pytest.mark.parametrize("backend, chunk_size", [("transformers", 256), ("vllm", 2048)])
def test_a_rerun_gets_a_plan_of_its_own_from_run_create(client, staff, demo_loaded, settings, backend, chunk_size):
    """A re-run keeps the measured settings of the run it repeats and is planned like a first run: its backend's
    chunk size here and now, a plan fingerprint (so PLAN_MISMATCH guards it) and a progress total."""
    settings.RUN_CHUNK_SIZE = 12  # the seed run was made on a deployment that chunked by 12
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    seed = services.run_create(version=version, split="validation", model_ref="demo-org/tiny", backend=backend,
                               variants=("original", "R1"), seed=3, shots=5, use_chat_template=True)
    assert seed.chunk_size == 12 and seed.progress_total == 960
    settings.RUN_CHUNK_SIZE = 0  # this deployment leaves the chunk size to the backend
    act(client, "rerun", seed, reason="a new engine release")
    new = EvaluationRun.objects.get(rerun_of=seed)
    assert (new.backend, new.variants, new.seed, new.shots, new.use_chat_template) == (
        backend, ["original", "R1"], 3, 5, True)
    assert new.chunk_size == chunk_size and new.progress_total == 960
    assert len(new.plan_fingerprint) == 64 and new.plan_fingerprint != seed.plan_fingerprint
    assert new.status == RunStatus.QUEUED and new.queue


def test_a_resumed_rerun_under_another_chunk_layout_fails_plan_mismatch(client, staff, demo_loaded, tiny_model_dir):
    """A chunk stored under another layout than the re-run's plan is refused, as for a first run."""
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref=str(tiny_model_dir))
    act(client, "rerun", run, reason="resume test")
    new = EvaluationRun.objects.get(rerun_of=run)
    PredictionChunk.objects.create(run=new, index=0, fingerprint="f" * 64, rows=[{"question_id": "x"}] * 12)
    claimed = lifecycle.run_claim_for_worker(run_id=new.pk)
    outcome = runner.predict_claimed(run_id=new.pk, attempt=claimed.attempts)
    assert outcome.code == FailureCode.PLAN_MISMATCH


def test_rerun_failed_only_skips_the_others(client, staff, run):
    act(client, "rerun_failed", run, reason="retry")
    assert EvaluationRun.objects.count() == 1
    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED)
    act(client, "rerun_failed", run, reason="retry")
    assert EvaluationRun.objects.count() == 2


def test_rescore_recomputes_from_stored_predictions(client, staff, run, tiny_model_dir):
    from evaluator.backends import create_backend

    services.run_claim(run=run)
    services.run_predict(run=run, backend=create_backend("transformers", str(tiny_model_dir)), measure=False)
    scoring.run_score(run=run)
    accuracy = run.summary["overall"]["accuracy"]
    EvaluationRun.objects.filter(pk=run.pk).update(summary={})
    act(client, "rescore", run, reason="aggregation fix")
    run.refresh_from_db()
    assert run.summary["overall"]["accuracy"] == accuracy and run.status == RunStatus.SUCCEEDED
    assert AuditRecord.objects.get(action="rescore").details["accuracy_after"] == accuracy


def test_it_handles_non_staff_users(client, run):
    client.force_login(User.objects.create_user("reader", "r@example.com", "pw"))
    response = act(client, "cancel", run, reason="x" * 5)
    assert response.status_code == 302 and "/login/" in response.url
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.QUEUED and not AuditRecord.objects.exists()


def test_audit_records_are_read_only(client, staff, run):
    act(client, "flag", run, reason="suspicious letter mass")
    record = AuditRecord.objects.get()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    page = client.get(reverse("admin:core_auditrecord_change", args=[record.pk]))
    assert page.status_code == 200 and b"suspicious letter mass" in page.content
    assert client.post(reverse("admin:core_auditrecord_delete", args=[record.pk]), {"post": "yes"}).status_code == 403


def test_the_status_shows_a_reruns_score_difference(client, staff, run):
    from leaderboard.submissions.serializers import RunStatusSerializer

    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.SUCCEEDED, summary={"overall": {
        "n": 480, "accuracy": 0.25, "ci95": [0.2, 0.3]}})
    act(client, "rerun", run, reason="new template")
    new = EvaluationRun.objects.get(rerun_of=run)
    EvaluationRun.objects.filter(pk=new.pk).update(status=RunStatus.SUCCEEDED, summary={"overall": {
        "n": 480, "accuracy": 0.29, "ci95": [0.25, 0.33]}})
    new.refresh_from_db()
    status = RunStatusSerializer(new).data
    assert status["rerun_of"] == run.pk and status["accuracy_change"] == 4.0
