"""Middleware: security headers on every answer, probes answered before host checks, request ids, request latency
metrics, NUL refusal, bounds on the number of query parameters, and one transaction per request.

Order in MIDDLEWARE: SecurityHeadersMiddleware, django-csp's CSPMiddleware, ProbeMiddleware, RequestIdMiddleware,
RequestMetricsMiddleware, NulByteMiddleware, QueryLimitsMiddleware, then Django's and the sign-in lockout's, and
AtomicRequestMiddleware last.
"""
import logging
import re
import time
import uuid
from collections import Counter
from urllib.parse import parse_qsl, unquote_plus

from django.conf import settings
from django.db import transaction
from django.http import HttpResponse, JsonResponse
from django.middleware.security import SecurityMiddleware

from . import views
from .logging import request_id_var
from .metrics import observe_request

REQUEST_ID_HEADER = "X-Request-ID"
SAFE_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
access_log = logging.getLogger("leaderboard.access")


class SecurityHeadersMiddleware:
    """SecurityMiddleware's response headers (nosniff, Referrer-Policy, Cross-Origin-Opener-Policy, HSTS over HTTPS)
    and the Permissions-Policy (settings.PERMISSIONS_POLICY) on every answer. First in MIDDLEWARE, so the answers made
    before SecurityMiddleware runs get them too: the probes, and the 400s of NUL bytes and too many parameters.
    SecurityMiddleware stays in its place for what it does to requests (the HTTPS redirect); its headers are only
    added where missing, so a second pass changes nothing."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.security = SecurityMiddleware(get_response)
        self.permissions_policy = ", ".join(f"{feature}=({' '.join(allowed)})"
                                            for feature, allowed in settings.PERMISSIONS_POLICY.items())

    def __call__(self, request):
        response = self.security.process_response(request, self.get_response(request))
        if self.permissions_policy:
            response.headers.setdefault("Permissions-Policy", self.permissions_policy)
        return response


class ProbeMiddleware:
    """/healthz, /readyz and /metrics, answered before ALLOWED_HOSTS and the HTTPS redirect.

    Orchestrators and Prometheus call a container by its address over plain HTTP; with
    production settings those requests would otherwise get a 400 (unknown Host) or a 301.
    The probes read nothing from the Host header, so skipping the check is safe.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.probes = {"/healthz": views.healthz, "/readyz": views.readyz, "/metrics": views.metrics}

    def __call__(self, request):
        probe = self.probes.get(request.path_info)
        if probe is not None and request.method in ("GET", "HEAD"):
            return probe(request)
        return self.get_response(request)


class RequestIdMiddleware:
    """Takes X-Request-ID from the client or proxy when it is a safe token, else makes one; every log
    line of the request carries it and the response returns it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = incoming if SAFE_REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex
        request.request_id = request_id
        token = request_id_var.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response[REQUEST_ID_HEADER] = request_id
        return response


class RequestMetricsMiddleware:
    """Observes each request's latency, labelled by the resolved URL name (not the raw path, which
    would make a series per model id); with ACCESS_LOG on, also logs one line per request (the
    path without its query string, which may carry tokens)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        route = _route_label(request)
        observe_request(route=route, method=request.method, status_code=response.status_code, seconds=seconds)
        if settings.ACCESS_LOG:
            access_log.info("%s %s %s %.1fms route=%s", request.method, request.path, response.status_code,
                            seconds * 1000, route)
        return response


def _route_label(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name or match.route or "unnamed"
    static_url = "/" + settings.STATIC_URL.lstrip("/")
    if request.path_info.startswith(static_url):
        return "static"
    return "unmatched"


NUL = "\x00"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class NulByteMiddleware:
    """A NUL character (``%00``) in the URL path or the query string (once decoded) is answered 400 here, naming
    where it is, before any view runs: PostgreSQL refuses NUL in text, so a lookup with it would be a 500.
    No hub id, slug or parameter of this site can contain it. Form fields are guarded by Django's and DRF's
    ``ProhibitNullCharactersValidator`` on every CharField; bodies are not read here (uploads stream)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = nul_problem(request)
        if problem is None:
            return self.get_response(request)
        detail = f"{problem}; remove it (no page, model id or parameter of this site contains a NUL character)"
        return bad_request(request, "NUL_CHARACTER", detail, "remove %00 from the URL")


def bad_request(request, code, detail, hint):
    """A 400 before any view: `{code, detail, hint}` under /api/, plain text on pages."""
    if request.path_info.startswith("/api/") or request.path.startswith("/api/"):
        return JsonResponse({"code": code, "detail": detail, "hint": hint}, status=400)
    return HttpResponse(f"Bad request: {detail}. {hint}.\n", status=400, content_type="text/plain; charset=utf-8")


def nul_problem(request) -> str | None:
    """Where a NUL character is in the request's path or query string (decoded), in words, or None."""
    if NUL in request.path or NUL in request.path_info:
        return "the URL path contains a NUL character (%00)"
    query = request.META.get("QUERY_STRING", "")
    if NUL not in unquote_plus(query, errors="replace"):
        return None  # "%2500" decodes to the text "%00", not to a NUL
    for name, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
        if NUL in name:
            return "a query parameter name contains a NUL character (%00)"
        if NUL in value:
            shown = name if name.isprintable() and len(name) <= 50 else "a parameter"
            return f"the query parameter {shown!r} contains a NUL character (%00)"
    return "the query string contains a NUL character (%00)"


MAX_QUERY_PARAMETERS = 200  # in one query string, names repeated or not
MAX_REPEATS = 100  # of one name (?topic=a&topic=b...): a benchmark has fewer topics


class QueryLimitsMiddleware:
    """A query string of more than MAX_QUERY_PARAMETERS parameters, or one name repeated more than MAX_REPEATS
    times, is answered 400 here, naming the problem, before anything parses it. Django refuses more than
    DATA_UPLOAD_MAX_NUMBER_FIELDS with an exception wherever request.GET is first read: an HTML 400 that names
    nothing, and with DEBUG on (the embedded default) a 500, as the debug page reads request.GET again."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problem = query_limits_problem(request.META.get("QUERY_STRING", ""))
        if problem is None:
            return self.get_response(request)
        return bad_request(request, "TOO_MANY_PARAMETERS", problem,
                           f"send at most {MAX_QUERY_PARAMETERS} parameters, each name at most {MAX_REPEATS} times; "
                           "a repeatable parameter also takes comma-separated values")


def query_limits_problem(query: str) -> str | None:
    """What is too many in `query` (a raw query string), in words, or None."""
    count = query.count("&") + 1 if query else 0  # as Django counts them: empty pieces too
    if count > MAX_QUERY_PARAMETERS:
        return f"the query string has {count} parameters; at most {MAX_QUERY_PARAMETERS} are accepted"
    names = Counter(name for name, _ in parse_qsl(query, keep_blank_values=True, errors="replace"))
    name, repeats = names.most_common(1)[0] if names else ("", 0)
    if repeats > MAX_REPEATS:
        shown = name if name.isprintable() and len(name) <= 50 else "a parameter"
        return f"the query parameter {shown!r} is given {repeats} times; at most {MAX_REPEATS} are accepted"
    return None


class AtomicRequestMiddleware:
    """A request stores all or nothing: the view, its forms and serializers and the rendering of its answer run in one
    transaction, rolled back when the answer is an error (status 400 or above, the 500 of an exception included).

    Django's ATOMIC_REQUESTS is not enough: it commits a view that *returns* a 400 (a page's form, a view's own
    refusal) and renders a response after its commit, so a body that fails to serialise left its rows behind.
    Last in MIDDLEWARE, so what the others keep on purpose is outside it: the session (a one-time OAuth state spent by
    a failed hub sign-in stays spent) and the sign-in lockout, whose 429 is made from the view's answer after the
    failure record it counts is committed. Throttle counters are in the cache, not the database.
    Safe methods (GET, HEAD, OPTIONS) get no transaction: they read (a cached board reads no database at all); the two
    links that write on a GET, the sign-up confirmation and the hub's sign-in callback, write through one atomic service
    each, and a streamed CSV is read after the view returns in any case."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in SAFE_METHODS:
            return self.get_response(request)
        with transaction.atomic():
            response = self.get_response(request)
            if response.status_code >= 400:
                transaction.set_rollback(True)
        return response
