"""The submit form and the status page use the same services as the API."""
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from leaderboard.submissions.models import Submission
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, demo_loaded):
    client.force_login(User.objects.create_user("author", "author@example.com", "pw"))
    return client


def form(**data):
    return {"hub_id": "demo-org/tiny", "revision": "main", "precision": "bfloat16", "model_type": "pretrained",
            "benchmarks": ["mobile-mmlu"], **data}


def test_it_works(signed_in, fake_hub, tiny_model_dir):
    from tests.support.fake_hub import files_from_folder

    fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files_from_folder(tiny_model_dir), license="mit")
    response = signed_in.post(reverse("submit"), form())
    submission = Submission.objects.get()
    assert response.status_code == 302 and response.url == reverse("submission-status", args=[submission.pk])
    page = signed_in.get(response.url).content.decode()
    assert "demo-org/tiny" in page and "position 1 in queue" in page and "submission_status.js" in page


def test_it_shows_the_servers_refusal_inline_and_stores_nothing(signed_in, fake_hub, snapshot):
    import html

    from leaderboard.submissions.hub_ids import HubIdError, validate_hub_id

    with pytest.raises(HubIdError) as expected:
        validate_hub_id("demo-org/ti..ny")
    before = snapshot()
    page = html.unescape(signed_in.post(reverse("submit"), form(hub_id="demo-org/ti..ny")).content.decode())
    assert 'role="alert"' in page and str(expected.value) in page
    page = html.unescape(signed_in.post(reverse("submit"), form(hub_id="demo-org/absent")).content.decode())
    assert "no model 'demo-org/absent' on the hub" in page
    assert snapshot() == before


def test_it_handles_anonymous_users(client, demo_loaded):
    response = client.get(reverse("submit"))
    assert response.status_code == 302 and reverse("login") in response.url


def test_status_page_shows_failure_reason_without_sealed_content(client, signed_in, fake_hub, tiny_model_dir):
    from tests.support.fake_hub import files_from_folder

    fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files_from_folder(tiny_model_dir), license="mit")
    signed_in.post(reverse("submit"), form())
    submission = Submission.objects.get()
    EvaluationRun.objects.filter(submission=submission, split="test").update(
        status=RunStatus.FAILED, failure_code=FailureCode.OUT_OF_MEMORY, failure_reason="OUT_OF_MEMORY after 3 attempts.",
        log_excerpt="OutOfMemoryError (details withheld: sealed split)")
    page = client.get(reverse("submission-status", args=[submission.pk])).content.decode()
    assert "OUT_OF_MEMORY" in page and "details withheld" in page
    assert_no_sealed_content(page)
