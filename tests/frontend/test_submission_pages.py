"""The submit form and the status page use the same services as the API."""
import html

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from leaderboard.submissions.models import Submission
from tests.frontend.conftest import text
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
    assert "demo-org/tiny" in page and "1st in the queue" in page and "submission_status.js" in page


def test_it_shows_the_servers_refusal_inline_and_stores_nothing(signed_in, fake_hub, snapshot):
    from leaderboard.hub.ids import HubIdError, validate_hub_id

    with pytest.raises(HubIdError) as expected:
        validate_hub_id("demo-org/ti..ny")
    before = snapshot()
    response = signed_in.post(reverse("submit"), form(hub_id="demo-org/ti..ny"))
    errors = field_errors(response)
    assert list(errors) == ["hub_id"] and str(expected.value) in errors["hub_id"]
    errors = field_errors(signed_in.post(reverse("submit"), form(hub_id="demo-org/absent")))
    assert list(errors) == ["hub_id"] and "'demo-org/absent'" in errors["hub_id"]  # MODEL_NOT_FOUND, shown inline
    errors = field_errors(signed_in.post(reverse("submit"), form(revision="bad..rev")))
    assert list(errors) == ["revision"] and "revision" in errors["revision"]
    assert snapshot() == before


def field_errors(response):
    """field name -> its inline error text: each .field-error sits in the .field of its input."""
    import re

    page = html.unescape(response.content.decode())
    assert 'id="submit-form"' in page
    out = {}
    for block in re.findall(r'<div class="field has-error">(.*?)</div>\s*(?=<div class="field|<button)', page, re.S):
        name = re.search(r'name="(\w+)"', block).group(1)
        out[name] = " ".join(re.findall(r'<p class="field-error[^"]*"[^>]*>(.*?)</p>', block, re.S))
    return out


@pytest.mark.parametrize("backend, offered", [
    ("transformers", ["bfloat16", "float16"]),
    ("vllm", ["bfloat16", "float16", "fp8", "int8", "gptq-8bit", "gptq-4bit", "awq-4bit"])])
def test_it_offers_only_the_precisions_this_deployment_runs(signed_in, settings, backend, offered):
    """bnb-4bit (kept for stored submissions) is refused by every deployment, so the form never offers it."""
    settings.RUN_BACKEND = backend
    page = signed_in.get(reverse("submit")).content.decode()
    select = page[page.index('name="precision"'):]
    select = select[:select.index("</select>")]
    assert [value for value in offered if f'value="{value}"' in select] == offered
    assert 'value="bnb-4bit"' not in select and select.count("<option") == len(offered)


def test_it_explains_why_it_needs_an_account(client, demo_loaded):
    response = client.get(reverse("submit"))
    page = text(response)
    assert response.status_code == 200 and "Submitting needs an account" in page
    assert f'{reverse("login")}?next=/submit/' in page and reverse("signup") in page
    assert 'id="submit-form"' not in page


def test_status_page_shows_failure_reason_without_sealed_content(client, signed_in, fake_hub, tiny_model_dir):
    from tests.support.fake_hub import files_from_folder

    fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files_from_folder(tiny_model_dir), license="mit")
    signed_in.post(reverse("submit"), form())
    submission = Submission.objects.get()
    EvaluationRun.objects.filter(submission=submission, split="test").update(
        status=RunStatus.FAILED, failure_code=FailureCode.OUT_OF_MEMORY,
        failure_reason="OUT_OF_MEMORY after 3 attempts.",
        log_excerpt="OutOfMemoryError (details withheld: sealed split)")
    page = client.get(reverse("submission-status", args=[submission.pk])).content.decode()
    assert "OUT_OF_MEMORY" in page and "details withheld" in page
    failure = page.split('id="failure-reason"')[1].split("</div>")[0]
    assert "hidden" not in failure.split(">")[0] and "smaller" in failure  # what to do about it
    assert_no_sealed_content(page)


def test_status_page_has_live_progress_queue_position_and_eta(client, signed_in, fake_hub, tiny_model_dir):
    from tests.support.fake_hub import files_from_folder

    fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files_from_folder(tiny_model_dir), license="mit")
    signed_in.post(reverse("submit"), form())
    submission = Submission.objects.get()
    run = submission.runs.order_by("pk").first()
    EvaluationRun.objects.filter(pk=run.pk).update(progress_done=100, progress_total=480)
    page = client.get(reverse("submission-status", args=[submission.pk])).content.decode()
    assert f'<progress id="run-progress-{run.pk}" max="480" value="100">' in page
    assert '<dd id="queue-position">1st in the queue (nothing ahead of it)</dd>' in page and 'id="eta"' in page
    assert 'id="failure-reason" class="failure" data-live role="alert" hidden' in page
    assert "pages/submission_status.js" in page and 'data-done="0"' in page
