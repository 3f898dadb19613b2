"""API tokens are secrets (issue 22, finding 2): knox keeps only their digests, their owner sees a token once, and the
tokens made under DRF's plain-key table keep working after the migration that removes that table."""
import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken

from leaderboard.core import api_tokens

pytestmark = pytest.mark.django_db

LEGACY_KEY = "4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b"  # the shape of a DRF key: 40 hex characters


@pytest.fixture
def bob():
    return User.objects.create_user("bob", "bob@example.com", "pw")


def authorised(token) -> int:
    return Client().get(reverse("api-submissions"), HTTP_AUTHORIZATION=f"Token {token}").status_code


def test_it_works(bob):
    token = api_tokens.token_create(user=bob)
    assert authorised(token) == 200
    assert authorised(token[:-1] + ("0" if token[-1] != "0" else "1")) in (401, 403)


def test_the_database_holds_no_token(bob):
    token = api_tokens.token_create(user=bob)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {AuthToken._meta.db_table}")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert token not in stored
    # knox keeps the first 15 characters to find the row; the other 49 (196 bits) are only in the digest.
    assert token[15:] not in stored and len(token) == 64


def test_it_handles_expired_tokens(bob):
    token = api_tokens.token_create(user=bob)
    AuthToken.objects.filter(user=bob).update(expiry=timezone.now() - timedelta(seconds=1))
    assert authorised(token) in (401, 403)
    assert api_tokens.token_list(user=bob) == []


def test_it_limits_tokens_per_account(bob, settings):
    settings.API_TOKENS_PER_USER = 2
    api_tokens.token_create(user=bob)
    api_tokens.token_create(user=bob)
    with pytest.raises(api_tokens.TooManyTokens) as refused:
        api_tokens.token_create(user=bob)
    assert refused.value.code == "TOO_MANY_TOKENS"
    assert AuthToken.objects.filter(user=bob).count() == 2


def test_the_page_shows_a_token_once_and_revokes(bob, client):
    page = reverse("api-tokens")
    assert "API tokens let your scripts" in client.get(page).content.decode()  # signed out: why it needs an account
    client.force_login(bob)
    made = client.post(page, {"action": "create"})
    assert made.status_code == 200 and made["Cache-Control"].startswith("max-age=0")
    token = next(word for word in made.content.decode().replace("<", " ").replace(">", " ").split()
                 if len(word) == 64 and all(ch in "0123456789abcdef" for ch in word))
    assert authorised(token) == 200
    again = client.get(page).content.decode()
    assert token not in again and token[:15] not in again and "Revoke all (1)" in again
    assert "1 token revoked" in client.post(page, {"action": "revoke-all"}).content.decode()
    assert authorised(token) in (401, 403)


def test_the_page_refuses_past_the_limit(bob, client, settings):
    settings.API_TOKENS_PER_USER = 1
    client.force_login(bob)
    client.post(reverse("api-tokens"), {"action": "create"})
    refused = client.post(reverse("api-tokens"), {"action": "create"})
    assert refused.status_code == 400 and "Revoke one you no longer use" in refused.content.decode()
    assert AuthToken.objects.filter(user=bob).count() == 1


def test_legacy_plain_keys_become_digests_and_keep_working(bob):
    """A database from before knox: DRF's table with a plain key. The migration stores the key's digest, drops the
    table (so reading the database gives no token) and the script using the key goes on working."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamptz NOT NULL, "
                       "user_id integer NOT NULL UNIQUE)")
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, now() - interval '3 days', %s)", [LEGACY_KEY, bob.pk])
    assert authorised(LEGACY_KEY) in (401, 403)  # knox does not know it yet
    migration = importlib.import_module("leaderboard.core.migrations.0002_api_tokens_as_digests")
    with connection.schema_editor() as schema_editor:
        migration.tokens_to_digests(apps, schema_editor)
    assert "authtoken_token" not in connection.introspection.table_names()
    assert authorised(LEGACY_KEY) == 200
    token = AuthToken.objects.get(user=bob)
    assert LEGACY_KEY not in token.digest and token.expiry > timezone.now() + timedelta(days=80)
    assert token.created < timezone.now() - timedelta(days=2)
