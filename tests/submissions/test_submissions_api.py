"""POST /api/v1/submissions/: refusals with their messages and nothing stored; quota boundary; duplicates."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from leaderboard.core import api_tokens
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.submissions.models import Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client, author):
    client.force_login(author)

    def post(**data):
        return client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny", **data},
                           content_type="application/json")
    return post


def test_it_works(api, hub_model):
    response = api()
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["revision_sha"] == hub_model.sha and body["status"] == "queued"
    runs = {r["split"]: r for r in body["runs"]}
    assert set(runs) == {"validation", "test"} and runs["test"]["variants"] == ["original"]
    assert runs["validation"]["queue_position"] == 1 and runs["test"]["queue_position"] == 2
    assert EvaluationRun.objects.filter(submission_id=body["id"], model_revision=hub_model.sha).count() == 2


def test_it_accepts_an_api_token(client, author, hub_model):
    token = api_tokens.token_create(user=author)
    response = client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny"}, content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 201


def test_it_handles_anonymous_users(client, demo_loaded, snapshot):
    before = snapshot()
    response = client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny"}, content_type="application/json")
    assert response.status_code in (401, 403) and snapshot() == before


@pytest.mark.parametrize("hub_id", [
    "demo-org/tiny\n", "demo-org/ti..ny", "https://huggingface.co/demo-org/tiny", "demo-org/tiny.git",
    "d\u0435mo-org/tiny", "no-slash",
])
def test_it_handles_invalid_hub_ids_before_any_network_call(api, fake_hub, snapshot, hub_id):
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = api(hub_id=hub_id)
    assert response.status_code == 400 and response.json()["code"] == "INVALID_ID"
    assert repr(hub_id) in response.json()["detail"]  # the id as typed; tests/hub/test_ids.py checks each reason
    assert len(fake_hub.requests) == requests_before and snapshot() == before


def test_it_handles_hub_refusals_with_their_code(api, fake_hub, snapshot):
    fake_hub.add_repo("demo-org/pickle", repo_type="model", files={
        "config.json": b'{"model_type": "llama", "architectures": ["LlamaForCausalLM"]}',
        "pytorch_model.bin": b"\x80\x02pickle", "README.md": b"---\nlicense: mit\n---\n"}, license="mit")
    before = snapshot()
    for hub_id, code in (("demo-org/missing", "MODEL_NOT_FOUND"), ("demo-org/pickle", "NO_SAFETENSORS")):
        response = api(hub_id=hub_id)
        assert response.status_code == 400 and response.json()["code"] == code, response.content
        assert response.json()["detail"]
    assert snapshot() == before


def test_it_refuses_a_duplicate_with_409_naming_the_existing_submission(api, hub_model, snapshot):
    first = api().json()
    before = snapshot()
    response = api()
    assert response.status_code == 409 and response.json()["code"] == "DUPLICATE"
    assert response.json()["existing_submission"] == first["id"] and str(first["id"]) in response.json()["detail"]
    assert snapshot() == before
    # Other settings are a different submission, but the sealed split is evaluated once per pinned model.
    other = api(use_chat_template=True)
    assert other.status_code == 201 and [r["split"] for r in other.json()["runs"]] == ["validation"]


def test_quota_boundary_fifth_accepted_sixth_refused_with_the_date(api, hub_model, settings, snapshot):
    for i in range(4):  # four earlier submissions of other settings, one of them 8 days old
        response = api(precision=["bfloat16", "float16", "bfloat16", "float16"][i], use_chat_template=bool(i // 2))
        assert response.status_code == 201, response.content
    oldest = Submission.objects.order_by("created_at").first()
    fifth = api(model_type="instruct", use_chat_template=False)
    assert fifth.status_code == 201

    before = snapshot()
    sixth = api(model_type="instruct", use_chat_template=True)
    assert sixth.status_code == 429 and sixth.json()["code"] == "QUOTA_EXCEEDED"
    frees_at = oldest.created_at + timedelta(days=7)
    assert sixth.json()["frees_at"] == frees_at.isoformat() and sixth.json()["scope"] == "account"
    assert frees_at.strftime("%Y-%m-%d %H:%M") in sixth.json()["detail"]
    assert snapshot() == before

    # A failed submission frees its slot.
    EvaluationRun.objects.filter(submission=oldest).update(status=RunStatus.FAILED)
    assert api(model_type="instruct", use_chat_template=True).status_code == 201


def test_quota_window_forgets_old_submissions(api, hub_model, settings):
    settings.SUBMISSION_QUOTA = 1
    assert api().status_code == 201
    refused = api(precision="float16")
    assert refused.status_code == 429 and refused.json()["code"] == "QUOTA_EXCEEDED"
    Submission.objects.update(created_at=timezone.now() - timedelta(days=8))
    assert api(precision="float16").status_code == 201


def test_status_is_public_and_holds_no_sealed_content(client, api, hub_model):
    from tests.support.sealed import assert_no_sealed_content

    submission = api().json()
    client.logout()
    response = client.get(reverse("api-submission-detail", args=[submission["id"]]))
    assert response.status_code == 200 and response.json()["runs"][0]["status"] == "queued"
    assert_no_sealed_content(response.content.decode())


# --- precisions the deployment's backend cannot run ---------------------------------------------

def test_it_refuses_bitsandbytes_on_vllm_before_asking_the_hub(api, fake_hub, hub_model, settings, snapshot):
    settings.RUN_BACKEND = "vllm"
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = api(precision="bnb-4bit")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "PRECISION_UNSUPPORTED"
    assert "'bnb-4bit'" in body["detail"] and "vllm" in body["detail"]  # the precision and the backend
    assert body["hint"].startswith("the vllm backend runs bfloat16, float16, fp8, int8, gptq-8bit, gptq-4bit, "
                                   "awq-4bit:")
    assert "bnb-4bit" not in body["hint"]
    assert len(fake_hub.requests) == requests_before and snapshot() == before


def test_it_accepts_a_16bit_precision_on_vllm_and_stores_the_backend(api, hub_model, settings):
    settings.RUN_BACKEND = "vllm"
    response = api(precision="bfloat16")
    assert response.status_code == 201, response.content
    runs = EvaluationRun.objects.filter(submission_id=response.json()["id"])
    assert runs.count() == 2 and set(runs.values_list("backend", flat=True)) == {"vllm"}


@pytest.mark.parametrize("precision", ["fp8", "gptq-4bit", "bnb-4bit"])
def test_it_refuses_quantized_precisions_on_transformers(api, fake_hub, hub_model, settings, snapshot, precision):
    settings.RUN_BACKEND = "transformers"
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = api(precision=precision)
    assert response.status_code == 400 and response.json()["code"] == "PRECISION_UNSUPPORTED"
    assert f"'{precision}'" in response.json()["detail"] and "transformers" in response.json()["detail"]
    assert response.json()["hint"].startswith("the transformers backend runs bfloat16, float16:")
    assert len(fake_hub.requests) == requests_before and snapshot() == before


# --- quota and duplicate checks come before any hub request (they spend the shared hub token) -------------

def test_an_over_quota_submission_makes_no_hub_request(api, fake_hub, hub_model, settings, snapshot):
    settings.SUBMISSION_QUOTA = 1
    assert api().status_code == 201
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = api(precision="float16")
    assert response.status_code == 429 and response.json()["code"] == "QUOTA_EXCEEDED", response.content
    assert len(fake_hub.requests) == requests_before and snapshot() == before


def test_an_over_quota_namespace_makes_no_hub_request_for_another_user(client, api, author, fake_hub, hub_model,
                                                                      settings):
    from leaderboard.submissions.models import NamespaceGrant

    settings.SUBMISSION_QUOTA = 1
    other = User.objects.create_user("other", "other@example.com", "pw")
    for member in (author, other):  # two accounts of the demo-org organisation share its quota
        NamespaceGrant.objects.create(user=member, namespace="demo-org", reason="member of demo-org")
    assert api().status_code == 201
    client.force_login(other)
    requests_before = len(fake_hub.requests)
    response = api(precision="float16")
    assert response.status_code == 429 and response.json()["code"] == "QUOTA_EXCEEDED", response.content
    assert (response.json()["scope"], response.json()["namespace"]) == ("namespace", "demo-org")  # whose quota
    assert "'demo-org'" in response.json()["detail"]
    assert len(fake_hub.requests) == requests_before


def test_a_duplicate_given_by_its_full_sha_makes_no_hub_request(api, fake_hub, hub_model, snapshot):
    first = api(revision=hub_model.sha).json()
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = api(revision=hub_model.sha)
    assert response.status_code == 409 and response.json()["code"] == "DUPLICATE"
    assert response.json()["existing_submission"] == first["id"]
    assert len(fake_hub.requests) == requests_before and snapshot() == before
    # Given by branch name, the duplicate is found once the hub has resolved it to the same sha.
    assert api(revision="main").status_code == 409 and len(fake_hub.requests) > requests_before


# --- throttle on submission POSTs -----------------------------------------------------------------

def test_the_eleventh_submission_post_in_an_hour_gets_429(api, client, fake_hub, hub_model, settings):
    assert settings.SUBMISSION_THROTTLE_RATE == "10/hour"  # the default
    codes = [api(precision=["bfloat16", "float16"][i % 2], use_chat_template=bool(i // 2 % 2)).status_code
             for i in range(10)]  # accepted, duplicates or over quota: each counts
    assert 429 not in codes[:4] and set(codes) <= {201, 409, 429}
    requests_before = len(fake_hub.requests)
    response = api(precision="float16", model_type="instruct")
    assert response.status_code == 429, response.content
    assert response.json()["code"] == "THROTTLED" and "10/hour" in response.json()["hint"]
    assert int(response["Retry-After"]) > 0 and len(fake_hub.requests) == requests_before
    assert client.get(reverse("api-submissions")).status_code == 200  # reading is not throttled


def test_the_submission_throttle_follows_its_setting_and_counts_per_user(api, client, hub_model, settings):
    settings.SUBMISSION_THROTTLE_RATE = "2/hour"
    assert api().status_code == 201 and api().status_code == 409
    assert api().status_code == 429
    client.force_login(User.objects.create_user("other", "other@example.com", "pw"))
    assert api(hub_id="other-org/tiny").status_code != 429  # another user has a budget of their own
