"""A GGUF submission predicted by the GPU worker as deployed, on real llama.cpp (.venv-llamacpp).

llama-cpp-python swaps the process's stdout and stderr file descriptors while it loads a file: the runner predicts
in its own child process (leaderboard/evaluations/predict_process.py), never in Celery's task process, whose
streams Celery redirects. This runs `docker/start-worker.sh gpu` as production does, with the GPU-worker settings
and a least-privilege login role, on a file the project's own pipeline made (tests/support/gguf_fixtures.py).
"""
import hashlib

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun, RunStatus
from tests.evaluations.test_vllm_worker import FAST, deployed_gpu_worker, wait_for_runs
from tests.support.fake_hub import readme
from tests.support.lifecycle import flush_broker, start_worker

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow, pytest.mark.django_db(transaction=True,
                                                                           serialized_rollback=True)]
REPO = "org/tiny-llama-GGUF"
# The vLLM worker test's settings, with a lease long enough for a loaded 2-core machine (its own test is the one
# that holds the lease to a few seconds, to show it is renewed).
SETTINGS = {**FAST, "RUN_LEASE_SECONDS": 30}
# The file's cost profile at tiny-model sizes (llama-bench's method, fewer tokens and repeats).
PROFILE = {"ONDEVICE_PROFILE_THREADS": 2, "ONDEVICE_PROFILE_REPEATS": 2, "ONDEVICE_PROFILE_PP": 64,
           "ONDEVICE_PROFILE_TG": 16}
LABEL = "measured on a server CPU with 2 threads: a proxy, not a phone"


def test_a_gguf_submission_is_predicted_by_the_deployed_gpu_worker(client, settings, demo_loaded, redis_broker,
                                                                   fake_hub, gguf_files, gpu_login_role):
    for key, value in SETTINGS.items():
        setattr(settings, key, value)
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original"]
    data = gguf_files["llama", "q8_0"].read_bytes()
    fake_hub.add_repo(REPO, repo_type="model", files={
        "README.md": readme({"license": "apache-2.0", "base_model": "org/tiny-llama"}), "tiny-Q8_0.gguf": data})
    client.force_login(User.objects.create_user("author"))
    response = client.post(reverse("api-submissions"), {"hub_id": REPO, "gguf_file": "tiny-Q8_0.gguf"},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    runs = EvaluationRun.objects.filter(submission_id=response.json()["id"])
    assert set(runs.values_list("backend", flat=True)) == {"llamacpp"}

    with deployed_gpu_worker(gpu_login_role, RUN_LEASE_SECONDS=30, **PROFILE) as gpu, \
            start_worker(queues="default", **SETTINGS) as scorer:
        wait_for_runs(runs, gpu, scorer)
    flush_broker()
    assert {r.status for r in runs} == {RunStatus.SUCCEEDED}, [(r.split, r.failure_reason) for r in runs]
    by_split = {r.split: r for r in runs}
    assert by_split["validation"].progress_done == by_split["validation"].progress_total == 480
    card = by_split["validation"].hardware["backend"]
    assert (card["backend"], card["dtype"], card["architecture"]) == ("llamacpp", "Q8_0", "llama")
    assert card["file_sha256"] == hashlib.sha256(data).hexdigest()
    assert card["versions"]["llama_cpp_python"] and card["versions"]["llama_cpp_commit"] != "unknown"
    assert card["prefix_reuse"]["used"] and card["n_ctx"] <= 1024  # sized from the demo's short prompts
    assert card["threads"] == 1  # RUN_LLAMACPP_THREADS, as set for a worker sharing the machine
    published = {r["split"]: r for r in client.get(
        reverse("api-model-detail", args=[f"{REPO}/tiny-Q8_0.gguf"])).json()["runs"]}
    assert published["test"]["results"][0]["accuracy"] is not None

    # The file's phone-class cost profile, measured by the worker after predicting, on the run, the API and the page.
    profile = by_split["validation"].efficiency["ondevice"]
    # Measured once for the file: the run predicted second keeps the first one's profile, naming it.
    first, second = sorted(runs, key=lambda r: r.started_at)
    assert "measured_for_run" not in first.efficiency["ondevice"]
    assert second.efficiency["ondevice"] == {**first.efficiency["ondevice"], "measured_for_run": first.pk}
    assert (profile["label"], profile["threads"], profile["n_gpu_layers"]) == (LABEL, 2, 0)
    assert (profile["file_bytes"], profile["file_type"]) == (len(data), "Q8_0")
    assert profile["pp"]["tokens"] == 64 and profile["tg"]["tokens"] == 16 and profile["tg"]["tokens_per_s"] > 0
    assert profile["peak_rss_bytes"] > len(data) and profile["mmap"] and profile["cpu"]["model"]
    assert published["validation"]["efficiency"]["ondevice"]["label"] == LABEL
    page = client.get(reverse("model-detail", args=[f"{REPO}/tiny-Q8_0.gguf"])).content.decode()
    assert LABEL in page and "Generation (tg16)" in page and "Time to first token" in page
