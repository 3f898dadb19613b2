"""On-device variants at intake: a 16-bit submission also queues one open-split llamacpp run per quantization (Q8_0,
Q4_K_M, Q4_0) of a variant entry made from it, on by default up to 8B parameters; never a sealed run, never for a GGUF
file, refused with a code where the file would be too large, nothing stored on a refusal. The worker's side (making
the file, predicting, comparing) is tests/evaluations/test_ondevice_variants_worker.py."""
import importlib
import re

import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry, Submission
from tests.support.fake_hub import readme
from tests.support.tiny_gguf import tiny_gguf

pytestmark = pytest.mark.django_db
BASE = "demo-org/tiny"
DEFAULT_MAX = 8_000_000_000


@pytest.fixture
def api(client, author, settings):
    settings.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = DEFAULT_MAX  # as deployed (the test settings turn it off)
    client.force_login(author)
    return lambda **data: client.post(reverse("api-submissions"), {"hub_id": BASE, **data},
                                      content_type="application/json")


def test_the_deployed_default_is_on_up_to_8b():
    base = importlib.import_module("leaderboard.settings.base")
    assert base.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS == DEFAULT_MAX
    assert base.ONDEVICE_VARIANT_QUANTS == ["q8_0", "q4_k_m", "q4_0"]


def test_a_small_model_gets_three_open_split_variant_runs_by_default(api, hub_model, client):
    response = api()
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["ondevice_variants"] is True
    made = EvaluationRun.objects.filter(submission_id=body["id"]).exclude(gguf_recipe={})
    assert sorted(r.model_ref for r in made) == [f"{BASE}@Q4_0", f"{BASE}@Q4_K_M", f"{BASE}@Q8_0"]
    assert {(r.split, r.backend, r.precision, r.model_revision) for r in made} == {
        ("validation", "llamacpp", "gguf", hub_model.sha)}
    assert {r.gguf_recipe["quant"] for r in made} == {"q8_0", "q4_k_m", "q4_0"}
    assert {r.gguf_recipe["source"] for r in made} == {BASE} and all(r.model_files == [] for r in made)
    # The sealed test run is the 16-bit model's alone: variants spend no Ladder budget.
    sealed = EvaluationRun.objects.filter(submission_id=body["id"], split="test")
    assert [r.model_ref for r in sealed] == [BASE]
    entry = ModelEntry.objects.get(hub_id=f"{BASE}@Q4_K_M")
    assert (entry.made_from.hub_id, entry.quantization, entry.gguf_file, entry.repo_id) == (
        BASE, "Q4_K_M", "tiny-Q4_K_M.gguf", BASE)
    # The status API and page name the file each run evaluates.
    assert {r["model"] for r in body["runs"]} == {BASE, f"{BASE}@Q8_0", f"{BASE}@Q4_K_M", f"{BASE}@Q4_0"}
    page = client.get(reverse("submission-status", args=[body["id"]])).content.decode()
    assert f'on-device variant <a href="/models/{BASE}@Q4_K_M/">{BASE}@Q4_K_M</a>' in page


def test_variants_follow_the_choice_and_the_size(api, hub_model, settings):
    settings.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = 10  # the tiny model is "over 8B" now
    body = api().json()
    assert body["ondevice_variants"] is False
    assert not EvaluationRun.objects.filter(submission_id=body["id"]).exclude(gguf_recipe={}).exists()
    # asked for, a model over the default size gets them; asked not to, a small one does not
    body = api(ondevice_variants=True, precision="float16").json()
    assert EvaluationRun.objects.filter(submission_id=body["id"]).exclude(gguf_recipe={}).count() == 3
    settings.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = DEFAULT_MAX
    Submission.objects.all().delete()
    body = api(ondevice_variants=False).json()
    assert not EvaluationRun.objects.filter(submission_id=body["id"]).exclude(gguf_recipe={}).exists()


def test_a_second_submission_of_the_same_commit_makes_no_second_file(api, hub_model):
    first, second = api().json(), api(precision="float16").json()
    assert second["id"] != first["id"]
    assert EvaluationRun.objects.exclude(gguf_recipe={}).count() == 3
    assert not EvaluationRun.objects.filter(submission_id=second["id"]).exclude(gguf_recipe={}).exists()


def test_refusals_name_the_field_and_store_nothing(api, hub_model, fake_hub, settings, snapshot):
    fake_hub.add_repo("demo-org/tiny-GGUF", repo_type="model", files={
        "README.md": readme({"license": "mit", "base_model": BASE}), "tiny-Q8_0.gguf": tiny_gguf()})
    before = snapshot()
    response = api(hub_id="demo-org/tiny-GGUF", gguf_file="tiny-Q8_0.gguf", ondevice_variants=True)
    assert response.status_code == 400 and response.json()["code"] == "ONDEVICE_VARIANTS", response.content
    assert "16-bit checkpoint" in response.json()["detail"] and response.json()["hint"]
    settings.GGUF_MAX_BYTES = 20  # the tiny model's Q8_0 file would be over the workers' cap
    response = api(ondevice_variants=True)
    assert response.status_code == 400 and response.json()["code"] == "ONDEVICE_VARIANTS", response.content
    assert "Q8_0 file" in response.json()["detail"] and "ondevice_variants false" in response.json()["hint"]
    assert snapshot() == before


def test_a_made_variant_is_never_run_on_the_sealed_split(demo_loaded):
    from leaderboard.benchmarks import selectors
    from leaderboard.evaluations.services import RunConfigError, run_create

    version = selectors.version_current(benchmark=selectors.benchmark_get(slug="mobile-mmlu"))
    with pytest.raises(RunConfigError) as refused:
        run_create(version=version, split="test", model_ref=f"{BASE}@Q8_0", backend="llamacpp", precision="gguf",
                   gguf_recipe={"quant": "q8_0", "source": BASE})
    assert refused.value.code == "MADE_VARIANT_SEALED"
    assert not EvaluationRun.objects.filter(model_ref=f"{BASE}@Q8_0").exists()


def test_the_form_asks_for_variants_by_default(client, author, hub_model, settings):
    settings.ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = DEFAULT_MAX
    client.force_login(author)
    page = client.get(reverse("submit")).content.decode()
    box = re.search(r'<input[^>]*name="ondevice_variants"[^>]*>', page)
    assert box and "checked" in box.group(0), box
    client.post(reverse("submit"), {"hub_id": BASE, "revision": "main", "precision": "bfloat16",
                                    "model_type": "pretrained", "benchmarks": ["mobile-mmlu"],
                                    "ondevice_variants": "on"})
    client.post(reverse("submit"), {"hub_id": BASE, "revision": "main", "precision": "float16",
                                    "model_type": "pretrained", "benchmarks": ["mobile-mmlu"]})  # unticked
    ticked, unticked = Submission.objects.order_by("pk")
    assert (ticked.ondevice_variants, unticked.ondevice_variants) == (True, False)


def test_a_failed_variant_leaves_the_submission_standing(api, hub_model):
    from leaderboard.evaluations.models import RunStatus
    from leaderboard.submissions.selectors import submission_status

    submission = Submission.objects.get(pk=api().json()["id"])
    runs = EvaluationRun.objects.filter(submission=submission)
    runs.exclude(gguf_recipe={}).filter(model_ref=f"{BASE}@Q4_0").update(status=RunStatus.RUNNING)
    runs.filter(gguf_recipe={}).update(status=RunStatus.SUCCEEDED)
    assert submission_status(submission=submission) == RunStatus.RUNNING  # a variant still under way
    runs.exclude(gguf_recipe={}).update(status=RunStatus.FAILED)
    assert submission_status(submission=submission) == RunStatus.SUCCEEDED
    runs.filter(split="test").update(status=RunStatus.FAILED)
    assert submission_status(submission=submission) == RunStatus.FAILED
