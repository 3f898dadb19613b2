"""A new password revokes the account's API tokens (issue 38, finding 6): after a password reset the old sessions were
signed out but the old knox token still answered 200, and could still submit and upload. Whichever way the password
changes (the reset link, the change page, the admin's forms), every token of the account stops working, and the page
that follows says so."""
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from knox.models import AuthToken

from leaderboard.core import api_tokens
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
OLD, NEW = "the old pass phrase", "a brand new pass phrase"
REVOKED = "API tokens were revoked"


@pytest.fixture
def carol():
    return User.objects.create_user("carol", "carol@example.com", OLD)


def answer(token) -> int:
    return Client().get(reverse("api-submissions"), HTTP_AUTHORIZATION=f"Token {token}").status_code


def by_reset(client, user):
    client.post(reverse("password_reset"), {"email": user.email})
    (message,) = mail.outbox
    link = re.search(r"https?://\S+/reset/\S+", message.body).group(0)
    form = client.get(link, follow=True).redirect_chain[-1][0]
    return client.post(form, {"new_password1": NEW, "new_password2": NEW}, follow=True)


def by_change(client, user):
    client.force_login(user)
    return client.post(reverse("password_change"), {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
                       follow=True)


def by_admin(client, user):
    admin = User.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    return client.post(reverse("admin:auth_user_password_change", args=[user.pk]),
                       {"password1": NEW, "password2": NEW, "usable_password": "true"}, follow=True)


def by_admin_own(client, user):
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    client.force_login(user)
    return client.post(reverse("admin:password_change"),
                       {"old_password": OLD, "new_password1": NEW, "new_password2": NEW}, follow=True)


def test_a_password_reset_revokes_the_api_tokens_and_says_so(client, carol):
    token = api_tokens.token_create(user=carol)
    assert answer(token) == 200
    page = by_reset(client, carol)
    assert page.status_code == 200 and REVOKED in text(page)
    assert answer(token) in (401, 403) and not AuthToken.objects.filter(user=carol).exists()
    assert client.login(username="carol", password=NEW)


@pytest.mark.parametrize("change", [by_reset, by_change, by_admin, by_admin_own])
def test_every_way_of_setting_a_password_revokes_the_tokens(client, carol, change):
    tokens = [api_tokens.token_create(user=carol) for _ in range(2)]
    bystander = User.objects.create_user("dave", "dave@example.com", OLD)
    kept = api_tokens.token_create(user=bystander)
    page = change(client, carol)
    assert page.status_code == 200
    carol.refresh_from_db()
    assert carol.check_password(NEW), f"{change.__name__} did not set the password"
    assert [answer(t) for t in tokens] in ([401, 401], [403, 403])
    assert answer(kept) == 200  # another account's token is untouched
    if change in (by_reset, by_change):
        assert REVOKED in text(page)


def test_signing_in_keeps_the_tokens(client, carol):
    """Django re-hashes a password on sign-in when its hasher's settings change: that is no new password."""
    token = api_tokens.token_create(user=carol)
    assert client.post(reverse("login"), {"username": "carol", "password": OLD}).status_code == 302
    carol.set_password(OLD)
    carol._password = None  # what check_password's re-hash does before saving
    carol.save(update_fields=["password"])
    assert answer(token) == 200
