"""The lifecycle in the deployed shape: workers started by docker/start-worker.sh (prefork,
--max-tasks-per-child 1; the GPU worker with its own settings and a least-privilege login role), beat started
by docker/start-beat.sh, a lease shorter than the work between heartbeats would allow, two GPU workers
competing, and a redeploy (SIGTERM) in the middle of a run."""
import os
import signal
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.evaluations import admin_services, lifecycle
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from tests.support.lifecycle import BROKER, flush_broker, wait_until, worker_env
from tests.support.worker import REPO, WorkerProcess

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
FAST = dict(RUN_LEASE_SECONDS=3, RUN_RETRY_DELAY_SECONDS=0, RUN_TORCH_THREADS=1, RUN_BATCH_SIZE=16)


def deployed(kind, *, role_url=None, **overrides):
    """A worker as docker/start-worker.sh starts it, with this environment's Celery."""
    module = "leaderboard.settings.gpu_worker" if kind == "gpu" else "leaderboard.settings.test"
    env = worker_env(module, CELERY_BROKER_URL=BROKER, LOG_FORMAT="plain", **{**FAST, **overrides})
    if role_url:
        env["DATABASE_URL"] = role_url
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    script = "start-beat.sh" if kind == "beat" else "start-worker.sh"
    return WorkerProcess(env, command=[str(REPO / "docker" / script), *([] if kind == "beat" else [kind])])


@pytest.fixture
def runs_of(demo_loaded, tiny_model_dir, settings, redis_broker):
    for key, value in FAST.items():
        setattr(settings, key, value)
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")

    def make(n, variants=("original",), chunk_size=48):
        made = []
        for i in range(n):
            run = run_services.run_create(version=version, split="validation", model_ref=str(tiny_model_dir),
                                          variants=list(variants), seed=i, chunk_size=chunk_size)
            lifecycle.run_enqueue(run=run)
            made.append(run)
        return EvaluationRun.objects.filter(pk__in=[r.pk for r in made])
    return make


def settled(runs):
    return all(r.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) for r in runs.all())


def test_a_redeploy_drains_at_a_chunk_boundary_and_the_next_worker_resumes(runs_of, gpu_login_role, tmp_path):
    runs = runs_of(1, variants=("all",))  # 9 answer orders x 480 questions: 90 chunks
    run = runs.get()
    drain = dict(RUN_DRAIN_FILE=str(tmp_path / "drain"))
    with deployed("default") as scorer:
        first = deployed("gpu", role_url=gpu_login_role, **drain)
        wait_until(lambda: EvaluationRun.objects.get(pk=run.pk).progress_done >= 96, timeout=120,
                   message=lambda: first.log[-3000:])
        first.proc.send_signal(signal.SIGTERM)  # docker stop
        assert first.proc.wait(timeout=90) == 0, first.log[-3000:]
        first.stop()
        mid = EvaluationRun.objects.get(pk=run.pk)
        stored = PredictionChunk.objects.filter(run=run).count()
        assert mid.status == RunStatus.QUEUED and mid.attempts == 0, (mid.status, mid.attempts, first.log[-2000:])
        assert 0 < stored < 90 and "released at a chunk boundary" in first.log

        with deployed("gpu", role_url=gpu_login_role, **drain) as second:
            wait_until(lambda: settled(runs), timeout=240, message=lambda: second.log[-3000:])
    done = EvaluationRun.objects.get(pk=run.pk)
    assert done.status == RunStatus.SUCCEEDED and done.attempts == 1, done.failure_reason
    assert PredictionChunk.objects.filter(run=run).count() == 90 and done.progress_done == 4320
    assert "evaluations.score_run[" in scorer.log


def test_two_gpu_workers_compete_and_each_run_is_predicted_once(runs_of, gpu_login_role):
    runs = runs_of(3)
    for run in runs:  # a message delivered twice (a redelivery, a reconciler race)
        lifecycle.send_predict(run.pk)
    with deployed("gpu", role_url=gpu_login_role) as one, deployed("gpu", role_url=gpu_login_role) as two, \
            deployed("default"):
        wait_until(lambda: settled(runs), timeout=240, message=lambda: one.log[-2000:] + two.log[-2000:])
        wait_until(lambda: (one.log + two.log).count("not claimable") == 3, timeout=60,
                   message=lambda: one.log[-2000:] + two.log[-2000:])
    flush_broker()
    assert {(r.status, r.attempts) for r in runs.all()} == {(RunStatus.SUCCEEDED, 1)}
    assert "claimed, attempt 1" in one.log and "claimed, attempt 1" in two.log  # both took work
    for run in runs:
        assert PredictionChunk.objects.filter(run=run).count() == 10  # 480 items in chunks of 48, once each


def test_beat_runs_as_a_process_and_its_sweeper_recovers_a_lost_worker(runs_of, tmp_path):
    """A run whose worker died (lease expired) is taken back by the sweeper that beat schedules."""
    from datetime import timedelta

    from django.utils import timezone

    runs = runs_of(1)
    run = runs.get()
    flush_broker()  # its message is lost too
    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, attempts=1,
                                                   lease_expires_at=timezone.now() - timedelta(seconds=5))
    schedule = dict(SWEEP_EVERY_SECONDS=1, RECONCILE_EVERY_SECONDS=1, RECONCILE_AFTER_SECONDS=1,
                    CELERY_BEAT_SCHEDULE_FILE=str(tmp_path / "beat-schedule"))
    with deployed("beat", **schedule) as beat, deployed("default", **schedule) as scorer, \
            deployed("gpu", **schedule) as gpu:
        wait_until(lambda: settled(runs), timeout=180,
                   message=lambda: beat.log[-1500:] + scorer.log[-1500:] + gpu.log[-1500:])
    done = runs.get()
    assert done.status == RunStatus.SUCCEEDED and done.attempts == 2
    assert "evaluations.sweep" in beat.log


def test_an_admins_rerun_is_planned_anew_and_predicted_by_the_deployed_workers(runs_of, gpu_login_role, settings):
    """A re-run (the admin action's service) of a run chunked by 48 on a deployment that now chunks by 96: the
    GPU worker predicts it under its own plan and the trusted worker scores it; the first run stays as it was."""
    runs = runs_of(1)
    first = runs.get()
    with deployed("gpu", role_url=gpu_login_role) as gpu, deployed("default"):
        wait_until(lambda: settled(runs), timeout=180, message=lambda: gpu.log[-2000:])
        settings.RUN_CHUNK_SIZE = 96
        admin = User.objects.create_superuser("root", "root@example.com", "pw")
        again = admin_services.run_rerun(first, actor=admin, reason="a new engine release")
        assert again.chunk_size == 96 and again.progress_total == 480 and len(again.plan_fingerprint) == 64
        reruns = EvaluationRun.objects.filter(pk=again.pk)
        wait_until(lambda: settled(reruns), timeout=180, message=lambda: gpu.log[-2000:])
    done = reruns.get()
    assert done.status == RunStatus.SUCCEEDED and done.rerun_of_id == first.pk, done.failure_reason
    assert PredictionChunk.objects.filter(run=done).count() == 5 and done.summary["overall"]["n"] == 480
    assert PredictionChunk.objects.filter(run=first).count() == 10
    assert runs.get().summary["overall"] == done.summary["overall"]  # the same model, greedy: the same answers
