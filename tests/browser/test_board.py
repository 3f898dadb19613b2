"""The board in a real browser, at 1280 and 390 px: the first screen, no sideways scroll on a phone (rank · model ·
accuracy readable, wide column sets scroll inside the table with the first columns sticky), the flagged toggle,
filters, sorting and pages swapped in without a reload, pins, compare picks, and the board without JavaScript and
without the chart library. Screenshots go to var/screenshots/board-*.png."""
from urllib.parse import unquote

import pytest
from django.urls import reverse

from tests.browser.harness import (DESKTOP, OVERFLOW_TOLERANCE_PX, PHONE, WIDTHS, axe_violations, needs_chromium,
                                   new_page, screenshot_dir, wait_for_charts)

pytestmark = [pytest.mark.browser, needs_chromium, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ROWS = "table#leaderboard-table tbody tr[data-hub-id]"
FLAGGED = "acme/small-8b"  # site_data: validation far above its sealed test: possible contamination


@pytest.fixture
def board_site(demo_loaded):
    from tests.browser.site_data import MODELS, site_seed

    site_seed()
    return MODELS


@pytest.fixture
def open_board(browser, live_server, board_site):
    opened = []

    def open_page(width=DESKTOP, query="", javascript=True):
        if javascript:
            page, problems = new_page(browser, live_server.url, width)
        else:
            context = browser.new_context(base_url=live_server.url, java_script_enabled=False,
                                          viewport={"width": width, "height": 844 if width <= PHONE else 900},
                                          is_mobile=width <= PHONE, has_touch=width <= PHONE)
            page, problems = context.new_page(), None
        opened.append(page)
        page.goto(reverse("leaderboard") + query)
        page.wait_for_selector(ROWS)
        return page, problems

    yield open_page
    for page in opened:
        page.context.close()


def open_drawer(page):
    """The filters' drawer, open (the page opens it by itself on a wide screen)."""
    page.evaluate("() => { document.getElementById('filter-drawer').open = true; }")


def hub_ids(page):
    return page.eval_on_selector_all(ROWS, "els => els.map(e => e.dataset.hubId)")


def wait_rows(page, predicate_js, timeout=8_000):
    page.wait_for_function(f"() => {{ const ids = [...document.querySelectorAll({ROWS!r})].map(e => e.dataset.hubId);"
                           f" return ({predicate_js})(ids); }}", timeout=timeout)


def overflow(page):
    return page.evaluate("() => document.documentElement.scrollWidth") - page.viewport_size["width"]


def first_row_columns(page):
    """Right edges of the first row's rank, model and accuracy cells, and the viewport's width."""
    return page.evaluate("""() => {
        const row = document.querySelector('table#leaderboard-table tbody tr[data-hub-id]');
        return {width: window.innerWidth,
                edges: [...row.children].slice(0, 3).map(c => c.getBoundingClientRect().right)};
    }""")


def test_the_first_screen_at_both_widths(open_board, board_site):
    for width in WIDTHS:
        page, problems = open_board(width)
        wait_for_charts(page)  # scrolled to, drawn, and back at the top
        assert page.locator("#chart-leaderboard.js-plotly-plot").count() == 1
        page.screenshot(path=screenshot_dir() / f"board-first-screen-{width}.png", scale="css")
        page.screenshot(path=screenshot_dir() / f"board-{width}.png", full_page=True, scale="css")
        assert overflow(page) <= OVERFLOW_TOLERANCE_PX, f"{width} px: the page scrolls sideways"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= max(width, DESKTOP)
        columns = first_row_columns(page)
        assert all(edge <= columns["width"] for edge in columns["edges"]), (width, columns)
        table_top, chart_top = page.evaluate("""() => [document.getElementById('leaderboard-table'),
            document.getElementById('chart-leaderboard')].map(el => el.getBoundingClientRect().top + scrollY)""")
        assert table_top < chart_top, "the table comes before the chart"
        first_row = page.locator(ROWS).first.bounding_box()
        assert first_row["y"] + first_row["height"] <= page.viewport_size["height"], f"{width} px: no row on screen"
        assert FLAGGED not in hub_ids(page)
        assert not axe_violations(page), axe_violations(page)
        assert not problems.items, problems.items


def test_the_flagged_toggle_shows_the_contaminated_model_and_the_url_keeps_it(open_board):
    page, problems = open_board()
    assert FLAGGED not in hub_ids(page)
    assert "1 flagged model hidden" in page.inner_text("#board")
    page.check("#leaderboard-filters input[name=flagged]")
    wait_rows(page, f"ids => ids.includes({FLAGGED!r})")
    assert "flagged=show" in page.url
    row = page.locator(f"{ROWS}[data-hub-id='{FLAGGED}']")
    assert "possible contamination" in row.inner_text()
    page.reload()
    page.wait_for_selector(ROWS)
    assert FLAGGED in hub_ids(page) and page.is_checked("#leaderboard-filters input[name=flagged]")
    assert not problems.items, problems.items


def test_filters_sorting_and_keyboard_swap_the_board_in_place(open_board, board_site):
    page, problems = open_board()
    page.evaluate("() => { window.__sameDocument = true; }")  # gone if the page reloads
    open_drawer(page)
    page.select_option("select[name=size_class]", "mini")
    mini = {m.hub_id for m in board_site if m.size_class == "mini" and m.hub_id != FLAGGED}
    wait_rows(page, f"ids => ids.length === {len(mini)} && ids.every(id => {sorted(mini)!r}.includes(id))")
    assert "size_class=mini" in page.url and page.evaluate("() => window.__sameDocument === true")
    csv = page.get_attribute("a.csv-link", "href")
    assert "size_class=mini" in csv and "flagged=false" in csv
    page.select_option("select[name=size_class]", "")
    wait_rows(page, "ids => ids.length === 5")
    page.click("th[data-sort='params'] a")
    expected = [m.hub_id for m in sorted(board_site, key=lambda m: m.params) if m.hub_id != FLAGGED]
    wait_rows(page, f"ids => ids.join() === {','.join(expected)!r}")
    assert page.get_attribute("th[data-sort='params']", "aria-sort") == "ascending"
    # From the keyboard: the sort link keeps focus after the swap, and Enter reverses the order.
    focused = page.evaluate("() => (document.activeElement.closest('th') || {dataset: {}}).dataset.sort")
    assert focused == "params"
    page.keyboard.press("Enter")
    wait_rows(page, f"ids => ids.join() === {','.join(reversed(expected))!r}")
    assert page.get_attribute("th[data-sort='params']", "aria-sort") == "descending"
    page.go_back()
    wait_rows(page, f"ids => ids.join() === {','.join(expected)!r}")
    assert not problems.items, problems.items


FILTER_CASES = (  # (field, how to set it, which seeded models stay)
    ("search", "acme", lambda m: "acme" in m.hub_id),
    ("on_device", True, lambda m: m.params <= 3_000_000_000),
    ("params_min", "5", lambda m: m.params >= 5_000_000_000),
    ("model_type", "pretrained", lambda m: m.model_type == "pretrained"),
)


def test_every_filter_narrows_the_rows(open_board, board_site):
    for name, value, keep in FILTER_CASES:
        page, problems = open_board()
        open_drawer(page)
        field = page.locator(f"#leaderboard-filters [name={name}]")
        if value is True:
            field.check()
        elif name == "model_type":
            field.select_option(value)
        else:
            field.fill(value)
        expected = sorted(m.hub_id for m in board_site if keep(m) and m.hub_id != FLAGGED)
        wait_rows(page, f"ids => ids.slice().sort().join() === {','.join(expected)!r}")
        assert f"{name}=" in page.url, (name, page.url)
        assert not problems.items, problems.items


def test_pins_stay_on_top_and_picks_open_in_compare(open_board, board_site):
    page, problems = open_board()
    last = hub_ids(page)[-1]
    page.click(f"{ROWS}[data-hub-id='{last}'] button.pin")
    wait_rows(page, f"ids => ids[0] === {last!r}")
    assert "pin=" in page.url
    big = next(m for m in board_site if m.hub_id == last)
    other = next(value for value in ("mini", "large") if value != big.size_class)
    open_drawer(page)
    page.select_option("select[name=size_class]", other)
    page.wait_for_url(f"**size_class={other}**")
    keep = {m.hub_id for m in board_site if m.size_class == other and m.hub_id != FLAGGED}
    wait_rows(page, f"ids => ids[0] === {last!r} && ids.length === {len(keep) + 1}")
    assert "outside these filters" in page.locator(ROWS).first.inner_text()
    picks = hub_ids(page)[1:3]
    for hub in picks:
        page.check(f"{ROWS}[data-hub-id='{hub}'] input.pick")
    href = unquote(page.get_attribute("#compare-link", "href"))
    assert href.endswith("models=" + ",".join(picks)), href
    page.click("#compare-link")
    page.wait_for_url("**/compare/**")
    assert all(hub in page.content() for hub in picks)
    assert not problems.items, problems.items


def test_wide_column_sets_scroll_inside_the_table_on_a_phone(open_board):
    page, problems = open_board(PHONE, "?columns=categories")
    assert page.locator("table#leaderboard-table thead th").count() == 12
    assert overflow(page) <= OVERFLOW_TOLERANCE_PX
    scroller = page.locator(".board-scroll")
    page.evaluate("() => { const s = document.querySelector('.board-scroll'); s.scrollLeft = s.scrollWidth; }")
    model = page.locator(f"{ROWS} th.col-model").first.bounding_box()
    box = scroller.bounding_box()
    assert model["x"] >= box["x"] - 1 and model["x"] + model["width"] <= box["x"] + box["width"] + 1, \
        "the model column is not sticky"
    page.screenshot(path=screenshot_dir() / f"board-categories-{PHONE}.png", scale="css")
    assert not problems.items, problems.items


def test_the_board_without_javascript(open_board, board_site):
    for width in WIDTHS:
        page, _ = open_board(width, javascript=False)
        rows = hub_ids(page)
        assert len(rows) == 5 and FLAGGED not in rows
        assert "Loading" not in page.inner_text("main")
        assert page.locator(f"{ROWS} a").first.is_visible()
        assert not page.locator("button.pin").first.is_visible()  # script-only controls stay out of the way
        assert overflow(page) <= OVERFLOW_TOLERANCE_PX
        page.screenshot(path=screenshot_dir() / f"board-nojs-{width}.png", full_page=True, scale="css")
    # Filters still work: the form is a plain GET form.
    page.click("#filter-drawer > summary")
    page.select_option("select[name=size_class]", "mini")
    page.click("#leaderboard-filters button[type=submit]")
    page.wait_for_url("**size_class=mini**")
    mini = {m.hub_id for m in board_site if m.size_class == "mini" and m.hub_id != FLAGGED}
    assert set(hub_ids(page)) == mini


def test_the_rows_never_wait_for_the_chart_library(browser, live_server, board_site):
    """Plotly is held back for good: the rows are there and readable, and on a phone tall enough to show the chart
    at once the page asks for Plotly only when the reader does (the chart's button; or a scroll), after the load
    event."""
    page, problems = new_page(browser, live_server.url, PHONE)
    page.set_viewport_size({"width": PHONE, "height": 3000})
    asked = []
    page.route("**/vendor/plotly-*", lambda route: asked.append(page.evaluate("() => performance.now()")))
    try:
        page.goto(reverse("leaderboard"), wait_until="load")
        loaded = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventStart")
        assert page.locator(ROWS).count() == 5 and page.locator(ROWS).first.is_visible()
        page.wait_for_timeout(1500)  # idle: a phone's chart in view still waits for the reader
        assert not asked, asked
        page.click("button.chart-draw[data-chart=leaderboard]")
        for _ in range(100):  # the request handler runs while the test waits on the page
            if asked:
                break
            page.wait_for_timeout(50)
        assert asked and min(asked) >= loaded, (asked, loaded)
        assert page.inner_text("#summary-leaderboard").startswith("5 measured models shown")
    finally:
        page.context.close()


def test_a_board_of_1000_models_pages_through_100_rows(browser, live_server, demo_loaded):
    from tests.frontend.seed import seed_board

    seed_board(n_models=1000, breakdown=False)
    page, problems = new_page(browser, live_server.url, DESKTOP)
    try:
        page.goto(reverse("leaderboard") + "?flagged=show")
        page.wait_for_selector(ROWS)
        assert page.locator(ROWS).count() == 100
        # The chart is below 100 rows: loaded and painted, the page has not asked for the chart library.
        assert page.evaluate("""async () => {
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            return !document.querySelector('script[src*=plotly]')
                && !performance.getEntriesByType('resource').some((e) => e.name.includes('plotly'));
        }"""), "the chart library was fetched while no chart was near the screen"
        first = hub_ids(page)
        page.click(".pager a[rel=next]")
        wait_rows(page, f"ids => ids.length === 100 && !ids.includes({first[0]!r})")
        assert "page=2" in page.url and "Showing 101–200 of 1,000 models" in page.inner_text("#row-count")
        assert page.evaluate("() => document.querySelectorAll('*').length") < 6_000
        assert not problems.items, problems.items
    finally:
        page.context.close()


def test_contamination_and_topic_tables_on_a_phone(browser, live_server, board_site):
    """Rows of a few lines, not 1,000 px blocks; the topic table's rank · model · accuracy on screen; the
    contamination table's model column on screen and sticky while its figures scroll sideways."""
    from leaderboard.results.models import ResultAggregate

    topic = ResultAggregate.objects.filter(level="topic").values_list("key", flat=True).first()
    for name, url, table, columns in (("contamination", reverse("contamination"), "table#contamination-table", 1),
                                      ("topic", reverse("topic-detail", args=[topic]), "table#topic-models", 3)):
        page, problems = new_page(browser, live_server.url, PHONE)
        try:
            page.goto(url, wait_until="load")
            page.wait_for_selector(f"{table} tbody tr")
            assert overflow(page) <= OVERFLOW_TOLERANCE_PX, f"{name}: the page scrolls sideways"
            heights = page.eval_on_selector_all(f"{table} tbody tr", "rows => rows.map(r => r.offsetHeight)")
            assert max(heights) < 400, f"{name}: rows {heights} px tall"
            edges = page.eval_on_selector(f"{table} tbody tr", f"row => [...row.children].slice(0, {columns}).map("
                                          "c => c.getBoundingClientRect().right)")
            assert all(edge <= PHONE for edge in edges), f"{name}: first columns off screen at {edges}"
            page.screenshot(path=screenshot_dir() / f"board-{name}-table-{PHONE}.png", full_page=True, scale="css")
            page.eval_on_selector(table, "t => { const s = t.closest('.table-scroll'); s.scrollLeft = s.scrollWidth; }")
            left = page.eval_on_selector(f"{table} tbody tr > :first-child", "c => c.getBoundingClientRect().left")
            assert left >= 0, f"{name}: the first column scrolled away"
            assert not problems.items, problems.items
        finally:
            page.context.close()
