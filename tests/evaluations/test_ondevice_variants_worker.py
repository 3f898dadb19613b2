"""On-device variants made and predicted by the GPU worker as deployed (`docker/start-worker.sh gpu`, least-privilege
role, .venv-llamacpp): a 16-bit checkpoint on the (fake) hub is submitted through the API; the worker predicts its
16-bit runs, makes each variant's GGUF file with llama.cpp's converter and quantizer (evaluations/gguf_make.py),
predicts it, measures its cost profile; the scorer scores all; the model's page and API compare each file with the
16-bit run (flips, KL), and the run card names the file, its sha256 and its recipe."""
import hashlib

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.results.models import RunResult
from tests.evaluations.test_llamacpp_worker import PROFILE, SETTINGS
from tests.evaluations.test_vllm_worker import deployed_gpu_worker, wait_for_runs
from tests.support.fake_hub import files_from_folder, readme
from tests.support.lifecycle import flush_broker, start_worker

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow, pytest.mark.django_db(transaction=True,
                                                                           serialized_rollback=True)]
BASE = "org/tiny-llama"
QUANTS = ["q8_0", "q4_k_m"]  # Q4_0 is made the same way; two keep the test short on 2 cores


def test_variants_of_a_16bit_submission_are_made_predicted_and_compared(client, settings, demo_loaded, redis_broker,
                                                                       fake_hub, spm_model_dirs, gpu_login_role,
                                                                       tmp_path):
    for key, value in {**SETTINGS, "SUBMISSION_VALIDATION_VARIANTS": ["original"], "ONDEVICE_VARIANT_QUANTS": QUANTS,
                       "ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS": 8_000_000_000}.items():
        setattr(settings, key, value)
    files = files_from_folder(spm_model_dirs["llama"])
    fake_hub.add_repo(BASE, repo_type="model", files={**files, "README.md": readme({"license": "apache-2.0"})})
    client.force_login(User.objects.create_user("author"))
    response = client.post(reverse("api-submissions"), {"hub_id": BASE, "precision": "float16"},
                           content_type="application/json")
    assert response.status_code == 201, response.content
    runs = EvaluationRun.objects.filter(submission_id=response.json()["id"])
    assert runs.count() == 4  # 16-bit validation and test, and one validation run per variant

    made_dir = tmp_path / "made"
    with deployed_gpu_worker(gpu_login_role, RUN_MADE_GGUF_DIR=str(made_dir), **{**SETTINGS, **PROFILE}) as gpu, \
            start_worker(queues="default", **SETTINGS) as scorer:
        wait_for_runs(runs, gpu, scorer, timeout=600)
    flush_broker()
    assert {r.status for r in runs} == {RunStatus.SUCCEEDED}, [(r.model_ref, r.failure_reason) for r in runs]

    variants = {r.gguf_recipe["quant"]: r for r in runs if r.gguf_recipe}
    for quant, run in variants.items():
        recipe = run.gguf_recipe
        made = made_dir.glob(f"**/tiny-llama-{quant.upper()}.gguf")
        data = next(made).read_bytes()
        assert (recipe["file"], recipe["bytes"], recipe["sha256"]) == (
            f"tiny-llama-{quant.upper()}.gguf", len(data), hashlib.sha256(data).hexdigest())
        assert recipe["imatrix"] is None and recipe["llama_cpp_commit"] not in ("", "unknown")
        assert recipe["steps"][-1] == f"llama_model_quantize {quant.upper()}"
        card = run.hardware["backend"]
        assert (card["backend"], card["dtype"], card["file_sha256"]) == ("llamacpp", quant.upper(), recipe["sha256"])
        assert run.efficiency["ondevice"]["file_bytes"] == len(data)
        # scored as the variant's own model, never as the 16-bit model's
        assert RunResult.objects.get(run=run).hub_id == f"{BASE}@{quant.upper()}"
    assert variants["q4_k_m"].gguf_recipe["bytes"] < variants["q8_0"].gguf_recipe["bytes"]

    rows = {r["quantization"]: r for r in client.get(reverse("api-model-on-device", args=[BASE])).json()["rows"]}
    assert set(rows) == {"Q8_0", "Q4_K_M"}
    for row in rows.values():
        assert row["compared"] and row["base_precision"] == "float16" and row["n"] == 480, row
        assert row["mean_kl"] is not None and row["mean_kl"] >= 0
        assert row["right_to_wrong"] + row["wrong_to_right"] <= row["flips"]  # a wrong letter may change to another
    # fewer bits, further from the 16-bit model's letter distributions
    assert rows["Q8_0"]["mean_kl"] < rows["Q4_K_M"]["mean_kl"]
    page = client.get(reverse("model-detail", args=[BASE])).content.decode()
    assert f"{BASE}@Q4_K_M" in page and "On-device variants" in page
    variant_page = client.get(reverse("model-detail", args=[f"{BASE}@Q8_0"])).content.decode()
    assert "measured on a server CPU with 2 threads: a proxy, not a phone" in variant_page
    # the page says how the file was made: from which checkpoint, by which steps, with no importance matrix
    assert f"an on-device variant this server made from <a href=\"/models/{BASE}/\">{BASE}</a>" in variant_page
    assert variants["q8_0"].gguf_recipe["sha256"] in variant_page and "no importance matrix" in variant_page
    assert "llama_model_quantize Q8_0" in variant_page
