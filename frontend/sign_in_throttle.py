"""Sign-in throttling that locks out the guesser, not the account's owner (ARCHITECTURE §9; docs/operations.md,
"Sign-in throttling"). django-axes, with this handler (AXES_HANDLER) and KnownBrowserMiddleware:

- A (user name, client) pair is locked for LOGIN_LOCKOUT_MINUTES after LOGIN_FAILURE_LIMIT failures
  (AXES_LOCKOUT_PARAMETERS): failures from elsewhere never lock the owner out of her own address, and one person's
  failures behind a shared address (a campus NAT) never lock out the others' names. The name is counted in its
  canonical form (submissions.identity), so 'Alice' and 'ＡＬＩＣＥ' are one name.
- A user name as a whole, and a client as a whole, have a budget of failures a minute (LOGIN_SLOWDOWN_PER_NAME,
  LOGIN_SLOWDOWN_PER_CLIENT), each above the pair's limit, so no single client can spend one: only a guess spread over
  many clients (or many names) does. Once spent, a client that never signed in as that name is asked to retry in
  seconds (429), until the oldest failure of the minute expires; attempts it refuses are not counted, so waiting is
  never extended. A known client is never slowed: a browser holding the signed cookie set when it signed in as that
  name, or an address the name signed in from (remembered KNOWN_DAYS, in the cache, hashed).
"""
import hashlib

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from django.conf import settings
from django.core.cache import cache

from leaderboard.submissions.identity import canonical_name

from .throttles import Throttle, client_ip

KNOWN_COOKIE = "signed_in_before"
KNOWN_SALT = "frontend.sign_in_throttle.known"
KNOWN_DAYS = 180
KNOWN_NAMES_KEPT = 10  # names a browser is known for, newest first
NAME_MAX = 150  # as stored by axes (a user name is at most 150 characters; its canonical form may be longer)


def username_of(request, credentials) -> str | None:
    """AXES_USERNAME_CALLABLE: the canonical form of the name typed (credentials, else the form's field)."""
    name = (credentials or {}).get("username")
    if name is None and request is not None:
        name = request.POST.get("username")
    return canonical_name(name)[:NAME_MAX] if name else None


def _token(name: str) -> str:
    return hashlib.sha256(f"known-sign-in:{name}".encode()).hexdigest()[:20]


def _known_tokens(request) -> list[str]:
    value = request.get_signed_cookie(KNOWN_COOKIE, default="", salt=KNOWN_SALT, max_age=KNOWN_DAYS * 86400)
    return [token for token in value.split(",") if token]


def _address_key(name: str, request) -> str:
    digest = hashlib.sha256(f"{name}\n{client_ip(request) or ''}".encode()).hexdigest()
    return f"sign-in-known-address:{digest}"


def known_client(request, name: str) -> bool:
    """Whether this browser, or this address, has signed in as `name` (canonical) before."""
    return _token(name) in _known_tokens(request) or bool(cache.get(_address_key(name, request)))


def _budgets(request, name: str) -> list[Throttle]:
    return [Throttle("sign-in-name", settings.LOGIN_SLOWDOWN_PER_NAME, name),
            Throttle("sign-in-client", settings.LOGIN_SLOWDOWN_PER_CLIENT, client_ip(request) or "")]


def slowdown_wait(request, name: str | None) -> int | None:
    """Seconds this client must wait before trying `name` again, or None: only an unknown client, only while the
    name's or the client's budget of failures is spent."""
    if not name or known_client(request, name):
        return None
    waits = [wait for budget in _budgets(request, name) if (wait := budget.spent_wait())]
    return max(waits, default=None)


class SignInHandler(AxesDatabaseHandler):
    """axes' database handler (the pair's lockout) plus the budgets of failures per name and per client."""

    def is_allowed(self, request, credentials=None) -> bool:
        if not super().is_allowed(request, credentials):
            return False
        wait = slowdown_wait(request, get_client_username(request, credentials))
        if wait is None:
            return True
        request.sign_in_wait = wait  # frontend.views.accounts.locked_out says how long
        return False

    def user_login_failed(self, sender, credentials, request=None, **kwargs):
        refused = getattr(request, "axes_locked_out", False)  # refused before any password was checked
        super().user_login_failed(sender, credentials, request, **kwargs)
        name = get_client_username(request, credentials) if request is not None else None
        if name and not refused:
            for budget in _budgets(request, name):
                budget.count()

    def user_logged_in(self, sender, request, user, **kwargs):
        super().user_logged_in(sender, request, user, **kwargs)
        name = username_of(request, {"username": user.get_username()})
        cache.set(_address_key(name, request), 1, KNOWN_DAYS * 86400)
        tokens = [_token(name)] + [t for t in _known_tokens(request) if t != _token(name)]
        request.sign_in_known = ",".join(tokens[:KNOWN_NAMES_KEPT])  # KnownBrowserMiddleware sets it


class KnownBrowserMiddleware:
    """Gives a browser that has just signed in the signed cookie that marks it as known for that name (the handler's
    user_logged_in, above, says which). Before axes' middleware in MIDDLEWARE, which stays as it is (axes checks)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        known = getattr(request, "sign_in_known", None)
        if known is not None:
            response.set_signed_cookie(KNOWN_COOKIE, known, salt=KNOWN_SALT, max_age=KNOWN_DAYS * 86400,
                                       secure=settings.SESSION_COOKIE_SECURE, httponly=True, samesite="Lax")
        return response
