"""Issue 7's size budget: the leaderboard with 1,000 models transfers at most 300 KB compressed
(HTML + data + the page's own JS and CSS; Plotly excluded). A size, not a time: safe to assert."""
import pytest

from tests.browser.harness import leaderboard_path
from tests.browser.page_weight import BUDGET_BYTES, budget_total, many_models_seed, page_weight, report

pytestmark = pytest.mark.slow


def test_leaderboard_with_1000_models_stays_under_300_kb(demo_loaded, client, browser_if_any):
    hub_ids = many_models_seed(1000, levels=("overall", "category"))
    path = leaderboard_path()
    transfers = page_weight(client, path, browser=browser_if_any)
    html = next(t for t in transfers if t.kind == "document")
    assert html.raw > 0
    body = client.get(path).content.decode()
    assert any(h in body for h in hub_ids) or any(t.kind in ("fetch", "xhr") for t in transfers), \
        "the page shows none of the 1,000 models"
    assert budget_total(transfers) <= BUDGET_BYTES, f"over the {BUDGET_BYTES:,} byte budget:\n{report(transfers)}"
