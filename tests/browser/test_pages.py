"""Every page of frontend/urls.py in headless Chromium, on a desktop (1280 px) and a phone (390 px).

A page passes when it loads with no console error, uncaught exception or failed request, has one h1,
does not scroll sideways on the phone, every chart holds at least one Plotly trace (once scrolled to) and draws no
text under 11 px, axe-core finds no serious or critical accessibility violation, its own scripts weigh at most
60 KB compressed and the chart library is asked for only after the load event. A screenshot of each page at each
width goes to var/screenshots/.
"""
import pytest
from django.urls import reverse

from tests.browser.harness import (AUTH_PAGES, DESKTOP, OVERFLOW_TOLERANCE_PX, PHONE, WIDTHS, axe_violations,
                                   chart_report, frontend_routes, horizontal_overflow, needs_chromium, new_page, page_url,
                                   screenshot_dir, session_cookie_for, small_chart_text, table_problems,
                                   wait_for_charts)
from tests.browser.page_weight import LIBRARY_BEFORE_LOAD, first_view_script_problems

IN_BROWSER = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ROUTES = frontend_routes()

# The pages issue 7 asks for, found by a word of their URL name or route (the leaderboard may be the home page).
EXPECTED_PAGES = {
    "leaderboard": lambda r, html: "leaderboard" in r.label or 'id="leaderboard-table"' in html,
    "model page": lambda r, html: "model" in r.label and bool(r.params),
    "compare": lambda r, html: "compare" in r.label,
    "mobile vs general (issue 23)": lambda r, html: "mobile-vs-general" in r.label and 'id="chart-mobile-general"' in html,
    "topics": lambda r, html: "topic" in r.label and not r.params,
    "a topic's page": lambda r, html: "topic" in r.label and bool(r.params),
    "MRScore": lambda r, html: "mrscore" in r.label.replace("-", "").replace("_", ""),
    "contamination": lambda r, html: "contamination" in r.label,
    "about / methodology": lambda r, html: "about" in r.label or "methodology" in r.label,
    "submit": lambda r, html: "submit" in r.label,
    "submission status": lambda r, html: "submission" in r.label and bool(r.params),
    "my submissions": lambda r, html: "my-submissions" in r.label,
    "queue": lambda r, html: r.label == "queue",
    "sign up": lambda r, html: "signup" in r.label,
    "password reset": lambda r, html: "password_reset" in r.label,
}


def _slug(text):
    return "".join(c if c.isalnum() else "-" for c in text).strip("-") or "home"


@pytest.mark.django_db
def test_every_page_of_the_issue_exists(client, site):
    pages = []
    for route in ROUTES:
        response = client.get(page_url(route, site))
        pages.append((route, response.content.decode(errors="replace") if response.status_code == 200 else ""))
    missing = [label for label, matches in EXPECTED_PAGES.items() if not any(matches(r, html) for r, html in pages)]
    assert not missing, f"frontend/urls.py has no page for: {', '.join(missing)} (pages: {[r.label for r in ROUTES]})"


@pytest.mark.django_db
def test_the_favicon_loads(client, demo_loaded):
    """Browsers ask for the page's icon (or /favicon.ico when it names none); a 404 is a console error."""
    import re

    page = client.get("/").content.decode()
    icon = re.search(r'<link[^>]*rel="(?:shortcut )?icon"[^>]*href="([^"]+)"', page)
    href = icon.group(1) if icon else "/favicon.ico"
    if href.startswith("data:"):
        return
    if "/static/" in href:
        from django.contrib.staticfiles import finders

        assert finders.find(href.split("/static/", 1)[1]), f"the page's icon {href} is not a static file"
    else:
        assert client.get(href).status_code == 200, f"{href} is not found: every page load logs a 404"


@pytest.mark.parametrize("route", [pytest.param(r, id=r.label, marks=IN_BROWSER) for r in ROUTES])
def test_it_works(route, browser, live_server, site, author):
    url = page_url(route, site)
    # Signed in, so the submit page shows its form; the account pages as a signed-out visitor sees them.
    cookie = None if route.name in AUTH_PAGES else session_cookie_for(author)
    failures = []
    for width in WIDTHS:
        page, problems = new_page(browser, live_server.url, width, session_cookie=cookie)
        scripts = []
        page.on("response", lambda r, scripts=scripts: r.request.resource_type == "script" and scripts.append(r))
        try:
            response = page.goto(url, wait_until="load")
            wait_for_charts(page)
            where = f"{route.label} at {width} px ({url})"
            failures += [f"{where}: {p}" for p in first_view_script_problems(scripts)]
            failures += [f"{where}: the chart library asked for before the load event: {u}"
                         for u in page.evaluate(LIBRARY_BEFORE_LOAD)]
            if response is None or response.status != 200:
                failures.append(f"{where}: HTTP {response and response.status}")
            h1 = page.locator("h1").count()
            if h1 != 1:
                failures.append(f"{where}: {h1} h1 elements, expected one")
            for chart in chart_report(page):
                if not chart["traces"]:
                    failures.append(f"{where}: chart {chart['name']!r} has no Plotly traces ({chart['traces']})")
                if not chart["hasHook"]:
                    failures.append(f"{where}: chart {chart['name']!r} has no data-chart attribute")
            failures += [f"{where}: chart text of {size}" for size in small_chart_text(page)]
            failures += [f"{where}: {v}" for v in axe_violations(page)]
            failures += [f"{where}: {p}" for p in table_problems(page, phone=width <= PHONE)]
            if width <= PHONE:
                overflow = horizontal_overflow(page)
                if overflow > OVERFLOW_TOLERANCE_PX:
                    failures.append(f"{where}: the page is {overflow} px wider than the phone's screen")
            page.screenshot(path=screenshot_dir() / f"{_slug(route.label)}-{width}.png", full_page=True, scale="css")
            failures += [f"{where}: {p}" for p in problems.items]  # everything until after the screenshot
        finally:
            page.context.close()
    assert not failures, "\n".join(failures)


# Every Content-Security-Policy violation, as the page's own listener sees it (issue 38, finding 10).
CSP_LISTENER = """window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(
    `${e.effectiveDirective} refused ${e.blockedURI || "inline"} at ${e.sourceFile || "the page"}:${e.lineNumber}`));"""


@pytest.mark.browser
@needs_chromium
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_chart_pages_and_the_api_docs_break_no_content_security_policy(browser, live_server, site):
    """Plotly draws and Swagger UI starts under the site's policy: no script, style or image it needs is refused.
    test_it_works fails any page whose console reports a violation; this names the directive and the file, on the pages
    drawing the most kinds of chart."""
    charted = [page_url(r, site) for r in ROUTES if r.name in ("leaderboard", "model-detail", "compare", "topic-detail")]
    assert len(charted) == 4, charted
    violations = []
    for url in [*charted, reverse("api-docs")]:
        page, problems = new_page(browser, live_server.url, DESKTOP)
        page.add_init_script(CSP_LISTENER)
        try:
            response = page.goto(url, wait_until="load")
            assert "script-src 'self'" in response.headers["content-security-policy"]
            wait_for_charts(page)
            violations += [f"{url}: {v}" for v in page.evaluate("window.__cspViolations")]
            violations += [f"{url}: {p}" for p in problems.items if "Content Security Policy" in p]
        finally:
            page.context.close()
    assert not violations, "\n".join(violations)
