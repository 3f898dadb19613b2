"""Sign-in throttling locks out the guesser, not the account's owner (issue 31, finding 6; frontend/sign_in_throttle.py).

Failures lock a (user name, client) pair; a user name, and a client, as a whole are only slowed, and never for a
browser or an address that has signed in as that name before. The site's sign-in and the admin's alike."""
import time

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from frontend.sign_in_throttle import KNOWN_COOKIE
from frontend.throttles import Throttle
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
PASS = "alice's own pass phrase"
PAGES = {"site": "login", "admin": "admin:login"}


@pytest.fixture
def axes_on(settings):
    settings.AXES_ENABLED = True  # off in the test settings (Django's Client.login sends no request)
    return settings


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", "alice@example.com", PASS, is_staff=True)  # staff: the admin's sign-in too


def sign_in(client, username, password, address, page="site"):
    return client.post(reverse(PAGES[page]), {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.wsgi_request.session


def guess_from_many_addresses(name, count):
    """The status of each guess, a new client and address each time."""
    return [sign_in(Client(), name, f"guess {i}", f"10.9.{i // 250}.{i % 250 + 1}").status_code for i in range(count)]


@pytest.mark.parametrize("page", PAGES)
def test_failures_from_many_addresses_never_lock_the_owner_out(axes_on, alice, page):
    """The issue's example: 10 wrong passwords for alice from 10 addresses, then hers from another address."""
    assert guess_from_many_addresses("alice", axes_on.AXES_FAILURE_LIMIT) == [200] * axes_on.AXES_FAILURE_LIMIT
    assert signed_in(sign_in(Client(), "alice", PASS, "198.51.100.7", page))


@pytest.mark.parametrize("page", PAGES)
def test_a_large_guess_slows_unknown_clients_for_seconds_but_never_the_owners(axes_on, alice, monkeypatch, page):
    own_browser = Client()
    assert signed_in(sign_in(own_browser, "alice", PASS, "198.51.100.7", page))  # her phone, at home
    assert own_browser.cookies[KNOWN_COOKIE].value
    own_browser.post(reverse("logout"))
    # The name's budget (LOGIN_SLOWDOWN_PER_NAME, 20 failures a minute) is spent; then guesses are refused unchecked.
    assert guess_from_many_addresses("alice", 40) == [200] * 20 + [429] * 20

    stranger = sign_in(Client(), "alice", PASS, "192.0.2.50", page)  # a client that never signed in as alice
    wait = int(stranger["Retry-After"])
    assert stranger.status_code == 429 and 1 <= wait <= 60
    assert f"Try again in {wait} second" in text(stranger) and "from many places at once" in text(stranger)
    assert not AccessAttempt.objects.filter(ip_address="192.0.2.50").exists()  # a refused attempt is no failure

    assert signed_in(sign_in(Client(), "alice", PASS, "198.51.100.7", page))  # her address, another browser
    assert signed_in(sign_in(own_browser, "alice", PASS, "100.64.0.9", page))  # her browser, on another network

    later = time.time() + 61  # the minute's failures have expired: slowed, never locked
    monkeypatch.setattr(Throttle, "timer", staticmethod(lambda: later))
    assert signed_in(sign_in(Client(), "alice", PASS, "192.0.2.50", page))


def test_a_forged_known_browser_cookie_is_a_stranger(axes_on, alice):
    guess_from_many_addresses("alice", 40)
    forged = Client()
    forged.cookies[KNOWN_COOKIE] = "0123456789abcdef0123"
    assert sign_in(forged, "alice", PASS, "192.0.2.51").status_code == 429


def test_a_shared_address_locks_out_only_the_name_it_guessed(axes_on):
    """A campus NAT: 10 failures for bob lock bob from that address, not carol (nor bob elsewhere)."""
    User.objects.create_user("bob", "bob@example.com", "bob's pass phrase")
    User.objects.create_user("carol", "carol@example.com", "carol's pass phrase")
    for i in range(axes_on.AXES_FAILURE_LIMIT):
        sign_in(Client(), "bob", f"guess {i}", "203.0.113.5")
    assert sign_in(Client(), "bob", "bob's pass phrase", "203.0.113.5").status_code == 429
    assert sign_in(Client(), "carol", "a typo", "203.0.113.5").status_code == 200  # her own failures count on
    assert signed_in(sign_in(Client(), "carol", "carol's pass phrase", "203.0.113.5"))
    assert signed_in(sign_in(Client(), "bob", "bob's pass phrase", "198.51.100.20"))


def test_a_client_guessing_many_names_is_slowed_but_not_its_known_users(axes_on):
    User.objects.create_user("carol", "carol@example.com", "carol's pass phrase")
    carols_browser = Client()
    assert signed_in(sign_in(carols_browser, "carol", "carol's pass phrase", "203.0.113.9"))
    for i in range(30):  # one address, one failure each for 30 names: LOGIN_SLOWDOWN_PER_CLIENT
        sign_in(Client(), f"name{i}", "guess", "203.0.113.9")
    assert sign_in(Client(), "name99", "guess", "203.0.113.9").status_code == 429
    assert signed_in(sign_in(carols_browser, "carol", "carol's pass phrase", "203.0.113.9"))


def test_a_locked_pair_stays_locked_and_refused_attempts_extend_nothing(axes_on, alice):
    for i in range(axes_on.AXES_FAILURE_LIMIT):
        sign_in(Client(), "alice", f"guess {i}", "192.0.2.7")
    attempt = AccessAttempt.objects.get(ip_address="192.0.2.7")
    for _ in range(5):
        assert sign_in(Client(), "alice", PASS, "192.0.2.7").status_code == 429
    assert AccessAttempt.objects.get(pk=attempt.pk).attempt_time == attempt.attempt_time
    assert AccessAttempt.objects.get(pk=attempt.pk).failures_since_start == axes_on.AXES_FAILURE_LIMIT


def test_spellings_of_a_name_count_as_one(axes_on, alice):
    for i, spelling in enumerate(["Alice", "ALICE", "\uff41\uff4c\uff49\uff43\uff45", "alice"] * 3):
        if i < axes_on.AXES_FAILURE_LIMIT:
            sign_in(Client(), spelling, "guess", "192.0.2.8")
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"alice"}
    assert sign_in(Client(), "alice", PASS, "192.0.2.8").status_code == 429
