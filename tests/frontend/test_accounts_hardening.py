"""Accounts against an adversary (issue 22, findings 3 and 5; ARCHITECTURE §9).

3. User names are unique case-insensitively (a user name owns the namespace of that name): sign-up, the admin's forms
   and a unique index on lower(username), whose migration stops on existing case duplicates.
5. OWASP ASVS anti-automation and enumeration: sign-up and reset answer the same whether or not an address has an
   account; an unconfirmed account never blocks its address's owner and expires; sign-in (django-axes), sign-up,
   reset and confirmation are throttled per address and per client, with a 429 that says when to retry."""
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from frontend import accounts
from leaderboard.submissions.models import Submission
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
PASS = "a long pass phrase"


def sign_up(client, username, email, **extra):
    return client.post(reverse("signup"), {"username": username, "email": email, "password1": PASS,
                                           "password2": PASS}, **extra)


def link_in(message) -> str:
    return re.search(r"https?://\S+/(?:signup/confirm|reset)/\S+", message.body).group(0)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


# --- finding 3: user names are unique case-insensitively ---------------------------------------------------------

def test_sign_up_refuses_a_case_variant_of_a_user_name(client, snapshot):
    User.objects.create_user("alice", "alice@example.com", "pw")
    before = snapshot()
    for variant in ("ALICE", "Alice", "alicE"):
        response = sign_up(client, variant, f"{variant}@elsewhere.example")
        assert response.status_code == 200 and "A user with that username already exists" in text(response)
    assert snapshot() == before and not mail.outbox


def test_the_database_refuses_a_case_variant_whatever_the_path(db):
    User.objects.create_user("alice", "alice@example.com", "pw")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("ALICE", "mallory@example.com", "pw")


def test_the_admin_refuses_case_variants_when_adding_or_renaming(client, root):
    User.objects.create_user("alice", "alice@example.com", "pw")
    bob = User.objects.create_user("bob", "bob@example.com", "pw")
    response = client.post(reverse("admin:auth_user_add"), {
        "username": "Alice", "usable_password": "true", "password1": PASS, "password2": PASS})
    assert response.status_code == 200 and "A user with that username already exists" in text(response)
    change = client.get(reverse("admin:auth_user_change", args=[bob.pk]))
    assert change.status_code == 200
    response = client.post(reverse("admin:auth_user_change", args=[bob.pk]), {
        "username": "ALICE", "email": bob.email, "is_active": "on", "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00", "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00"})
    assert response.status_code == 200 and "A user with that username already exists" in text(response)
    assert list(User.objects.filter(username__iexact="alice").values_list("username", flat=True)) == ["alice"]
    bob.refresh_from_db()
    assert bob.username == "bob"


def test_the_migration_stops_on_case_duplicates_and_says_how_to_resolve_them(db):
    from importlib import import_module

    from django.apps import apps

    from leaderboard.submissions.models import AccountName

    migration = import_module("leaderboard.submissions.migrations.0009_account_names")
    # The world before the migration (rolled back with the test): users saved without their canonical names.
    User.objects.bulk_create([User(username=name) for name in ("alice", "ALICE", "ａｌｉｃｅ", "strasse", "STRAßE", "bob")])

    class Editor:
        connection = connection

    with pytest.raises(RuntimeError) as refused:
        migration.fill_account_names(apps, Editor())
    message = str(refused.value)
    assert all(f"{name!r} (id " in message for name in ("alice", "ALICE", "ａｌｉｃｅ", "strasse", "STRAßE"))
    assert "'bob'" not in message and message.count(" = ") == 3  # two groups: three alices, two strasses
    assert "rename" in message and "merge" in message and "migrate again" in message
    assert not AccountName.objects.exists()  # nothing was changed


# --- finding 5a: no enumeration --------------------------------------------------------------------------------

def _page(response, email):
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text(response)).replace(email, "<email>")


def test_sign_up_answers_the_same_whether_or_not_the_address_has_an_account(client):
    User.objects.create_user("bob", "bob@example.com", "pw")
    known = sign_up(client, "bob2", "BOB@example.com")
    fresh = sign_up(client, "dora", "dora@example.com")
    assert known.status_code == fresh.status_code == 200
    assert _page(known, "BOB@example.com") == _page(fresh, "dora@example.com")
    notice, confirmation = mail.outbox
    assert notice.to == ["bob@example.com"] and "Sign in as bob" in notice.body and "/reset" not in notice.body
    assert reverse("password_reset") in notice.body and "/signup/confirm/" not in notice.body
    assert confirmation.to == ["dora@example.com"] and "/signup/confirm/" in confirmation.body
    assert not User.objects.get(username="bob2").is_active  # held like any sign-up, never confirmable; it expires


def test_password_reset_answers_the_same_whether_or_not_the_address_has_an_account(client):
    User.objects.create_user("carol", "carol@example.com", "pw")
    known = client.post(reverse("password_reset"), {"email": "carol@example.com"})
    unknown = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"]) == (
        302, reverse("password_reset_done"))
    assert [m.to for m in mail.outbox] == [["carol@example.com"]]


# --- finding 5b: an unconfirmed account never locks out its address's owner ------------------------------------

def test_a_reset_reaches_an_address_whose_only_account_is_unconfirmed_and_confirms_it(client):
    sign_up(client, "squatter", "carol@example.com")  # someone else signs up with carol's address
    mail.outbox.clear()
    client.post(reverse("password_reset"), {"email": "carol@example.com"})
    (message,) = mail.outbox
    assert message.to == ["carol@example.com"] and "confirms this address" in message.body
    response = client.get(link_in(message), follow=True)
    client.post(response.redirect_chain[-1][0], {"new_password1": "carol's own phrase",
                                                 "new_password2": "carol's own phrase"})
    assert User.objects.get(email="carol@example.com").is_active
    assert client.post(reverse("login"), {"username": "squatter", "password": "carol's own phrase"}).status_code == 302


def test_a_new_sign_up_replaces_the_unconfirmed_account_of_its_address(client):
    sign_up(client, "squatter", "carol@example.com")
    sign_up(client, "squatter", "carol@example.com")  # the same name again, after a lost e-mail: it replaces it
    response = sign_up(client, "carol", "Carol@example.com")
    assert response.status_code == 200 and "Check your e-mail" in text(response)
    assert list(User.objects.values_list("username", flat=True)) == ["carol"]
    assert "Account confirmed" in text(client.get(link_in(mail.outbox[-1])))
    assert User.objects.get(username="carol").is_active
    assert client.get(link_in(mail.outbox[0])).status_code == 400  # the replaced account's link is dead


def test_unconfirmed_accounts_expire_and_free_their_name_and_address(client, settings, monkeypatch):
    from frontend.tasks import expire_unconfirmed
    from leaderboard.celery import app

    sign_up(client, "squatter", "carol@example.com")
    link = link_in(mail.outbox[0])
    banned = User.objects.create_user("banned", "banned@example.com", "pw", is_active=False)
    User.objects.filter(pk=banned.pk).update(last_login=timezone.now() - timedelta(days=30))  # an admin's deactivation
    later = timezone.now() + timedelta(days=settings.SIGNUP_CONFIRM_DAYS, minutes=1)
    monkeypatch.setattr(accounts.confirmation_tokens, "_now", lambda: later.replace(tzinfo=None))
    assert client.get(link).status_code == 400  # the link lives as long as the account
    User.objects.filter(username="squatter").update(date_joined=timezone.now() - timedelta(
        days=settings.SIGNUP_CONFIRM_DAYS, minutes=1))
    assert not accounts.username_taken("Squatter")  # expired: holds nothing, even before beat runs
    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "accounts.expire_unconfirmed" in schedule and "accounts.expire_unconfirmed" in app.tasks
    assert expire_unconfirmed() == 1
    assert list(User.objects.values_list("username", flat=True)) == ["banned"]
    mail.outbox.clear()
    assert "Check your e-mail" in text(sign_up(client, "squatter", "someone@example.com"))
    assert mail.outbox[0].to == ["someone@example.com"]


def test_expiry_never_removes_an_account_an_admin_made_or_one_with_submissions(db, settings):
    long_ago = timezone.now() - timedelta(days=settings.SIGNUP_CONFIRM_DAYS + 10)
    staff = User.objects.create_user("staffer", "s@example.com", "pw", is_active=False, is_staff=True)
    author = User.objects.create_user("author", "a@example.com", "pw", is_active=False)
    from leaderboard.submissions.models import ModelEntry

    Submission.objects.create(submitter=author, model=ModelEntry.objects.create(hub_id="author/m", namespace="author"),
                              revision_sha="a" * 40, benchmarks=["mobile-mmlu"])
    User.objects.update(date_joined=long_ago)
    assert accounts.unconfirmed_expire() == 0
    assert set(User.objects.values_list("pk", flat=True)) == {staff.pk, author.pk}


# --- finding 5c: throttles ---------------------------------------------------------------------------------------

@pytest.fixture
def axes_on(settings):
    settings.AXES_ENABLED = True  # off in the test settings (Django's Client.login sends no request)
    return settings


def _sign_in(client, username, password, url=None, **extra):
    return client.post(url or reverse("login"), {"username": username, "password": password,
                                                 "csrfmiddlewaretoken": "csrf-secret-value"}, **extra)


def test_sign_in_locks_out_after_repeated_failures_even_the_right_password(client, axes_on):
    from axes.models import AccessAttempt

    User.objects.create_user("erin", "erin@example.com", "right pass phrase")
    answers = [_sign_in(client, "erin", f"guess {i}").status_code for i in range(25)]
    limit = axes_on.AXES_FAILURE_LIMIT
    assert answers == [200] * (limit - 1) + [429] * (25 - limit + 1)
    locked = _sign_in(client, "erin", "right pass phrase")
    assert locked.status_code == 429 and not signed_in(client)
    assert "Too many failed sign-ins" in text(locked) and "Try again in 15 minutes" in text(locked)
    assert locked["Retry-After"] == "900"
    AccessAttempt.objects.update(attempt_time=timezone.now() - axes_on.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert _sign_in(client, "erin", "right pass phrase").status_code == 302 and signed_in(client)


def test_the_admin_sign_in_is_locked_out_too_and_axes_admin_shows_no_secret(client, axes_on):
    from axes.models import AccessAttempt

    User.objects.create_superuser("root", "root@example.com", "root pass phrase")
    for i in range(axes_on.AXES_FAILURE_LIMIT):
        response = _sign_in(client, "root", f"secret-guess-{i}", url=reverse("admin:login"))
    assert response.status_code == 429 and "Too many failed sign-ins" in text(response)
    assert _sign_in(client, "root", "root pass phrase", url=reverse("admin:login")).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - axes_on.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert _sign_in(client, "root", "root pass phrase", url=reverse("admin:login")).status_code == 302
    _sign_in(client, "root", "secret-guess-again")  # a failure axes keeps, with its form data
    attempt = AccessAttempt.objects.get()
    pages = [client.get(reverse("admin:axes_accessattempt_changelist")),
             client.get(reverse("admin:axes_accessattempt_change", args=[attempt.pk]))]
    assert all(page.status_code == 200 for page in pages)
    shown = "".join(text(page) for page in pages)
    assert "secret-guess" not in shown and "csrf-secret-value" not in shown and "root pass phrase" not in shown


def _reset(client, email, **extra):
    return client.post(reverse("password_reset"), {"email": email}, **extra)


def test_password_reset_is_throttled_per_address_and_sends_nothing_when_refused(client, settings):
    User.objects.create_user("carol", "carol@example.com", "pw")
    answers = [_reset(client, "carol@example.com", REMOTE_ADDR=f"10.0.0.{i}").status_code for i in range(5)]
    assert answers == [302, 302, 302, 429, 429] and len(mail.outbox) == 3
    refused = _reset(client, "CAROL@example.com ")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 3000
    assert "Too many password reset requests" in text(refused) and "Try again in" in text(refused)
    assert _reset(client, "nobody@example.com").status_code == 302  # the same answer for an unknown address


def test_sign_up_and_reset_are_throttled_per_client(client, settings):
    settings.ACCOUNT_THROTTLE_PER_CLIENT = "3/hour"
    answers = [sign_up(client, f"user{i}", f"user{i}@example.com").status_code for i in range(4)]
    assert answers == [200, 200, 200, 429] and len(mail.outbox) == 3
    assert sign_up(client, "other", "other@example.com", REMOTE_ADDR="10.0.0.9").status_code == 200
    answers = [_reset(client, f"user{i}@example.com").status_code for i in range(4)]
    assert answers == [302, 302, 302, 429]


def test_sign_up_is_throttled_per_address(client):
    answers = [sign_up(client, f"name{i}", "dora@example.com", REMOTE_ADDR=f"10.0.0.{i}").status_code
               for i in range(4)]
    assert answers == [200, 200, 200, 429] and len(mail.outbox) == 3


def test_confirmation_is_throttled_per_account_and_per_client(client, settings):
    sign_up(client, "dora", "dora@example.com")
    good = link_in(mail.outbox[0])
    forged = good.rsplit("/", 2)[0] + "/abc-123/"
    answers = [client.get(forged, REMOTE_ADDR=f"10.0.0.{i}").status_code for i in range(4)]
    assert answers == [400, 400, 400, 429]
    settings.ACCOUNT_THROTTLE_PER_CLIENT = "2/hour"
    answers = [client.get(reverse("signup-confirm", kwargs={"uidb64": f"x{i}", "token": "1-2"}),
                          REMOTE_ADDR="10.0.5.5").status_code for i in range(3)]
    assert answers == [400, 400, 429]


def test_clients_are_told_apart_by_the_trusted_proxy_only(client, settings):
    settings.ACCOUNT_THROTTLE_PER_CLIENT = "2/hour"
    spoofed = [_reset(client, f"x{i}@example.com", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}").status_code for i in range(3)]
    assert spoofed == [302, 302, 429]  # no trusted proxy: a forged X-Forwarded-For is not a new client
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxied = [_reset(client, f"y{i}@example.com", REMOTE_ADDR="10.1.1.1",
                      HTTP_X_FORWARDED_FOR=f"203.0.113.{i // 2}").status_code for i in range(5)]
    assert proxied == [302, 302, 302, 302, 302]  # behind one proxy: each visitor it names counts on its own
