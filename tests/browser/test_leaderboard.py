"""The leaderboard in a real browser: filters and sorting change the rows, the column chooser hides a column,
and the controls work from the keyboard."""
import time

import pytest

from tests.browser.harness import DESKTOP, leaderboard_path, needs_chromium, new_page
from tests.browser.site_data import MODELS

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ROWS = "table#leaderboard-table tbody tr[data-hub-id]"
FILTERS = "form#leaderboard-filters"
SORTED = ("ascending", "descending")
# Sort keys whose order the test can predict from the seeded models (rank ties make `rank` ambiguous).
SORT_KEYS = {"params": lambda m: m.params, "name": lambda m: m.hub_id.lower(), "hub_id": lambda m: m.hub_id.lower(),
             "model": lambda m: m.hub_id.lower(), "accuracy": lambda m: m.correct, "score": lambda m: m.correct}


def hub_ids(page):
    return page.eval_on_selector_all(ROWS, "els => els.map(e => e.dataset.hubId)")


def rows_after(page, before, *, submit_form=False, timeout=8.0):
    """The rows once they differ from `before`. The page may re-render in place or load a new URL; with
    submit_form, a form that waits for its Apply button is submitted half-way through."""
    from playwright.sync_api import Error

    start = time.monotonic()
    submitted = not submit_form
    now = before
    while time.monotonic() - start < timeout:
        try:
            now = hub_ids(page)
        except Error:  # navigating: the old document is gone
            now = None
        if now is not None and now != before:
            page.wait_for_load_state("load")
            return hub_ids(page)
        if not submitted and time.monotonic() - start > timeout / 3:
            page.eval_on_selector(FILTERS, "form => form.requestSubmit()")
            submitted = True
        page.wait_for_timeout(100)
    return now


def aria_sorts(page):
    return page.eval_on_selector_all("table#leaderboard-table th[data-sort]",
                                     "ths => ths.map(th => [th.dataset.sort, th.getAttribute('aria-sort')])")


def expected_order(key, direction):
    ordered = sorted(MODELS, key=SORT_KEYS[key], reverse=direction == "descending")
    return [m.hub_id for m in ordered]


@pytest.fixture
def leaderboard(browser, live_server, site):
    url = leaderboard_path(site)

    opened = []

    def open_page(width=DESKTOP):
        page, problems = new_page(browser, live_server.url, width)
        opened.append(page)
        page.goto(url)
        page.wait_for_selector(ROWS)
        return page, problems

    yield open_page
    for page in opened:
        page.context.close()


def sort_once_or_twice(page, key, press):
    """Operate the sort control of column `key` (press it again if the first press kept the order)."""
    before = hub_ids(page)
    press()
    after = rows_after(page, before)
    if after == before:
        press()
        after = rows_after(page, before)
    return before, after


FILTER_CASES = (
    ("size_class", "mini", {m.hub_id for m in MODELS if m.size_class == "mini"}),
    ("on_device", True, {m.hub_id for m in MODELS if m.params <= 3_000_000_000}),
    ("search", "acme", {m.hub_id for m in MODELS if "acme" in m.hub_id}),
)


def test_filters_change_the_rows(leaderboard):
    for control, value, expected in FILTER_CASES:  # one seeded site for the three (a fresh page each)
        page, problems = leaderboard()
        before = hub_ids(page)
        assert set(before) == {m.hub_id for m in MODELS}
        field = page.locator(f"{FILTERS} [name={control}]")
        if control == "size_class":
            field.select_option(value)
        elif control == "on_device":
            field.check()
        else:
            field.fill(value)
        after = rows_after(page, before, submit_form=True)
        assert set(after) == expected and len(after) == len(expected), f"{control}={value!r}: rows {after}"
        assert not problems.items, problems.items


def test_sorting_changes_the_order_and_sets_aria_sort(leaderboard):
    page, problems = leaderboard()
    keys = [key for key, _ in aria_sorts(page)]
    assert keys, "no th[data-sort] in table#leaderboard-table"
    key = next((k for k in ("params", "name", "hub_id", "model") if k in keys),
               next((k for k, state in aria_sorts(page) if state not in SORTED), keys[0]))
    before, after = sort_once_or_twice(page, key, lambda: page.click(f"th[data-sort='{key}'] button"))
    assert after != before and sorted(after) == sorted(before), f"sorting by {key} left the rows as {after}"
    states = dict(aria_sorts(page))
    assert states[key] in SORTED, f"aria-sort of {key!r} is {states[key]!r}"
    assert sum(state in SORTED for state in states.values()) == 1, f"more than one sorted column: {states}"
    if key in SORT_KEYS:
        assert after == expected_order(key, states[key])
    assert not problems.items, problems.items


def test_column_chooser_hides_a_column(leaderboard):
    page, problems = leaderboard()
    visible = """() => {
        const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'collapse';
        const table = document.querySelector('table#leaderboard-table');
        return [[...table.querySelectorAll('thead th')].filter(shown).length,
                [...table.querySelectorAll('tbody tr[data-hub-id]:first-child > *')].filter(shown).length];
    }"""
    headers, cells = page.evaluate(visible)
    page.click("details#column-chooser > summary")
    box = page.locator("details#column-chooser input[data-column]:checked").first
    column = box.get_attribute("data-column")
    box.uncheck()
    page.wait_for_function(f"() => ({visible})()[0] === {headers - 1}", timeout=5_000)
    assert page.evaluate(visible) == [headers - 1, cells - 1], f"unchecking {column!r} did not hide one column"
    assert not problems.items, problems.items


def test_keyboard_reaches_the_controls_and_sorts_with_enter(leaderboard):
    page, problems = leaderboard()
    describe = """() => { const el = document.activeElement, th = el && el.closest('th[data-sort]');
        return {tag: el ? el.tagName : '', name: (el && el.name) || '',
                inFilters: !!(el && el.closest('form#leaderboard-filters')), sort: th ? th.dataset.sort : null}; }"""
    focused = []
    for _ in range(120):
        page.keyboard.press("Tab")
        focused.append(page.evaluate(describe))
        if focused[-1]["sort"] and focused[-1]["tag"] == "BUTTON":
            break
    reached = {f["name"] for f in focused if f["inFilters"]}
    missing = {"size_class", "on_device", "model_type", "precision", "search"} - reached
    assert not missing, f"Tab never reached {sorted(missing)}; focus went through {focused}"
    key = focused[-1]["sort"]
    assert key, f"Tab never reached a sort button; focus went through {focused}"

    def press_enter():
        page.locator(f"th[data-sort='{key}'] button").focus()  # a reloaded page starts focus from the top
        page.keyboard.press("Enter")

    before = hub_ids(page)
    page.keyboard.press("Enter")
    after = rows_after(page, before, timeout=4.0)
    if after == before:
        _, after = sort_once_or_twice(page, key, press_enter)
    assert after != before, f"Enter on the {key!r} sort button did not change the order"
    assert dict(aria_sorts(page))[key] in SORTED
    assert not problems.items, problems.items
