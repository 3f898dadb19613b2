"""Headless Chromium (Debian's package) driven by Playwright, and the frontend's pages with real ids filled in."""
from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.busy import stretch

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM, reason="no chromium binary on PATH: install Debian's chromium (apt-get install chromium; "
                         ".ci/run does) or set CHROMIUM_PATH to run the browser tests")
# No background traffic: this machine's network is closed and every refused connection would be noise.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage"]
DESKTOP, PHONE = 1280, 390
WIDTHS = (DESKTOP, PHONE)
OVERFLOW_TOLERANCE_PX = 2


@contextlib.contextmanager
def chromium():
    """Headless Chromium (Debian's binary; Playwright downloads nothing) for the duration of the block."""
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio loop running in this thread while it is started. Django then
    # (a) refuses ORM calls, unless told they are fine (they are ordinary synchronous calls here), and
    # (b) looks database connections up in per-task instead of per-thread storage, which would hand this
    # thread a fresh connection without the test database's state (the serialized contents that
    # serialized_rollback restores, an open test transaction). So the thread's own connections are put
    # into that storage too.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    own = thread_connections()
    playwright = sync_playwright().start()
    use_connections(own)
    try:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()  # the loop ends with it: later tests are unaffected
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def thread_connections() -> dict:
    from django.db import connections

    return {alias: connections[alias] for alias in connections}


def use_connections(own: dict):
    """Make `own` the database connections of the current task context (see chromium()). Playwright runs
    sync callbacks, such as route handlers, in contexts of their own: a handler that calls Django must call
    this first, or it would query through a new connection outside the test's transaction."""
    from django.db import connections

    for alias, connection in own.items():
        connections[alias] = connection


@dataclass
class Problems:
    """What a user's browser would complain about while a page loads and runs."""

    items: list[str] = field(default_factory=list)

    def attach(self, page):
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.items.append(f"uncaught exception: {e}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", lambda r: r.status >= 400 and self.items.append(f"HTTP {r.status}: {r.url}"))
        return self

    def _request_failed(self, request):
        # Chromium cancels what a page is still loading when it navigates away (a reload, a link, the page
        # reloading itself): ERR_ABORTED, which no user sees. A missing or failing file is an HTTP status
        # (the response handler) or another net:: error.
        if request.failure != "net::ERR_ABORTED":
            self.items.append(f"request failed: {request.url} ({request.failure})")

    def _console(self, message):
        url = message.location.get("url") or ""
        # Chromium does not ask for the icon on every page load, so its 404 would fail whichever page happened
        # to ask: the icon has a test of its own (test_pages.py::test_the_favicon_loads).
        if message.type == "error" and not url.endswith("/favicon.ico"):
            self.items.append(f"console error: {message.text} ({url or 'no url'})")


def new_page(browser, base_url, width, *, session_cookie=None):
    """A fresh context at `width` (390 px: a phone, with touch and the mobile viewport rules) -> (page, problems)."""
    phone = width <= PHONE
    context = browser.new_context(
        base_url=base_url, viewport={"width": width, "height": 844 if phone else 900},
        is_mobile=phone, has_touch=phone, device_scale_factor=2 if phone else 1, reduced_motion="reduce")
    if session_cookie:
        context.add_cookies([{"name": "sessionid", "value": session_cookie, "url": base_url}])
    page = context.new_page()
    # 10 s on a quiet machine, stretched by the load as the suite's other waits are (a page load timed out at 10 s in
    # a full run at load average 6 on 2 cores).
    page.set_default_timeout(10_000 * stretch())
    return page, Problems().attach(page)


def session_cookie_for(user) -> str:
    """A signed-in session stored in the database the live server reads."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def chart_report(page) -> list[dict]:
    """Every div.chart: its data-chart name, and how many Plotly traces it holds (None: not a Plotly plot)."""
    return page.eval_on_selector_all(
        "div.chart", "els => els.map(el => ({name: el.dataset.chart || el.id || '(unnamed)',"
                     " hasHook: el.hasAttribute('data-chart'),"
                     " traces: Array.isArray(el.data) ? el.data.length : null}))")


def wait_for_charts(page, timeout=8_000):
    """Charts are drawn as a reader scrolls to them (charts.js fetches the chart library after the load event, once
    a chart is near the viewport, on a phone once it is in view after a scroll): each div.chart is scrolled into
    view in turn until it holds its traces, within `timeout` ms in all (the caller reports which charts are empty);
    then the page is back at its top. On a page too short to scroll, a phone's chart is asked for with its button."""
    import time

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    deadline = time.monotonic() + timeout / 1000
    for index in range(page.locator("div.chart").count()):
        try:
            page.wait_for_function(
                """(i) => { const el = document.querySelectorAll('div.chart')[i];
                            if (!el || (Array.isArray(el.data) && el.data.length)) return true;
                            el.scrollIntoView({block: 'center'});
                            const ask = document.querySelector(`button.chart-draw[data-chart="${el.dataset.chart}"]`);
                            if (window.scrollY === 0 && ask && !ask.hidden && !ask.disabled) ask.click();
                            return false; }""",
                arg=index, polling=100, timeout=max(1, (deadline - time.monotonic()) * 1000))
        except PlaywrightTimeout:
            break
    page.evaluate("() => window.scrollTo(0, 0)")


def horizontal_overflow(page) -> int:
    """Pixels the document is wider than the viewport (0 when it fits)."""
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def table_problems(page, *, phone: bool) -> list[str]:
    """Every table of the page as a reader meets it. On a desktop none needs a sideways scroll; on a phone a table
    wider than the screen scrolls inside a container of its own (overflow-x auto) with its first column sticky."""
    tables = page.eval_on_selector_all("table", """tables => tables.map(table => {
        let box = table.parentElement;
        while (box && box !== document.body && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) {
            box = box.parentElement;
        }
        const scroller = box && box !== document.body ? box : null;
        const first = table.querySelector('tbody tr > :first-child');
        return {name: table.id || (table.caption && table.caption.textContent.trim().slice(0, 40))
                      || table.className || 'a table',
                width: Math.ceil(table.getBoundingClientRect().width),
                room: scroller ? scroller.clientWidth : document.documentElement.clientWidth,
                scrolls: !!scroller, sticky: first ? getComputedStyle(first).position === 'sticky' : true};
    })""")
    problems = []
    for t in tables:
        wider = t["width"] - t["room"] > OVERFLOW_TOLERANCE_PX
        if wider and not phone:
            problems.append(f"table {t['name']!r} is {t['width']} px wide in {t['room']} px: it needs a sideways "
                            "scroll on a desktop")
        elif wider and not (t["scrolls"] and t["sticky"]):
            problems.append(f"table {t['name']!r} is {t['width']} px wide on a {t['room']} px screen without "
                            + ("a first column that stays put" if t["scrolls"] else "a scrolling container"))
    return problems


def screenshot_dir() -> Path:
    from django.conf import settings

    folder = Path(settings.VAR_DIR) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- the frontend's pages ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PageRoute:
    name: str
    route: str
    params: tuple[str, ...]

    @property
    def label(self):
        return self.name or self.route


AUTH_PAGES = ("login", "signup", "signup-resend", "password_reset")  # of /accounts/, the pages a visitor opens without a link


def frontend_routes() -> list[PageRoute]:
    """Every named page of frontend/urls.py (GET pages only: logout is a POST)."""
    from django.urls import URLPattern, URLResolver

    import frontend.urls

    found = []

    def walk(patterns, prefix, only=None):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern), only=AUTH_PAGES)
            elif isinstance(p, URLPattern) and p.name and (only is None or p.name in only):
                found.append(PageRoute(p.name, prefix + str(p.pattern), tuple(p.pattern.converters)))

    walk(frontend.urls.urlpatterns, "")
    return found


@dataclass
class SiteIds:
    hub_id: str
    benchmark: str
    topic: str
    submission: int
    run: int | None = None


def fill(route: PageRoute, ids: SiteIds) -> dict:
    """URL kwargs for a page from real rows. An unknown parameter fails loudly: teach this function about it."""
    if not route.params:
        return {}
    context = f"{route.name} {route.route}".lower()
    org, _, name = ids.hub_id.partition("/")
    kwargs = {}
    for param in route.params:
        p = param.lower()
        if p in ("hub_id", "model", "model_id", "repo_id") or (p == "path" and "model" in context):
            kwargs[param] = ids.hub_id
        elif p in ("org", "namespace", "owner", "organization"):
            kwargs[param] = org
        elif p in ("name", "model_name", "repo", "repo_name"):
            kwargs[param] = name
        elif p in ("topic", "topic_slug") or (p == "slug" and "topic" in context):
            kwargs[param] = ids.topic
        elif p in ("benchmark", "benchmark_slug", "slug"):
            kwargs[param] = ids.benchmark
        elif p in ("pk", "id", "submission_id", "submission") and "submission" in context:
            kwargs[param] = ids.submission
        elif p in ("pk", "id", "run_id", "run") and "run" in context and ids.run:
            kwargs[param] = ids.run
        else:
            raise LookupError(f"page {route.label!r} ({route.route}) has a parameter {param!r} the browser tests "
                              "cannot fill; teach tests/browser/harness.py:fill about it")
    return kwargs


def page_url(route: PageRoute, ids: SiteIds) -> str:
    from django.urls import reverse

    return reverse(route.name, kwargs=fill(route, ids))


def leaderboard_path(ids: SiteIds | None = None) -> str:
    """The page holding table#leaderboard-table: the page named `leaderboard`, else the first that has it
    (without ids, only pages that take no parameter are tried)."""
    from django.test import Client

    client = Client(HTTP_HOST="localhost")  # an allowed host outside the test runner too (bench/)
    routes = sorted((r for r in frontend_routes() if "login" not in r.label),
                    key=lambda r: (r.name != "leaderboard", bool(r.params)))
    for route in routes:
        if route.params and ids is None:
            continue
        try:
            url = page_url(route, ids)
        except LookupError:
            continue
        if b'id="leaderboard-table"' in client.get(url).content:
            return url
    pytest.fail("no page of frontend/urls.py has table#leaderboard-table "
                f"(pages: {[r.label for r in frontend_routes()]})")


def axe_violations(page, impacts=("serious", "critical")) -> list[str]:
    """axe-core (the copy bundled with axe-playwright-python; nothing is fetched) over the page: one line per
    violation of the given impacts, naming the rule and the first offending elements."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page).response
    return [f"axe {v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
            for v in results["violations"] if v["impact"] in impacts]


def small_chart_text(page, minimum=11) -> list[str]:
    """Text drawn inside charts smaller than `minimum` px (each distinct size once, with an example)."""
    return page.evaluate("""(minimum) => {
        const out = {};
        document.querySelectorAll("div.chart text").forEach((t) => {
            const size = parseFloat(getComputedStyle(t).fontSize);
            if (size < minimum && t.textContent.trim() && getComputedStyle(t).display !== "none")
                out[size] = out[size] || t.textContent.trim().slice(0, 40);
        });
        return Object.entries(out).map(([size, text]) => size + " px: " + text);
    }""", minimum)
