"""The page-weight budgets, in bytes as production sends them (issues 7 and 39), counting everything the page loads:
the leaderboard with 1,000 models on a phone's screen sends at most 300 KB in its first view, of which at most 60 KB
of JS; the chart library, fetched once the reader scrolls to the chart, at most 400 KB. Sizes, not times: safe to
assert."""
import pytest

from tests.browser.harness import leaderboard_path
from tests.browser.page_weight import (CHARTS, FIRST_VIEW, budget_problems, many_models_seed, page_weight, report,
                                       total)


@pytest.mark.slow
def test_the_leaderboard_with_1000_models_keeps_its_budgets(demo_loaded, client, browser_if_any):
    hub_ids = many_models_seed(1000, levels=("overall", "category"))
    path = leaderboard_path()
    transfers = page_weight(client, path, browser=browser_if_any)
    html = next(t for t in transfers if t.kind == "document")
    assert html.raw > 0
    body = client.get(path).content.decode()
    assert any(h in body for h in hub_ids) or any(t.kind in ("fetch", "xhr") for t in transfers), \
        "the page shows none of the 1,000 models"
    # Everything counted: the first view's scripts and, once the chart is near, the chart library.
    assert total(transfers, FIRST_VIEW, scripts=True) > 0
    assert [t.url for t in transfers if t.is_chart_library] == [t.url for t in transfers if t.phase == CHARTS
                                                               and t.is_script], report(transfers)
    assert any(t.is_chart_library for t in transfers), f"the chart library was never fetched:\n{report(transfers)}"
    assert not budget_problems(transfers), "\n".join(budget_problems(transfers)) + "\n" + report(transfers)


def test_the_budgets_count_the_chart_library_and_the_first_view():
    """Each budget fails a page over it: the chart library in the first view, a library or first view too heavy."""
    from tests.browser.page_weight import CHART_LIBRARY_BYTES, FIRST_VIEW_BYTES, FIRST_VIEW_JS_BYTES, Transfer

    def t(url, kind, phase, sent):
        return Transfer(url, kind, phase, sent * 4, sent, "br")

    library = "/static/frontend/vendor/plotly-3.7.0-charts.min.js"
    fine = [t("/", "document", FIRST_VIEW, 20_000), t("/static/frontend/charts.js", "script", FIRST_VIEW, 5_000),
            t(library, "script", CHARTS, CHART_LIBRARY_BYTES)]
    assert budget_problems(fine) == []
    cases = {
        "the chart library is in the first view": [fine[0], fine[1], t(library, "script", FIRST_VIEW, 300_000)],
        "the first view's JS": [fine[0], t("/static/a.js", "script", FIRST_VIEW, FIRST_VIEW_JS_BYTES + 1), fine[2]],
        "the first view sends": [t("/", "document", FIRST_VIEW, FIRST_VIEW_BYTES), fine[1], fine[2]],
        "the chart library /static": [fine[0], fine[1], t(library, "script", CHARTS, CHART_LIBRARY_BYTES + 1)],
    }
    for words, transfers in cases.items():
        problems = budget_problems(transfers)
        assert len(problems) == 1 and problems[0].startswith(words), (words, problems)
