"""Predictions uploads are owned: only for a namespace the uploader owns (its username, or an admin's grant).
Quotas are the account's; a namespace's quota counts only its owners' submissions. Hub ids compare
case-insensitively: `DEMO/x` is the entry, quota and duplicate of `demo/x`."""
import importlib
import io

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.urls import reverse

from leaderboard.benchmarks.models import Question
from leaderboard.core.models import AuditRecord
from leaderboard.submissions.models import ModelEntry, NamespaceGrant, Submission
from leaderboard.submissions.selectors import owns_namespace
from tests.results.conftest import make_run  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db
UPLOAD = "/api/v1/submissions/predictions/"
SUBMIT = "/api/v1/submissions/"


def predictions(letter=lambda q: q.answer.split(",")[0]) -> bytes:
    rows = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation").order_by("position")
    return ("question_id,predicted_answer\n" + "".join(f"{q.uid},{letter(q)}\n" for q in rows)).encode()


@pytest.fixture
def login(client):
    """Signs ``user`` in unless already signed in (signing in writes the session and last_login)."""
    current = {}

    def sign_in(user):
        if current.get("user") != user:
            client.force_login(user)
            current["user"] = user
        return user
    return sign_in


@pytest.fixture
def upload_as(client, demo_loaded, login):
    def post(user, name, data=None):
        login(user)
        file = io.BytesIO(predictions() if data is None else data)
        file.name = "predictions.csv"
        return client.post(UPLOAD, {"name": name, "benchmark": "mobile-mmlu", "split": "validation", "file": file})
    return post


def account(name):
    return User.objects.create_user(name, f"{name.lower()}@example.com", "pw")


def grant(user, namespace):
    return NamespaceGrant.objects.create(user=user, namespace=namespace, reason="member of the organisation")


# --- ownership ---------------------------------------------------------------------------------------

def test_a_stranger_cannot_upload_under_another_namespace(upload_as, login, snapshot):
    mallory = login(account("mallory"))
    before = snapshot()
    response = upload_as(mallory, "meta-llama/Llama-3.2-1B")
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["code"] == "NOT_NAMESPACE_OWNER" and body["namespace"] == "meta-llama"
    assert "'meta-llama'" in body["detail"] and "'mallory/...'" in body["detail"]  # theirs, and the one to use
    assert body["hint"]
    assert snapshot() == before


def test_a_stranger_cannot_upload_for_a_model_on_the_board(upload_as, login, make_run, snapshot, client):
    make_run("meta-llama/Llama-3.2-1B", 120)  # 25.0% measured
    mallory = login(account("mallory"))
    before = snapshot()
    assert upload_as(mallory, "META-LLAMA/Llama-3.2-1B").status_code == 403
    assert snapshot() == before
    (row,) = client.get(reverse("api-leaderboard")).json()["results"]
    assert (row["hub_id"], row["accuracy"], row["source"]) == ("meta-llama/Llama-3.2-1B", 25.0, "measured")


def test_an_account_uploads_under_its_own_namespace_whatever_the_case(upload_as):
    alice = account("Alice")
    first = upload_as(alice, "alice/tiny")
    assert first.status_code == 201, first.content
    again = upload_as(alice, "ALICE/TINY")
    assert again.status_code == 201, again.content
    assert again.json()["hub_id"] == first.json()["hub_id"] == "alice/tiny"  # the stored spelling
    assert ModelEntry.objects.filter(hub_id__iexact="alice/tiny").count() == 1
    assert ModelEntry.objects.get().namespace == "alice"


def test_a_grant_lets_an_account_upload_for_an_organisation(upload_as, snapshot):
    bob = account("bob")
    assert upload_as(bob, "acme/tiny").status_code == 403
    grant(bob, "ACME")  # stored lower-case
    assert NamespaceGrant.objects.get().namespace == "acme"
    response = upload_as(bob, "Acme/tiny")
    assert response.status_code == 201, response.content
    assert Submission.objects.get().submitter == bob


def test_owns_namespace_is_the_one_rule(db):
    carol, dave = account("Carol"), account("dave")
    grant(dave, "acme")
    assert owns_namespace(carol, "carol") and owns_namespace(carol, "CAROL")
    assert owns_namespace(dave, "Acme") and owns_namespace(dave, "dave")
    assert not owns_namespace(carol, "acme") and not owns_namespace(dave, "carol")
    assert not owns_namespace(AnonymousUser(), "carol") and not owns_namespace(None, "carol")


# --- quotas are the account's ------------------------------------------------------------------------

@pytest.fixture
def submit_as(client, demo_loaded, hub_model, login):
    def post(user, hub_id="demo-org/tiny", **data):
        login(user)
        return client.post(SUBMIT, {"hub_id": hub_id, **data}, content_type="application/json")
    return post


def test_a_strangers_submissions_do_not_use_up_a_namespace_quota(submit_as, settings):
    settings.SUBMISSION_QUOTA = 1
    assert submit_as(account("stranger")).status_code == 201
    owner = submit_as(account("demo-org"), precision="float16")
    assert owner.status_code == 201, owner.content


def test_a_namespace_quota_counts_its_owners_submissions(submit_as, login, settings, snapshot):
    settings.SUBMISSION_QUOTA = 1
    assert submit_as(account("demo-org")).status_code == 201
    member = login(account("member"))
    grant(member, "demo-org")
    before = snapshot()
    refused = submit_as(member, "DEMO-ORG/tiny", precision="float16")
    assert refused.status_code == 429 and refused.json()["code"] == "QUOTA_EXCEEDED", refused.content
    # the namespace's quota (the member's own is unused)
    assert (refused.json()["scope"], refused.json()["namespace"]) == ("namespace", "demo-org"), refused.content
    assert snapshot() == before


def test_uploads_count_for_the_uploader(upload_as, client, settings):
    settings.SUBMISSION_QUOTA = 1
    uploader = account("uploader")
    assert upload_as(uploader, "uploader/tiny").status_code == 201
    response = client.post(SUBMIT, {"hub_id": "other-org/model"}, content_type="application/json")
    assert response.status_code == 429 and response.json()["code"] == "QUOTA_EXCEEDED", response.content
    assert response.json()["scope"] == "account" and "namespace" not in response.json()  # the uploader's own quota


# --- hub ids compare case-insensitively ----------------------------------------------------------------

def test_another_spelling_is_the_same_model_and_duplicate(submit_as, fake_hub, hub_model, snapshot):
    author = account("author")
    first = submit_as(author, revision=hub_model.sha).json()
    before, requests_before = snapshot(), len(fake_hub.requests)
    response = submit_as(author, "DEMO-ORG/Tiny", revision=hub_model.sha)
    assert response.status_code == 409 and response.json()["code"] == "DUPLICATE", response.content
    assert response.json()["existing_submission"] == first["id"]
    assert len(fake_hub.requests) == requests_before and snapshot() == before  # known before asking the hub
    other = submit_as(author, "Demo-Org/TINY", precision="float16")
    assert other.status_code == 201, other.content
    assert other.json()["hub_id"] == "demo-org/tiny" and ModelEntry.objects.count() == 1


def test_a_custom_code_allowance_matches_any_spelling(client, demo_loaded, fake_hub):
    from leaderboard.submissions.models import CustomCodeAllowance
    from tests.hub.test_checks import CUSTOM_CODE_FILES, CUSTOM_CONFIG, add_model, model_files

    repo = add_model(fake_hub, "invented-org/custom", files=model_files(CUSTOM_CONFIG, extra=CUSTOM_CODE_FILES))
    CustomCodeAllowance.objects.create(hub_id="Invented-Org/Custom", revision_sha=repo.sha, reason="reviewed")
    client.force_login(account("author"))
    response = client.post(SUBMIT, {"hub_id": "invented-org/custom"}, content_type="application/json")
    assert response.status_code == 201, response.content


def test_the_database_refuses_a_second_spelling(db):
    ModelEntry.objects.create(hub_id="demo/x", namespace="demo")
    with pytest.raises(IntegrityError), transaction.atomic():
        ModelEntry.objects.create(hub_id="DEMO/x", namespace="demo")


def test_the_migration_stops_on_entries_that_differ_only_in_case():
    migration = importlib.import_module(
        "leaderboard.submissions.migrations.0003_namespace_grant_and_case_insensitive_hub_ids")

    class Entries:
        def __init__(self, ids):
            self.ids = ids

        def using(self, alias):
            return self

        def values_list(self, *fields, flat=False):
            return list(self.ids)

    class Apps:
        def __init__(self, ids):
            self.model = type("ModelEntry", (), {"objects": Entries(ids)})

        def get_model(self, app, name):
            return self.model

    editor = type("Editor", (), {"connection": type("Connection", (), {"alias": "default"})})
    migration.refuse_case_duplicates(Apps(["demo/x", "demo/y", "org/m"]), editor)  # no clash: nothing said
    with pytest.raises(RuntimeError) as info:
        migration.refuse_case_duplicates(Apps(["demo/x", "DEMO/x", "org/m", "Org/M", "Org/m"]), editor)
    message = str(info.value)
    assert message.startswith("2 hub ids are stored in more than one spelling (DEMO/x = demo/x; Org/M = Org/m = org/m)")
    assert "Merge each group into one model entry" in message and "nothing was changed" in message


# --- the admin grants, audited ---------------------------------------------------------------------------

def test_an_admin_grants_a_namespace_and_it_is_audited(client, root):
    member = account("member")
    url = reverse("admin:submissions_namespacegrant_add")
    bad = client.post(url, {"user": member.pk, "namespace": "acme org", "reason": "x"})
    assert bad.status_code == 200
    errors = bad.context["adminform"].form.errors
    assert list(errors) == ["namespace"] and "'acme org'" in errors["namespace"][0]  # the value refused
    response = client.post(url, {"user": member.pk, "namespace": "ACME", "reason": "maintains acme's models",
                                 "audit_reason": "asked by acme's owner"})
    assert response.status_code == 302, response.content.decode()[:2000]
    grant_ = NamespaceGrant.objects.get()
    assert (grant_.user, grant_.namespace, grant_.granted_by) == (member, "acme", root)
    record = AuditRecord.objects.get(action="admin_add")
    assert record.actor == root and record.reason == "asked by acme's owner"
    assert owns_namespace(member, "acme")
