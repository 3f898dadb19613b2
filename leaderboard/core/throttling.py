"""Per-account throttles of writes (ARCHITECTURE §9: quotas are counted in the database; these are the second layer):
POSTs of a view counted per user in the shared cache, at a rate read from the settings at each request (DRF's
THROTTLE_RATES is read once, at import), refused with a 429 in the shape of the other refusals (code THROTTLED,
detail, hint) and Retry-After. A page that takes the same writes counts on the same counter (``post_wait``)."""
import math
from types import SimpleNamespace

from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import ScopedRateThrottle


class PostThrottle(ScopedRateThrottle):
    """The view's `throttle_scope`, at the rate of the setting its `throttle_rate_setting` names; reads are free."""

    def allow_request(self, request, view):
        if request.method != "POST":
            return True
        self.rate_setting = view.throttle_rate_setting
        return super().allow_request(request, view)

    def get_rate(self):
        return getattr(settings, self.rate_setting)


class Throttled(exceptions.Throttled):
    def __init__(self, wait, *, what: str, rate_setting: str):
        super().__init__(wait)
        self.detail = {"code": "THROTTLED", "detail": f"too many requests to the {what} API; try again in "
                                                      f"{self.wait or 1} seconds",
                       "hint": f"each user may send {getattr(settings, rate_setting)} {what}, accepted or refused"}


class PostThrottling:
    """A mixin of API views: `throttle_scope` (the counter), `throttle_rate_setting` (the setting's name) and
    `throttle_what` (what the requests are, in the 429's words)."""

    throttle_scope = ""
    throttle_rate_setting = ""
    throttle_what = ""

    def get_throttles(self):
        return [*super().get_throttles(), PostThrottle()]

    def throttled(self, request, wait):
        raise Throttled(wait, what=self.throttle_what, rate_setting=self.throttle_rate_setting)


def post_wait(request, *, scope: str, rate_setting: str) -> int | None:
    """Counts a page's POST on the API's counter of `scope`; the seconds to wait when it is refused, else None."""
    throttle = PostThrottle()
    if throttle.allow_request(request, SimpleNamespace(throttle_scope=scope, throttle_rate_setting=rate_setting)):
        return None
    return max(1, math.ceil(throttle.wait() or 0))
