"""Sign in with Hugging Face (issue 26): the OAuth flow against the fake hub's real HTTP endpoints (authorize, token
with PKCE, userinfo). The account owns its hub user name and the organisations where it may write; it may then
upload predictions under them. A forged or replayed answer signs nobody in."""
import io
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.submissions.models import HubAccount, ModelEntry, NamespaceGrant
from leaderboard.submissions.selectors import namespace_owners, owns_namespace
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
CALLBACK = "http://testserver/accounts/hf/callback/"


@pytest.fixture
def hub(fake_hub, settings):
    settings.HF_OAUTH_CLIENT_ID, settings.HF_OAUTH_CLIENT_SECRET = "leaderboard-app", "s3cret"
    settings.HF_OAUTH_ENDPOINT = fake_hub.url
    fake_hub.add_oauth_client("leaderboard-app", "s3cret", CALLBACK)
    return fake_hub


def approve(client, hub, next_url=""):
    """The browser's round trip: our start page, the hub's consent (approved at once), back to our callback."""
    start = client.get(reverse("hub-signin") + (f"?next={next_url}" if next_url else ""))
    assert start.status_code == 302 and start["Location"].startswith(f"{hub.url}/oauth/authorize?")
    asked = parse_qs(urlsplit(start["Location"]).query)
    assert asked["code_challenge_method"] == ["S256"] and asked["scope"] == ["openid profile"]
    consent = requests.get(start["Location"], allow_redirects=False, timeout=10)
    assert consent.status_code == 302 and consent.headers["Location"].startswith(CALLBACK)
    return client.get(urlsplit(consent.headers["Location"]).path + "?" + urlsplit(consent.headers["Location"]).query)


def test_it_works(client, hub):
    hub.oauth_sign_in("nadia", orgs=[("nadia-lab", "write"), ("big-corp", "read"), ("team-x", "admin")])
    done = approve(client, hub, next_url="/submit/")
    assert done.status_code == 302 and done["Location"] == "/submit/"
    user = User.objects.get(username="nadia")
    assert user.is_active and not user.has_usable_password() and "_auth_user_id" in client.session
    assert [owns_namespace(user, ns) for ns in ("nadia", "NADIA-LAB", "team-x", "big-corp", "other")] == [
        True, True, True, False, False]
    token = [r for r in hub.requests if r.path == "/oauth/token"]
    assert len(token) == 1 and token[0].method == "POST"


def test_signing_in_again_refreshes_the_organisations(client, hub):
    hub.oauth_sign_in("nadia", orgs=[("nadia-lab", "write")])
    approve(client, hub)
    client.logout()
    hub.oauth_sign_in("nadia", orgs=[])  # she left the organisation on the hub
    approve(client, hub)
    user = User.objects.get(username="nadia")
    assert User.objects.count() == 1 and not owns_namespace(user, "nadia-lab") and owns_namespace(user, "nadia")


def test_a_taken_user_name_gets_a_suffix_and_the_first_owner_keeps_theirs(client, hub):
    User.objects.create_user("Nadia", "someone@example.com", "pw")
    hub.oauth_sign_in("nadia")
    approve(client, hub)
    assert HubAccount.objects.get().user.username == "nadia-hf"


def test_the_suffix_never_lands_on_a_namespace_in_use(client, hub):
    """Issue 31, finding 4: with `llava` taken, the hub user `llava` got `llava-hf`, and with it the namespace of
    `llava-hf/...` on the board. The suffixed name must be free as a name and unused as a namespace."""
    User.objects.create_user("LLaVA", "someone@example.com", "pw")
    ModelEntry.objects.create(hub_id="llava-hf/llava-1.5-7b-hf", namespace="llava-hf")
    hub.oauth_sign_in("llava")
    assert approve(client, hub).status_code == 302
    user = HubAccount.objects.get().user
    assert user.username == "llava-hf2" and owns_namespace(user, "llava") and not owns_namespace(user, "llava-hf")
    assert [u.username for u in namespace_owners("llava-hf")] == []


def test_it_refuses_clearly_when_every_name_it_would_give_is_taken(client, hub, snapshot):
    User.objects.create_user("llava", "someone@example.com", "pw")
    NamespaceGrant.objects.create(user=User.objects.get(), namespace="llava-hf", reason="the organisation's")
    for name in ["llava-HF2", *(f"LLAVA-hf{n}" for n in range(3, 10))]:
        User.objects.create_user(name, f"{name}@example.com", "pw")
    before = snapshot()
    hub.oauth_sign_in("llava")
    refused = approve(client, hub)
    assert refused.status_code == 400 and "'llava' is held by another account here" in text(refused)
    assert "Sign up with an e-mail address" in text(refused)
    stored = {table: rows for table, rows in snapshot().items() if table != "django_session"}  # the OAuth state
    assert stored == {table: rows for table, rows in before.items() if table != "django_session"}
    assert "_auth_user_id" not in client.session


def test_an_org_member_uploads_under_the_org(client, hub, demo_loaded):
    hub.oauth_sign_in("nadia", orgs=[("nadia-lab", "write")])
    approve(client, hub)
    file = io.BytesIO(b"question_id,predicted_answer\n")
    file.name = "predictions.csv"
    refused = client.post(reverse("api-prediction-upload"), {"name": "big-corp/model", "benchmark": "mobile-mmlu",
                                                             "split": "validation", "file": file})
    assert refused.status_code == 403 and refused.json()["code"] == "NOT_NAMESPACE_OWNER"
    file.seek(0)
    mine = client.post(reverse("api-prediction-upload"), {"name": "nadia-lab/model", "benchmark": "mobile-mmlu",
                                                          "split": "validation", "file": file})
    assert mine.json().get("code") != "NOT_NAMESPACE_OWNER"  # past ownership: refused, if at all, for its rows


def test_a_forged_callback_signs_nobody_in(client, hub, snapshot):
    hub.oauth_sign_in("nadia")
    before = snapshot()
    forged = client.get(reverse("hub-signin-callback") + "?code=code-0-beef&state=guessed")
    assert forged.status_code == 400 and "could not sign you in" in text(forged)
    assert snapshot() == before and "_auth_user_id" not in client.session


def test_a_replayed_code_signs_nobody_in(client, hub):
    hub.oauth_sign_in("nadia")
    start = client.get(reverse("hub-signin"))
    back = requests.get(start["Location"], allow_redirects=False, timeout=10).headers["Location"]
    path = urlsplit(back).path + "?" + urlsplit(back).query
    assert client.get(path).status_code == 302
    client.logout()
    assert client.get(path).status_code == 400 and "_auth_user_id" not in client.session


def test_it_is_off_without_a_client_id(client, settings):
    settings.HF_OAUTH_CLIENT_ID = ""
    assert client.get(reverse("hub-signin")).status_code == 404
    assert "Sign in with Hugging Face" not in text(client.get(reverse("login")))


def test_the_sign_in_pages_offer_it(client, hub):
    assert reverse("hub-signin") in client.get(reverse("login")).content.decode()
    assert reverse("hub-signin") in client.get(reverse("signup")).content.decode()
