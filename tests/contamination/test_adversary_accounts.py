"""The adversary's account route (issue 22, finding 3): a user name owns the hub namespace of that name, compared
case-insensitively, so an account named `VERA` beside `vera` would own `vera/` too: it could upload predictions as
`vera/...` and spend vera's namespace quota.

Method (tests/contamination/test_adversary.py): two worlds that differ only in whether the adversary plays the whole
takeover (sign up as a case variant of the victim's name, confirm the e-mail, sign in, upload under the victim's
namespace). What the victim then gets, uploading under her own namespace with a quota of one, must be the same in both;
and the attack must stop at its first step, storing nothing and sending no e-mail."""
import io
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.models import ModelEntry
from tests.contamination.adversary import Worlds

pytestmark = pytest.mark.django_db
UPLOAD = "/api/v1/submissions/predictions/"
PASS = "a long pass phrase"


@pytest.fixture
def upload(version):
    rows = version.questions.filter(split="validation").order_by("position")
    body = ("question_id,predicted_answer\n" + "".join(f"{q.uid},{q.answer.split(',')[0]}\n" for q in rows)).encode()

    def post(client, name):
        file = io.BytesIO(body)
        file.name = "predictions.csv"
        return client.post(UPLOAD, {"name": name, "benchmark": "mobile-mmlu", "split": "validation", "file": file})

    return post


def takeover(victim, upload) -> dict:
    """The adversary's moves, each only if the one before worked; what it got at each."""
    adversary, name = Client(), victim.username.upper()
    signup = adversary.post(reverse("signup"), {"username": name, "email": "mallory@evil.example",
                                                "password1": PASS, "password2": PASS})
    got = {"signup": signup.status_code, "refused": "A user with that username already exists" in signup.content.decode(),
           "mails": len(mail.outbox), "accounts": User.objects.filter(username__iexact=victim.username).count()}
    if mail.outbox:
        adversary.get(re.search(r"https?://\S+/signup/confirm/\S+", mail.outbox[-1].body).group(0))
        got["signed_in"] = adversary.login(username=name, password=PASS)
        got["upload"] = upload(adversary, f"{victim.username}/victim-model").status_code
    return got


def test_a_case_variant_of_a_user_name_takes_over_nothing(people, upload, settings):
    settings.SUBMISSION_QUOTA = 1  # one upload spends the namespace's quota
    victim = people["victim"]
    victims_client = Client()
    victims_client.force_login(victim)
    worlds, attacks = Worlds(), []

    def build(attacked):
        mail.outbox.clear()
        if attacked:
            attacks.append(takeover(victim, upload))
        return attacked

    def crawl(_):
        response = upload(victims_client, f"{victim.username}/own-model")
        owners = sorted(submission_selectors.namespace_owners(victim.username).values_list("username", flat=True))
        return {"upload": (response.status_code, response.json().get("code")), "owners": owners}

    peaceful, attacked = worlds.observe(lambda: build(False), crawl), worlds.observe(lambda: build(True), crawl)
    assert peaceful == {"upload": (201, None), "owners": [victim.username]}
    assert attacked == peaceful
    assert attacks == [{"signup": 200, "refused": True, "mails": 0, "accounts": 1}]


@pytest.mark.parametrize("name", ["mıcrosoft", "MıCROSOFT", "mİcrosoft"])
def test_a_dotless_i_takes_over_no_namespace_on_the_board(upload, name, snapshot):
    """Issue 31, finding 1: PostgreSQL's UPPER('mıcrosoft') is 'MICROSOFT', so an account `mıcrosoft` owned
    `microsoft` and uploaded `microsoft/phi-evil` (201). Sign-up refuses the name (the hub's characters); an account of
    that name made by any other path (here the ORM, as createsuperuser or a shell would) owns nothing of it."""
    ModelEntry.objects.create(hub_id="microsoft/phi-mini", namespace="microsoft")
    adversary, before = Client(), snapshot()
    signup = adversary.post(reverse("signup"), {"username": name, "email": "mallory@evil.example",
                                                "password1": PASS, "password2": PASS})
    assert signup.status_code == 200 and "cannot be a user name" in signup.content.decode()
    assert snapshot() == before and not mail.outbox
    adversary.force_login(User.objects.create_user(name, "mallory@evil.example", PASS))
    refused = upload(adversary, "microsoft/phi-evil")
    assert refused.status_code == 403 and refused.json()["code"] == "NOT_NAMESPACE_OWNER"
    assert not ModelEntry.objects.filter(hub_id__iexact="microsoft/phi-evil").exists()
    assert not submission_selectors.namespace_owners("microsoft").exists()
