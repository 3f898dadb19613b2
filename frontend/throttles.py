"""Throttles of the account pages (ARCHITECTURE §9): sign-up, password reset and sign-up confirmation, each per address
(the e-mail address typed, or the account a link names) and per client. They are DRF's cache-based SimpleRateThrottle
(the API's throttles, one counter per key in the shared cache); failed sign-ins are django-axes' (settings AXES_*),
which counts clients by the same address, `client_ip`, and the budgets of failures per user name and per client that
slow a distributed guess down (frontend/sign_in_throttle.py) are counters of this module."""
import hashlib
import math

from django.conf import settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle


def client_ip(request) -> str | None:
    """The client's address as DRF's throttles see it: REMOTE_ADDR, or behind REST_FRAMEWORK["NUM_PROXIES"] trusted
    proxies (TRUSTED_PROXIES) the address the nearest one put in X-Forwarded-For. axes uses it too
    (AXES_CLIENT_IP_CALLABLE), so a failed sign-in and a sign-up count the same client."""
    return BaseThrottle().get_ident(request)


class Throttle(SimpleRateThrottle):
    """One counter: a scope (the page and what it counts by) and a key, kept hashed (no address in the cache)."""

    def __init__(self, scope, rate, ident):
        self.scope, self.rate, self.ident = scope, rate, ident
        super().__init__()

    def get_cache_key(self, request, view):
        digest = hashlib.sha256(self.ident.strip().lower().encode()).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": digest}

    def _recent(self):
        self.key, self.now = self.get_cache_key(None, None), self.timer()
        self.history = self.cache.get(self.key, [])
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()

    def spent_wait(self) -> int | None:
        """As a budget of events counted by `count` (sign-in failures): the seconds until it has room again when it is
        spent, else None. Looking counts nothing."""
        self._recent()
        return max(1, math.ceil(self.wait() or 0)) if len(self.history) >= self.num_requests else None

    def count(self):
        self._recent()
        self.throttle_success()


def wait_seconds(request, page: str, *, address: str) -> int | None:
    """Counts this request against the page's two throttles; the seconds to wait when either refuses it, else None.
    `page`: "signup", "reset" or "confirm"; rates: ACCOUNT_THROTTLE_PER_ADDRESS and ACCOUNT_THROTTLE_PER_CLIENT."""
    throttles = [Throttle(f"account-{page}-address", settings.ACCOUNT_THROTTLE_PER_ADDRESS, address),
                 Throttle(f"account-{page}-client", settings.ACCOUNT_THROTTLE_PER_CLIENT, client_ip(request) or "")]
    refused = [throttle for throttle in throttles if not throttle.allow_request(request, None)]
    if not refused:
        return None
    return max(1, math.ceil(max(throttle.wait() or 0 for throttle in refused)))
