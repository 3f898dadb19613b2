"""The GPU worker as deployed, on the real vLLM engine (its CPU build, .venv-vllm).

`docker/start-worker.sh gpu` starts Celery's prefork pool, whose task processes are daemonic and may not
start children; vLLM always does. These tests run that exact script, with the GPU-worker settings and a
least-privilege login role like production's, a lease much shorter than the engine's start (the sweeper
runs meanwhile, as beat would), and the trusted worker scoring. Submissions go through the fake hub.
"""
import os
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.evaluations import lifecycle
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from tests.support.fake_hub import files_from_folder
from tests.support.lifecycle import BROKER, database_url, flush_broker, start_worker, wait_until, worker_env
from tests.support.worker import REPO, WorkerProcess

pytestmark = [pytest.mark.vllm, pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
FAST = dict(RUN_CHUNK_SIZE=240, RUN_LEASE_SECONDS=4, RUN_RETRY_DELAY_SECONDS=0, RUN_TORCH_THREADS=1,
            RUN_LLAMACPP_THREADS=1)
LICENSE = b"---\nlicense: apache-2.0\n---\n# tiny\n"


def deployed_gpu_worker(role_url, **overrides):
    """`docker/start-worker.sh gpu` with this environment's Celery and the GPU-worker settings."""
    env = worker_env("leaderboard.settings.gpu_worker", DATABASE_URL=role_url, CELERY_BROKER_URL=BROKER,
                     RUN_DEVICE="cpu", LOG_FORMAT="plain", **{**FAST, **overrides})
    env.pop("SEALED_ANSWER_KEYS", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return WorkerProcess(env, command=[str(REPO / "docker" / "start-worker.sh"), "gpu"])


def wait_for_runs(runs, *workers, timeout=420):
    def finished():
        lifecycle.sweep()  # beat's sweeper: a lease not renewed during the engine's start would be taken back
        return all(r.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) for r in runs.all())

    wait_until(finished, timeout=timeout, interval=1,
               message=lambda: "the runs\n" + "\n".join(w.log[-4000:] for w in workers))


@pytest.fixture
def vllm_site(settings, demo_loaded, redis_broker):
    """The trusted side creates runs for the vLLM backend (RUN_BACKEND is read at run creation)."""
    settings.RUN_BACKEND = "vllm"
    for key, value in FAST.items():
        setattr(settings, key, value)
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original", "R1"]
    return settings


def test_a_submission_runs_on_vllm_in_the_deployed_gpu_worker(client, vllm_site, fake_hub, gqa_model_dir,
                                                             gpu_login_role):
    fake_hub.add_repo("org/tiny-gqa", repo_type="model", files={**files_from_folder(gqa_model_dir),
                                                                 "README.md": LICENSE}, license="apache-2.0")
    client.force_login(User.objects.create_user("author"))
    response = client.post(reverse("api-submissions"), {"hub_id": "org/tiny-gqa"}, content_type="application/json")
    assert response.status_code == 201, response.content
    runs = EvaluationRun.objects.filter(submission_id=response.json()["id"])
    assert set(runs.values_list("backend", flat=True)) == {"vllm"}

    with deployed_gpu_worker(gpu_login_role) as gpu, start_worker(queues="default", **FAST) as scorer:
        wait_for_runs(runs, gpu, scorer)
    flush_broker()
    by_split = {r.split: r for r in runs}
    assert {r.status for r in runs} == {RunStatus.SUCCEEDED}, [(r.split, r.failure_reason) for r in runs]
    assert "daemonic processes are not allowed" not in gpu.log and "--max-tasks-per-child" not in gpu.log
    # One attempt each, though the lease (4 s) is far shorter than the engine's start: the lease was renewed.
    assert [r.attempts for r in runs] == [1, 1]
    card = by_split["validation"].hardware["backend"]
    assert card["backend"] == "vllm" and card["dtype"] == "float32" and card["max_model_len"] <= 1024
    assert by_split["validation"].progress_done == by_split["validation"].progress_total == 960
    assert by_split["test"].progress_done == 480
    assert by_split["validation"].efficiency["param_count"] > 0

    board = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu"}).json()["results"]
    row = next(r for r in board if r["hub_id"] == "org/tiny-gqa")
    assert row["accuracy"] is not None
    published = {r["split"]: r for r in client.get(reverse("api-model-detail", args=["org/tiny-gqa"])).json()["runs"]}
    sealed = published["test"]["results"]
    assert [(c["level"], c["correct"]) for c in sealed] == [("overall", None)] and sealed[0]["accuracy"] is not None
    card = published["validation"]["reproducibility"]
    assert (card["backend"], card["compute_dtype"], card["quantization"]) == ("vllm", "float32", None)


def _run_on(version, split, hub_id, sha):
    run = run_services.run_create(version=version, split=split, model_ref=hub_id, model_revision=sha,
                                  backend="vllm", precision="bfloat16")
    lifecycle.run_enqueue(run=run, route=True)
    return run


def test_engine_failures_get_the_right_code(vllm_site, fake_hub, gqa_model_dir, gpu_login_role, tmp_path):
    """On the real engine: an architecture vLLM cannot run fails at once, for good; a KV cache that does not
    fit is OUT_OF_MEMORY with the engine's own words (open split) or the exception type only (sealed)."""
    config = (gqa_model_dir / "config.json").read_text().replace("LlamaForCausalLM", "FooBarForCausalLM")
    files = {**files_from_folder(gqa_model_dir), "config.json": config.encode(), "README.md": LICENSE}
    unknown = fake_hub.add_repo("org/unknown-arch", repo_type="model", files=files)
    tiny = fake_hub.add_repo("org/tiny-gqa", repo_type="model", files=files_from_folder(gqa_model_dir))
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    arch = _run_on(version, "validation", "org/unknown-arch", unknown.sha)
    with deployed_gpu_worker(gpu_login_role, RUN_MAX_ATTEMPTS=3) as gpu:
        wait_for_runs(EvaluationRun.objects.filter(pk=arch.pk), gpu)
    arch.refresh_from_db()
    assert arch.failure_code == FailureCode.UNSUPPORTED_ARCHITECTURE and arch.attempts == 1, arch.failure_reason
    assert "FooBarForCausalLM" in arch.failure_reason  # the engine's root cause reaches the reason

    open_run, sealed_run = (_run_on(version, split, "org/tiny-gqa", tiny.sha) for split in ("validation", "test"))
    with deployed_gpu_worker(gpu_login_role, RUN_MAX_ATTEMPTS=1, RUN_VLLM_MEMORY_SHARE="0.0001") as gpu:
        wait_for_runs(EvaluationRun.objects.filter(pk__in=[open_run.pk, sealed_run.pk]), gpu)
    open_run.refresh_from_db()
    sealed_run.refresh_from_db()
    assert open_run.failure_code == sealed_run.failure_code == FailureCode.OUT_OF_MEMORY, open_run.failure_reason
    assert "kv" in open_run.failure_reason.lower()
    assert sealed_run.failure_reason.startswith("OUT_OF_MEMORY after 1 attempt (RuntimeError).")
    assert sealed_run.log_excerpt == "RuntimeError (details withheld: sealed split)"


def test_manage_py_evaluate_on_vllm_stores_its_run_and_exits(demo_loaded, gqa_model_dir):
    """vLLM's engine processes kept the interpreter alive after the run: the command must end by itself."""
    import subprocess

    env = worker_env("leaderboard.settings.test", DATABASE_URL=database_url(), RUN_TORCH_THREADS=1)
    done = subprocess.run(
        [sys.executable, "manage.py", "evaluate", "--model", str(gqa_model_dir), "--backend", "vllm",
         "--split", "validation", "--no-efficiency", "--line", "-v", "0"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "accuracy" in done.stdout and "n=480" in done.stdout
    run = EvaluationRun.objects.get(model_ref=str(gqa_model_dir))
    assert run.status == RunStatus.SUCCEEDED and run.hardware["backend"]["backend"] == "vllm"
