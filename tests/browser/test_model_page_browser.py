"""The model page's headline and topic table, and the question browser, in headless Chromium at 1280 and 390 px.

The headline (rank, accuracy, sealed test, Δ with its flag, order spread, last evaluated) must be in the first
screen; the topic table sorts by its headers (and is a plain table without JavaScript); the question browser filters
and pages; axe-core finds no serious or critical violation. Screenshots go to var/screenshots/
(model-headline-<width>.png, model-headline-flagged-<width>.png and questions-<width>.png: the first screen;
test_pages.py takes the whole pages).
"""
import re

import pytest
from django.urls import reverse

from tests.browser.harness import (OVERFLOW_TOLERANCE_PX, PHONE, WIDTHS, axe_violations, horizontal_overflow,
                                   needs_chromium, new_page, screenshot_dir)

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PROBS_MODEL = "demo-org/answers-3b"
FLAGGED_MODEL = "acme/small-8b"  # validation 380/480, sealed test 250/480 (tests/browser/site_data.py)


@pytest.fixture
def models(demo_loaded):
    """The browser tests' six scored models (one with nine answer orders and a sealed run, one contaminated) and a
    run that stored letter probabilities."""
    from tests.browser.site_data import MODEL_WITH_EVERYTHING, site_seed
    from tests.frontend.question_runs import run_with_probabilities

    site_seed()
    run_with_probabilities(PROBS_MODEL)
    return MODEL_WITH_EVERYTHING


def _check_page(page, problems, width, where):
    failures = [f"{where}: {v}" for v in axe_violations(page)]
    if width <= PHONE and horizontal_overflow(page) > OVERFLOW_TOLERANCE_PX:
        failures.append(f"{where}: the page is {horizontal_overflow(page)} px wider than the phone's screen")
    return failures + [f"{where}: {p}" for p in problems.items]


# What each headline must say, in its first screen: the model with everything, and the contaminated one.
HEADLINES = {
    "model-headline": (None, ("Rank", "of 6", "Accuracy", "95% interval", "Sealed test", "on a 2-point grid", "Δ",
                              "no flag", "Order spread", "across 9 answer orders", "Last evaluated", "Compare with…",
                              "Per-topic CSV", "Browse its answers")),
    "model-headline-flagged": (FLAGGED_MODEL, ("Possible contamination", "hidden on the default board", "not ranked",
                                               "with flagged models shown", "Sealed test", "⚑ flagged")),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("case", HEADLINES)
def test_the_headline_is_the_first_screen(browser, live_server, models, case, width):
    hub_id, needed = HEADLINES[case]
    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("model-detail", args=[hub_id or models]), wait_until="load")
        headline = page.locator("#headline")
        box, screen = headline.bounding_box(), page.viewport_size
        assert box["y"] + box["height"] <= screen["height"], f"the headline ends at {box['y'] + box['height']} px"
        shown = headline.inner_text()
        missing = [words for words in needed if words not in shown]
        assert not missing, f"{missing} not in the headline at {width} px: {shown}"
        if hub_id is None:
            assert re.search(r"#\d+=? of 6", shown)
        page.screenshot(path=screenshot_dir() / f"{case}-{width}.png")  # the first screen only
        failures = _check_page(page, problems, width, f"{case} at {width} px")
        assert not failures, "\n".join(failures)
    finally:
        page.context.close()


def _column(page, index):
    return page.eval_on_selector_all(
        "#topic-table tbody tr", f"rows => rows.map(r => parseFloat(r.cells[{index}].dataset.value))")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_topic_table_sorts_by_its_headers(browser, live_server, models, width):
    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("model-detail", args=[models]), wait_until="load")
        accuracy = page.locator("#topic-table thead th", has_text="Accuracy (%)")
        accuracy.locator("button").click()
        values = _column(page, 1)
        assert len(values) == 80 and values == sorted(values, reverse=True)
        assert accuracy.get_attribute("aria-sort") == "descending"
        accuracy.locator("button").press("Enter")  # the keyboard works too: the other way
        assert _column(page, 1) == sorted(values) and accuracy.get_attribute("aria-sort") == "ascending"
        versus = page.locator("#topic-table thead th", has_text="vs board median")
        versus.locator("button").click()
        spread = [v for v in _column(page, 2) if v is not None and v == v]  # NaN: no median, last
        assert len(spread) == 80 and spread == sorted(spread, reverse=True)
        assert accuracy.get_attribute("aria-sort") is None
        topic = page.locator("#topic-table thead th", has_text="Topic").locator("button")
        topic.click()
        names = page.eval_on_selector_all("#topic-table tbody th", "cells => cells.map(c => c.textContent.trim())")
        assert names == sorted(names, key=str.lower)
        assert not problems.items, problems.items
    finally:
        page.context.close()


def test_without_javascript_the_page_is_readable(browser, live_server, models):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False,
                                  viewport={"width": PHONE, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(reverse("model-detail", args=[models]))
        assert page.locator("#headline").is_visible()
        assert page.locator("#topic-table tbody tr").count() == 80
        assert page.locator("#topic-table thead button").count() == 0  # a plain table
        page.goto(reverse("model-questions", args=[PROBS_MODEL]))
        page.select_option("select[name=outcome]", "wrong")
        page.click("#question-filters button[type=submit]")
        # The URL changes when the navigation commits, before the new page has loaded: wait for the load.
        page.wait_for_url(re.compile(r"outcome=wrong"), wait_until="load")
        assert page.locator("li.qb-item.is-wrong").count() == 50
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_question_browser(browser, live_server, models, width):
    from tests.frontend.question_runs import sealed_only_strings

    page, problems = new_page(browser, live_server.url, width)
    try:
        page.goto(reverse("model-detail", args=[PROBS_MODEL]), wait_until="load")
        page.click("text=Browse its answers")
        page.wait_for_url(re.compile(r"/questions/"))
        cards = page.locator("li.qb-item")
        assert cards.count() == 50
        first = cards.first
        assert first.locator("meter").count() == first.locator("li.qb-option").count() >= 2
        assert "model's choice" in first.inner_text() and "answer" in first.inner_text()
        page.screenshot(path=screenshot_dir() / f"questions-{width}.png")  # the first screen (test_pages: the whole)
        failures = _check_page(page, problems, width, f"question browser at {width} px")
        page.select_option("select[name=outcome]", "wrong")
        page.click("#question-filters button[type=submit]")
        page.wait_for_url(re.compile(r"outcome=wrong"))
        assert page.locator("li.qb-item.is-right").count() == 0 and cards.count() == 50
        page.click("a[rel=next]")
        page.wait_for_url(re.compile(r"page=2"))
        assert "Showing 51–100 of 160 wrong" in page.locator("#question-count").inner_text()
        body = page.content()
        assert not [s for s in sealed_only_strings() if s in body]
        failures += _check_page(page, problems, width, f"question browser page 2 at {width} px")
        assert not failures, "\n".join(failures)
    finally:
        page.context.close()
