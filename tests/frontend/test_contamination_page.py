import re

import pytest
from django.urls import reverse

from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def test_it_works(client, make_run):
    make_run("org/memorizer", 470)
    make_run("org/memorizer", 120, split="test")
    make_run("org/honest", 300)
    make_run("org/honest", 290, split="test")
    response = client.get(reverse("contamination"))
    assert response.status_code == 200
    data = page_data(response)
    assert [row[0] for row in data["delta"]] == ["org/memorizer", "org/honest"]  # most suspicious first
    memorizer, honest = data["delta"]
    assert memorizer[7] == 1 and honest[7] == 0
    # test 25%, published as 26 on the 2-point grid of a 480-question split
    assert memorizer[4] < memorizer[3] < memorizer[5] and memorizer[3] == round(26.0 - 100 * 470 / 480, 1)
    assert len(data["history"]) == 1 and data["history"][0][2] == 2
    assert_charts(response, "delta")
    page = text(response)
    # One day of Δ is no trend: the history block says what is missing instead of drawing a line.
    assert 'id="chart-history"' not in page and "needs at least 3 days with new Δ points" in page
    assert "possible contamination" in page and "1 flagged" in page
    # The memorizer (validation 98%, test at chance) is flagged, so its units are named; the honest model's are not.
    rows = {m.group(1): m.group(0) for m in re.finditer(r'<tr data-hub-id="([^"]+)".*?</tr>', page, re.S)}
    named = "Topics where validation is above what the test figure predicts"
    assert named in rows["org/memorizer"] and named not in rows["org/honest"], rows
    csv = elements(response).find("a", class_="csv-link")[0]["href"]
    assert client.get(csv).status_code == 200
    assert_no_sealed_content(page)


def test_the_leaderboard_and_model_page_show_the_flag(client, make_run):
    make_run("org/memorizer", 470)
    make_run("org/memorizer", 120, split="test")
    assert 'data-hub-id="org/memorizer"' not in text(client.get(reverse("leaderboard")))  # hidden by default
    board = text(client.get(reverse("leaderboard"), {"flagged": "show"}))
    row = re.search(r'<tr data-hub-id="org/memorizer".*?</tr>', board, re.S).group(0)
    assert "⚑ possible contamination" in row  # flagged by the contamination monitor
    page = text(client.get(reverse("model-detail", args=["org/memorizer"])))
    assert 'id="delta-table"' in page and "possible contamination" in page


def test_it_works_before_any_delta(client, demo_loaded):
    response = client.get(reverse("contamination"))
    assert response.status_code == 200 and "no Δ to show" in text(response)
    assert client.get(reverse("contamination"), {"benchmark": "nope"}).status_code == 404
