"""Sending the confirmation link again (issue 26): an unconfirmed account gets a new link that works; the page answers
the same whether or not the address has such an account, and it is throttled like sign-up."""
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.urls import reverse

from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
PASS = "a long pass phrase"


def resend(client, email):
    return client.post(reverse("signup-resend"), {"email": email})


def test_it_works(client):
    client.post(reverse("signup"), {"username": "nora", "email": "nora@example.com", "password1": PASS,
                                    "password2": PASS})
    mail.outbox.clear()
    answer = resend(client, "NORA@example.com")
    assert answer.status_code == 200 and "we sent it a new link" in text(answer)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["nora@example.com"]
    link = re.search(r"https?://\S+/signup/confirm/\S+", mail.outbox[0].body).group(0)
    assert client.get(link).status_code == 200
    assert User.objects.get(username="nora").is_active


def test_it_answers_the_same_whatever_the_address(client):
    User.objects.create_user("olga", "olga@example.com", "pw")  # active: nothing to confirm
    answers = {text(resend(client, address)).replace(address, "<address>")
               for address in ("olga@example.com", "nobody@example.com")}
    assert len(answers) == 1 and not mail.outbox


def test_it_is_throttled_per_address(client, settings):
    settings.ACCOUNT_THROTTLE_PER_ADDRESS = "2/hour"
    client.post(reverse("signup"), {"username": "pia", "email": "pia@example.com", "password1": PASS,
                                    "password2": PASS})
    mail.outbox.clear()
    assert [resend(client, "pia@example.com").status_code for _ in range(3)] == [200, 200, 429]
    assert len(mail.outbox) == 2


def test_the_sent_page_offers_it(client):
    sent = client.post(reverse("signup"), {"username": "quin", "email": "quin@example.com", "password1": PASS,
                                           "password2": PASS})
    assert reverse("signup-resend") in sent.content.decode()
