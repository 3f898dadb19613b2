"""Security headers on every answer (issue 38, finding 10): a Content-Security-Policy that runs no inline script and
lets no site frame ours, a Permissions-Policy, and SecurityMiddleware's headers, on the pages, the API, the admin,
the early refusals and the probes (/healthz, /readyz and /metrics are answered before SecurityMiddleware runs)."""
import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db
FILLS = {"hub_id": "demo-org/tiny", "slug": "mobile-mmlu", "pk": "1", "id": "1", "job_id": "1", "run_id": "1",
         "uidb64": "MQ", "token": "set-password"}


def policy(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header as directive -> sources."""
    directives = [part.split() for part in response.get("Content-Security-Policy", "").split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


def header_problems(response) -> list[str]:
    csp = policy(response)
    problems = []
    if csp.get("script-src") != ["'self'"]:
        problems.append(f"script-src is {csp.get('script-src')}, not 'self' alone")
    for name in ("object-src", "frame-ancestors", "base-uri"):
        if csp.get(name) != ["'none'"]:
            problems.append(f"{name} is {csp.get(name)}, not 'none'")
    if "camera=()" not in response.get("Permissions-Policy", ""):
        problems.append(f"Permissions-Policy is {response.get('Permissions-Policy')!r}")
    if response.get("X-Content-Type-Options") != "nosniff" or not response.get("Referrer-Policy"):
        problems.append("SecurityMiddleware's headers are missing")
    return problems


def test_a_page_and_a_probe_carry_the_headers(client):
    for path in ("/", "/healthz", "/metrics"):
        response = client.get(path)
        assert not header_problems(response), (path, header_problems(response), dict(response.headers))


def _routes():
    """Every route of the site but the admin's (checked below), its parameters filled."""
    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                if not str(p.pattern).startswith("admin/"):
                    yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern)

    return ["/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: FILLS[m.group(1)], route).lstrip("^").rstrip("$")
            for route in walk(get_resolver().url_patterns)]


def test_every_route_carries_the_headers(client, demo_loaded, root):
    client.raise_request_exception = False
    routes = _routes()
    assert {"/healthz", "/readyz", "/metrics", "/api/v1/device-reports/", "/leaderboard/", "/api/schema/ui/"} <= set(
        routes)
    extra = ["/admin/", "/admin/auth/user/", "/admin/login/", "/no-such-page/", "/models/a%00b/",
             "/api/v1/leaderboard/?" + "&".join(["a=1"] * 300)]
    missing = {}
    for path in routes + extra:
        response = client.get(path)
        if problems := header_problems(response):
            missing[f"{path} ({response.status_code})"] = problems
    assert not missing, missing


def test_the_api_docs_run_no_inline_script(client):
    """Swagger UI's start-up script is a file of its own (drf-spectacular's split view), as script-src 'self' wants."""
    page = client.get("/api/schema/ui/").content.decode()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts), scripts
