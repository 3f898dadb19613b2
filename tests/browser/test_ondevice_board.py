"""The On-device board in headless Chromium at 1280 and 390 px: both Pareto charts drawn, each with its files and its
frontier as a labelled step line through the frontier's files; the table readable on a phone (it scrolls in its box,
the file column staying put); the quantization filter applied; no console error and no serious axe violation.
Screenshots go to var/screenshots/ (ondevice-<width>.png)."""
import pytest
from django.urls import reverse

from tests.browser.harness import (OVERFLOW_TOLERANCE_PX, PHONE, WIDTHS, axe_violations, horizontal_overflow,
                                   needs_chromium, new_page, screenshot_dir, table_problems, wait_for_charts)

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def files(demo_loaded):
    from tests.boards import ondevice_world

    return ondevice_world.build()


def traces(page, name):
    return page.eval_on_selector(f"#chart-{name}", """el => el.data.map(t => ({name: t.name.replaceAll("<br>", " "),
        shape: t.line && t.line.shape,
        x: Array.from(t.x), text: t.text ? Array.from(t.text) : []}))""")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_pareto_charts_and_the_table(browser, live_server, files, width):
    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("leaderboard-on-device"), wait_until="load")
        wait_for_charts(page)
        size, speed = traces(page, "pareto-size"), traces(page, "pareto-speed")
        assert [t["name"] for t in size] == ["files (95% intervals)",
                                             "Pareto frontier: no file is both smaller and more accurate"]
        assert len(size[0]["x"]) == 4 and size[1]["shape"] == "hv"
        assert size[1]["text"] == ["Q4_0", "Q4_K_M", "Q8_0", "F16"]  # the step line, smallest file first
        assert speed[1]["name"] == "Pareto frontier: no file is both faster and more accurate"
        assert speed[1]["text"] == ["Q4_K_M", "Q8_0"] and len(speed[0]["x"]) == 3  # the unprofiled file not placed
        legend = page.eval_on_selector("#chart-pareto-speed .legend", "el => el.textContent")
        assert "Pareto frontier" in legend  # the frontier is labelled where the chart is
        axis = page.eval_on_selector("#chart-pareto-speed .xtitle", "el => el.textContent")  # lines joined
        assert "aproxy,notaphone" in axis.replace(" ", ""), axis  # the axis names the profile's label
        page.screenshot(path=screenshot_dir() / f"ondevice-{width}.png", full_page=True, scale="css")
        failures = axe_violations(page) + table_problems(page, phone=width <= PHONE)
        if width <= PHONE and horizontal_overflow(page) > OVERFLOW_TOLERANCE_PX:
            failures.append(f"the page is {horizontal_overflow(page)} px wider than the phone's screen")
        assert not failures + problems.items, "\n".join(failures + problems.items)
    finally:
        page.context.close()


def test_the_quantization_filter_redraws_the_frontier(browser, live_server, files):
    page, problems = new_page(browser, live_server.url, PHONE)
    try:
        page.goto(reverse("leaderboard-on-device"), wait_until="load")
        page.check("input[name=quantization][value=Q4_0]")
        page.check("input[name=quantization][value=Q8_0]")
        page.click("#ondevice-filters button[type=submit]")
        page.wait_for_url("**quantization=Q4_0**")
        wait_for_charts(page)
        assert page.eval_on_selector_all("#ondevice-table tbody tr", "rows => rows.map(r => r.dataset.hubId)") == [
            "org/tiny-GGUF/tiny-Q8_0.gguf", "org/tiny-GGUF/tiny-Q4_0.gguf"]
        assert traces(page, "pareto-speed")[1]["text"] == ["Q4_0", "Q8_0"]  # Q4_K_M no longer beats Q4_0
        assert not problems.items, problems.items
    finally:
        page.context.close()
