import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.frontend.seed import VARIANTS
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def url(hub_id, **query):
    path = reverse("model-detail", args=[hub_id])
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_it_works(client, make_run):
    run = make_run("org/alpha", 300, variants=VARIANTS, extra_correct={"fixed-A": 420, "fixed-D": 120})
    response = client.get(url("org/alpha"))
    assert response.status_code == 200
    data = page_data(response)
    assert data["run_id"] == run.pk and len(data["categories"]) == 9 and len(data["subcategories"]) == 27
    assert sum(c["n"] for c in data["categories"]) == 480
    variants = data["variants"]
    assert variants["names"] == list(VARIANTS) and variants["columns"][0] == "Overall"
    overall = dict(zip(variants["names"], (row[0] for row in variants["z"])))
    assert overall["fixed-A"] == round(100 * 420 / 480, 2) and overall["fixed-D"] == round(100 * 120 / 480, 2)
    assert "a spread of 62.5 points" in data["summaries"]["variants"]
    assert_charts(response, "radar", "subcategories", "variants")
    page = text(response)
    assert page.count('<tr><th scope="row"><a href="/topics/') == 80  # the topic table, with intervals
    assert "server measurement" in page and "1,000 tokens/s" in page  # efficiency, labelled
    assert "ffffffffffff" in page  # the template hash, on the reproducibility card
    assert elements(response).find("a", class_="csv-link")


def test_it_shows_run_history_with_score_differences(client, make_run):
    first = make_run("org/alpha", 240)
    second = make_run("org/alpha", 288)
    page = text(client.get(url("org/alpha")))
    assert f"+10 (vs run {first.pk})" in page  # 50% -> 60%
    assert page_data(client.get(url("org/alpha")))["run_id"] == second.pk
    assert page_data(client.get(url("org/alpha", run=first.pk)))["run_id"] == first.pk


def test_sealed_run_shows_overall_only(client, make_run):
    make_run("org/alpha", 300)
    sealed = make_run("org/alpha", 250, split="test")
    response = client.get(url("org/alpha", run=sealed.pk))
    page = text(response)
    assert response.status_code == 200 and 'id="page-data"' not in page and 'id="topic-table"' not in page
    assert 'id="sealed-note"' in page and "per-category/subcategory/topic figures are withheld" in page
    assert "52.0" in page and "52.1" not in page  # 52.08%: published on the split's 2-point grid
    assert_no_sealed_content(page)


def test_it_handles_missing_models_and_runs(client, make_run):
    run = make_run("org/alpha", 300)
    other = make_run("org/beta", 300)
    assert client.get(url("org/nope")).status_code == 404
    assert client.get(url("org/alpha", run="x")).status_code == 404
    assert client.get(url("org/alpha", run=other.pk)).status_code == 404
    ModelEntry.objects.filter(hub_id="org/alpha").update(hidden=True)
    assert client.get(url("org/alpha")).status_code == 404
    ModelEntry.objects.filter(hub_id="org/alpha").update(hidden=False)
    EvaluationRun.objects.filter(pk=run.pk).update(hidden=True)
    assert "No scored runs yet" in text(client.get(url("org/alpha")))
