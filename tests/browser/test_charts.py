"""Chart hygiene in the browser: the shared axis rule, a legend (or colour bar) on every chart, and an empty board
that says it is empty instead of blaming filters nobody set."""
import pytest
from django.urls import reverse

from tests.browser.harness import DESKTOP, frontend_routes, needs_chromium, new_page, page_url, wait_for_charts

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_the_axis_rule(browser, live_server, demo_loaded):
    page, _ = new_page(browser, live_server.url, DESKTOP)
    try:
        page.goto(reverse("topics"), wait_until="load")
        ranges = page.evaluate("() => [[54.2, 55], [85, 95], [10, 12], [99, 100]].map((v) => MMLU.accuracyRange(v))")
        for (lo, hi), values in zip(ranges, ([54.2, 55], [85, 95], [10, 12], [99, 100])):
            assert 0 <= lo <= 25 <= hi <= 100, (values, lo, hi)  # chance always on the axis
            assert lo < min(values) and max(values) <= hi and hi - lo >= 10, (values, lo, hi)
    finally:
        page.context.close()


def test_every_chart_names_its_colours(browser, live_server, site):
    missing = []
    for route in frontend_routes():
        page, _ = new_page(browser, live_server.url, DESKTOP)
        try:
            page.goto(page_url(route, site), wait_until="load")
            wait_for_charts(page)
            for chart in page.eval_on_selector_all("div.chart.js-plotly-plot", """els => els.map(el => ({
                    name: el.dataset.chart, sunburst: el.data.some(t => t.type === "sunburst"),
                    named: !!el.querySelector(".legend .traces, .colorbar")}))"""):
                if not chart["sunburst"] and not chart["named"]:  # a sunburst's sectors carry their own labels
                    missing.append(f"{route.label}: chart {chart['name']}")
        finally:
            page.context.close()
    assert not missing, f"charts without a legend or colour bar: {missing}"


def test_an_empty_board_says_it_is_empty(browser, live_server, demo_loaded):
    page, problems = new_page(browser, live_server.url, DESKTOP)
    try:
        page.goto(reverse("leaderboard"), wait_until="load")
        page.wait_for_function("() => !document.getElementById('no-rows').hidden")
        said = page.inner_text("#no-rows") + " " + page.inner_text("#summary-leaderboard")
        assert "No model has been evaluated on Mobile-MMLU" in said and "matches these filters" not in said
        page.select_option("select[name=size_class]", "large")  # a filter now: the words change with it
        assert "No model has been evaluated" in page.inner_text("#no-rows")  # still empty: no rows at all
        assert not problems.items, problems.items
    finally:
        page.context.close()
