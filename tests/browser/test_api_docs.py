"""The API docs draw in a browser with no network beyond this site: Swagger UI comes from our static files."""
from urllib.parse import urlparse

import pytest
from django.urls import reverse

from tests.browser.harness import DESKTOP, needs_chromium, new_page, screenshot_dir

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_swagger_ui_draws_from_local_files(browser, live_server):
    page, problems = new_page(browser, live_server.url, DESKTOP)
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    try:
        page.goto(reverse("api-docs"), wait_until="load")
        page.locator(".swagger-ui .info .title").wait_for()
        assert "Mobile-MMLU Leaderboard API" in page.inner_text(".swagger-ui .info .title")
        here = urlparse(live_server.url).netloc
        elsewhere = [u for u in requested if urlparse(u).netloc not in (here, "")]
        assert not elsewhere, f"the docs page asked other hosts: {elsewhere}"
        page.screenshot(path=screenshot_dir() / f"api-docs-{DESKTOP}.png", scale="css")
        assert not problems.items, problems.items
    finally:
        page.context.close()
