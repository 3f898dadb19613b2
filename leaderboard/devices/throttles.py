"""Device report uploads are throttled per account (core/throttling.py's PostThrottle, DEVICE_REPORT_THROTTLE_RATE)
and per client address (DEVICE_REPORT_CLIENT_THROTTLE_RATE): sock-puppet accounts behind one address share one
counter. The address is DRF's ``get_ident`` (REMOTE_ADDR, or X-Forwarded-For behind NUM_PROXIES trusted proxies), the
one the account pages' throttles and django-axes use (frontend/throttles.py client_ip). The API and the upload page
count on the same counters."""
import math

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

from leaderboard.core.throttling import Throttled

SCOPE, CLIENT_SCOPE = "device-reports", "device-reports-client"
RATE_SETTING, CLIENT_RATE_SETTING = "DEVICE_REPORT_THROTTLE_RATE", "DEVICE_REPORT_CLIENT_THROTTLE_RATE"


class ClientPostThrottle(SimpleRateThrottle):
    """POSTs of device reports counted per client address, whoever is signed in; reads are free."""

    scope = CLIENT_SCOPE

    def get_rate(self):
        return getattr(settings, CLIENT_RATE_SETTING)

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view):
        return request.method != "POST" or super().allow_request(request, view)


def client_wait(request) -> int | None:
    """Counts a page's POST on the client's counter; the seconds to wait when it is refused, else None."""
    throttle = ClientPostThrottle()
    if throttle.allow_request(request, None):
        return None
    return max(1, math.ceil(throttle.wait() or 0))


def throttled(wait) -> Throttled:
    """The 429 of either counter, naming both rates."""
    refusal = Throttled(wait, what="device reports", rate_setting=RATE_SETTING)
    refusal.detail["hint"] = (f"each account may send {getattr(settings, RATE_SETTING)} device reports and each client "
                              f"address {getattr(settings, CLIENT_RATE_SETTING)}, accepted or refused")
    return refusal
