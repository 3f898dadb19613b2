"""Charts only where the data supports them, with the shared axis rule and nothing focusable inside role=img."""
import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.frontend.conftest import assert_charts, text

pytestmark = pytest.mark.django_db
STATIC = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend"
ACCURACY_CHARTS = ("leaderboard", "topic", "topics", "model", "compare", "mrscore", "mobile_general")  # page scripts


def test_the_shots_asked_for_is_the_one_selected(client, demo_loaded):
    """?shots=5 shows "5-shot" in its dropdown even before any 5-shot result (it used to show 0-shot)."""
    for name in ("leaderboard", "contamination"):
        page = client.get(reverse(name), {"shots": 5}).content.decode()
        selected = re.search(r'<select name="shots">.*?</select>', page, re.S).group(0)
        assert '<option value="5" selected>5-shot</option>' in selected, name


def test_one_order_gets_no_robustness_chart_but_says_how_to_get_one(client, make_run):
    run = make_run("org/single", 300)  # the original order only
    response = client.get(reverse("model-detail", args=["org/single"]))
    page = text(response)
    assert_charts(response, "radar", "subcategories")
    assert 'id="chart-variants"' not in page
    assert f"it needs a run with at least two answer orders, and run {run.pk} evaluated one" in page


def test_a_day_of_delta_is_not_a_trend(client, make_run):
    make_run("org/m", 470)
    make_run("org/m", 120, split="test")
    page = text(client.get(reverse("contamination")))
    assert 'id="chart-delta"' in page and 'id="chart-history"' not in page
    assert "a trend needs at least 3 days with new Δ points, and there is 1 so far" in page


def test_every_accuracy_chart_uses_the_one_axis_rule_and_the_chance_line():
    for name in ACCURACY_CHARTS:
        script = (STATIC / "pages" / f"{name}.js").read_text()
        assert "M.accuracyAxis(" in script or "M.accuracyRange(" in script, name
        assert "M.withChance(" in script or "M.CHANCE" in script, name
        assert "range: [0, 100]" not in script, name


def test_no_chart_has_a_focusable_toolbar_or_tiny_text():
    shared = (STATIC / "charts.js").read_text()
    assert "displayModeBar: false" in shared
    for script in (STATIC / "pages").glob("*.js"):
        sizes = [int(s) for s in re.findall(r"(?:tickfont|textfont|font)\s*:\s*\{size:\s*(\d+)", script.read_text())]
        assert all(size >= 11 for size in sizes), (script.name, sizes)
