"""The submission loop a newcomer goes through: sign up with e-mail confirmation, reset a password, see why
/submit/ needs an account, follow runs in My submissions and the public queue, read the status page in plain
words with re-runs in order, and an ETA that scales with model size and answer orders."""
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.models import ModelEntry, Submission
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
NINE = ["original", "fixed-A", "fixed-B", "fixed-C", "fixed-D", "R1", "R2", "R3", "R4"]


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0)


def test_sign_up_confirm_by_e_mail_then_sign_in(client, demo_loaded):
    page = text(client.get(reverse("signup")))
    assert 'class="site-header"' in page and 'id="signup-form"' in page  # the site's own look
    response = client.post(reverse("signup"), {"username": "ada", "email": "ada@example.com",
                                               "password1": "a long pass phrase", "password2": "a long pass phrase"})
    assert response.status_code == 200 and "ada@example.com" in text(response)
    user = User.objects.get(username="ada")
    assert not user.is_active and len(mail.outbox) == 1 and mail.outbox[0].to == ["ada@example.com"]
    assert not client.login(username="ada", password="a long pass phrase")  # not before confirming
    link = link_in(mail.outbox[0])
    assert "Account confirmed" in text(client.get(link))
    assert User.objects.get(username="ada").is_active
    assert client.get(link).status_code == 400  # a confirmation link works once
    response = client.post(reverse("login"), {"username": "ada", "password": "a long pass phrase"})
    assert response.status_code == 302


def test_sign_up_with_a_known_address_mails_its_owner_and_a_forged_link_fails(client, demo_loaded):
    """The page does not say whether the address has an account (tests/frontend/test_accounts_hardening.py): its
    owner gets a notice instead of a confirmation link."""
    User.objects.create_user("bob", "bob@example.com", "pw")
    response = client.post(reverse("signup"), {"username": "bob2", "email": "BOB@example.com",
                                               "password1": "a long pass phrase", "password2": "a long pass phrase"})
    assert "Check your e-mail" in text(response) and "exists" not in text(response)
    (notice,) = mail.outbox
    assert notice.to == ["bob@example.com"] and "Sign in as bob" in notice.body and "/signup/confirm/" not in notice.body
    forged = reverse("signup-confirm", kwargs={"uidb64": "MQ", "token": "abc-123"})
    assert client.get(forged).status_code == 400


def test_sign_up_refuses_a_user_name_that_is_a_namespace_on_the_board(client, demo_loaded, snapshot):
    """A user name owns its hub namespace (uploads under it), so nobody can squat an organisation by signing up."""
    ModelEntry.objects.create(hub_id="meta-llama/Llama-3.2-1B", namespace="meta-llama")
    before = snapshot()
    response = client.post(reverse("signup"), {"username": "Meta-Llama", "email": "m@example.com",
                                               "password1": "a long pass phrase", "password2": "a long pass phrase"})
    assert "is the namespace of models on this board" in text(response) and "ask an admin" in text(response)
    assert snapshot() == before and not mail.outbox


def test_a_confirmation_link_is_not_a_password_reset_link(client, demo_loaded):
    client.post(reverse("signup"), {"username": "eve", "email": "eve@example.com",
                                    "password1": "a long pass phrase", "password2": "a long pass phrase"})
    uidb64, token = link_in(mail.outbox[0]).rstrip("/").split("/")[-2:]
    response = client.get(reverse("password_reset_confirm", kwargs={"uidb64": uidb64, "token": token}), follow=True)
    assert "This link is not valid" in text(response)


def test_password_reset_in_the_sites_pages(client, demo_loaded):
    User.objects.create_user("carol", "carol@example.com", "old password 1")
    login = text(client.get(reverse("login")))
    assert reverse("password_reset") in login and reverse("signup") in login
    form = text(client.get(reverse("password_reset")))
    assert 'class="site-header"' in form and 'id="password-reset-form"' in form
    response = client.post(reverse("password_reset"), {"email": "carol@example.com"}, follow=True)
    assert "Check your e-mail" in text(response) and len(mail.outbox) == 1
    response = client.get(link_in(mail.outbox[0]), follow=True)
    assert 'id="password-set-form"' in text(response)
    response = client.post(response.redirect_chain[-1][0], {"new_password1": "new pass phrase 2",
                                                            "new_password2": "new pass phrase 2"}, follow=True)
    assert "Password changed" in text(response)
    assert client.login(username="carol", password="new pass phrase 2")


# --- runs without a worker ---------------------------------------------------------------------------------------

@pytest.fixture
def version(demo_loaded):
    from leaderboard.benchmarks.models import Benchmark

    return Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()


@pytest.fixture
def author(db):
    return User.objects.create_user("author", "author@example.com", "pw")


def submission_of(author, hub_id, *, params=2_000_000_000, hidden=False, model_hidden=False):
    model, _ = ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={
        "namespace": hub_id.split("/")[0], "params": params, "hidden": model_hidden})
    return Submission.objects.create(submitter=author, model=model, revision_sha="b" * 40, hidden=hidden,
                                     benchmarks=["mobile-mmlu"])


def run_of(version, submission, *, split="validation", status=RunStatus.QUEUED, variants=("original",),
           total=480, done=0, **fields):
    return EvaluationRun.objects.create(
        submission=submission, benchmark_version=version, split=split,
        model_ref=submission.model.hub_id if submission else "/srv/models/secret-local-model",
        variants=list(variants), status=status, progress_total=total, progress_done=done, **fields)


def test_status_page_speaks_plainly_and_keeps_reruns_in_order(client, version, author):
    submission = submission_of(author, "org/model")
    old = run_of(version, submission, status=RunStatus.FAILED, variants=NINE, total=4320,
                 failure_code=FailureCode.OUT_OF_MEMORY, failure_reason="OUT_OF_MEMORY after 3 attempts.")
    new = run_of(version, submission, status=RunStatus.RUNNING, variants=NINE, total=4320, done=1152,
                 rerun_of=old, started_at=timezone.now() - timedelta(minutes=2))
    run_of(version, submission, split="test", status=RunStatus.QUEUED, total=0)
    page = text(client.get(reverse("submission-status", args=[submission.pk])))
    assert "questions scored 1,152 of 4,320 (480 questions × 9 answer orders)" in page
    for wrong in ("items", "chunks", "next to start", "0 / 0"):
        assert wrong not in page, wrong
    assert f"Run {new.pk}" in page and f"Run {old.pk}: failed (OUT_OF_MEMORY); an admin re-ran it as run {new.pk}" in page
    assert 'id="failure-reason" class="failure" data-live role="alert" hidden' in page  # old advice is history
    titles = re.findall(r"<h2[^>]*>(.*?)</h2>", page)
    assert len(titles) == len(set(titles)) == 2, titles
    assert page.index(f"Run {new.pk}") < page.index("Earlier runs")
    assert "<dd id=\"queue-position\">running now; 1 more run of it waiting</dd>" in page


def test_status_headline_follows_the_rerun_not_the_old_failure(client, version, author):
    submission = submission_of(author, "org/model")
    old = run_of(version, submission, status=RunStatus.FAILED, failure_code=FailureCode.WORKER_LOST)
    run_of(version, submission, status=RunStatus.SUCCEEDED, rerun_of=old, done=480)
    page = text(client.get(reverse("submission-status", args=[submission.pk])))
    assert '<span id="overall-status" class="status status-succeeded">finished</span>' in page
    assert 'data-done="1"' in page


def test_my_submissions_lists_the_users_runs(client, version, author):
    assert "needs you signed in" in text(client.get(reverse("my-submissions")))
    mine = submission_of(author, "org/mine")
    run = run_of(version, mine, status=RunStatus.RUNNING, done=96, started_at=timezone.now())
    other = User.objects.create_user("other", "other@example.com", "pw")
    submission_of(other, "org/theirs")
    client.force_login(author)
    page = text(client.get(reverse("my-submissions")))
    assert "org/mine" in page and "org/theirs" not in page
    assert f"Run {run.pk} · Mobile-MMLU · validation: running, questions scored 96 of 480" in page
    assert reverse("submission-status", args=[mine.pk]) in page


def test_the_queue_names_only_public_models(client, version, author):
    running = run_of(version, submission_of(author, "org/public-big", params=30_000_000_000),
                     status=RunStatus.RUNNING, started_at=timezone.now())
    first = run_of(version, submission_of(author, "org/hidden-model", model_hidden=True))
    second = run_of(version, submission_of(author, "org/hidden-submission", hidden=True))
    third = run_of(version, None)  # an operator's run of a local path
    fourth = run_of(version, submission_of(author, "org/public-small", params=1_000_000_000))
    run_of(version, submission_of(author, "org/done"), status=RunStatus.SUCCEEDED)
    page = text(client.get(reverse("queue")))
    assert "org/public-big" in page and "org/public-small" in page
    for secret in ("hidden-model", "hidden-submission", "secret-local-model", "org/done"):
        assert secret not in page, secret
    assert page.count("a private model") >= 3
    rows = re.findall(r'<tr data-run="(\d+)">\s*<td>([^<]*)</td>', page)  # run, position
    assert rows == [(str(running.pk), "running"), (str(first.pk), "1 (next)"), (str(second.pk), "2"),
                    (str(third.pk), "3"), (str(fourth.pk), "4")]
    assert "Medium (13–50B)" in page and "Mini (&lt; 5B)" not in page and "Mini (< 5B)" in page


def test_an_empty_queue_says_so(client, demo_loaded):
    assert "Nothing is running or waiting" in text(client.get(reverse("queue")))


def test_eta_scales_with_model_size_and_answer_orders(version, author):
    now = timezone.now()
    # One finished run to time the queue by: 2B parameters, 480 predictions in 96 s.
    run_of(version, submission_of(author, "org/timed"), status=RunStatus.SUCCEEDED, done=480,
           started_at=now - timedelta(seconds=96), finished_at=now)
    small = run_of(version, submission_of(author, "org/small", params=2_000_000_000))
    big = run_of(version, submission_of(author, "org/big", params=8_000_000_000))
    nine = run_of(version, submission_of(author, "org/nine", params=2_000_000_000), variants=NINE, total=4320)
    eta = {r.pk: submission_selectors.run_eta_seconds(run=r) for r in (small, big, nine)}
    assert eta[small.pk] == pytest.approx(96)
    assert eta[big.pk] == pytest.approx(96 + 4 * 96)  # waits for `small`, then takes 4x as long
    assert eta[nine.pk] == pytest.approx(96 + 4 * 96 + 9 * 96)
    # A run under way is timed by its own pace: 120 of 480 predictions in 60 s leaves 180 s.
    small.status, small.progress_done, small.started_at = RunStatus.RUNNING, 120, now - timedelta(seconds=60)
    small.save()
    assert submission_selectors.run_eta_seconds(run=small) == pytest.approx(180, abs=2)
