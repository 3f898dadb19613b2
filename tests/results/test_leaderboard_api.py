import csv
import io

import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results.models import Level, ResultAggregate
from leaderboard.submissions.models import ModelEntry
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
HOSTILE = "=cmd|' /C calc'!A0"


def _get(client, **params):
    response = client.get(reverse("api-leaderboard"), params)
    assert response.status_code == 200, response.content
    return response


def _csv(response):
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_it_works(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 395)
    make_run("org/gamma", 200)
    data = _get(client, benchmark="mobile-mmlu").json()
    assert data["count"] == 3
    rows = {r["hub_id"]: r for r in data["results"]}
    assert [rows[h]["rank"] for h in ("org/alpha", "org/beta", "org/gamma")] == [1, 1, 3]
    assert rows["org/alpha"]["tied"] and not rows["org/gamma"]["tied"]
    agg = ResultAggregate.objects.get(result__hub_id="org/beta", level=Level.OVERALL, variant="original")
    assert rows["org/beta"]["n"] == agg.n == 480 and rows["org/beta"]["correct"] == agg.correct == 395
    assert rows["org/beta"]["accuracy"] == round(100 * 395 / 480, 2)
    assert rows["org/beta"]["ci95_low"] < rows["org/beta"]["accuracy"] < rows["org/beta"]["ci95_high"]
    assert all(not r["reported"] for r in data["results"])


def test_it_keeps_the_latest_visible_run_per_model_revision_precision(client, make_run):
    make_run("org/alpha", 100)
    latest = make_run("org/alpha", 300)
    make_run("org/alpha", 200, precision="float16")
    hidden = make_run("org/hidden", 450)
    EvaluationRun.objects.filter(pk=hidden.pk).update(hidden=True)
    make_run("org/banned", 460)
    ModelEntry.objects.filter(hub_id="org/banned").update(hidden=True)
    rows = _get(client).json()["results"]
    assert sorted((r["hub_id"], r["precision"], r["correct"]) for r in rows) == [
        ("org/alpha", "bfloat16", 300), ("org/alpha", "float16", 200)]
    assert next(r for r in rows if r["precision"] == "bfloat16")["run_id"] == latest.pk


def test_it_filters_sorts_searches_and_paginates(client, make_run):
    make_run("org/mini", 300, params=1_000_000_000)
    make_run("org/phone", 310, params=3_500_000_000, model_type="pretrained")
    make_run("org/small", 320, params=8_000_000_000)
    make_run("org/large", 330, params=70_000_000_000)
    ModelEntry.objects.filter(hub_id="org/large").update(flagged=True)

    def ids(**params):
        return [r["hub_id"] for r in _get(client, **params).json()["results"]]
    assert ids(size_class="mini", sort="name") == ["org/mini", "org/phone"]
    assert ids(on_device="true") == ["org/mini"]
    assert ids(model_type="pretrained") == ["org/phone"]
    assert ids(flagged="true") == ["org/large"] and "org/large" not in ids(flagged="false")
    assert ids(sort="-accuracy") == ["org/large", "org/small", "org/phone", "org/mini"]
    assert ids(sort="params") == ["org/mini", "org/phone", "org/small", "org/large"]
    assert ids(search="SMA") == ["org/small"]
    page = _get(client, sort="name", limit=2, offset=1).json()
    assert page["count"] == 4 and [r["hub_id"] for r in page["results"]] == ["org/mini", "org/phone"]
    assert client.get(reverse("api-leaderboard"), {"size_class": "huge"}).status_code == 400
    assert client.get(reverse("api-leaderboard"), {"benchmark": "nope"}).status_code == 404


def test_it_includes_the_paper_figures_only_on_request(client, make_run):
    make_run("org/alpha", 400)
    assert [r["hub_id"] for r in _get(client).json()["results"]] == ["org/alpha"]
    rows = _get(client, include_reported="true", limit=100).json()["results"]
    reported = [r for r in rows if r["reported"]]
    assert len(reported) == 22 and all("Table 2" in r["source"] for r in reported)
    gemma = next(r for r in reported if r["hub_id"] == "google/gemma-2-9b-it")
    assert gemma["accuracy"] == 75.0 and gemma["run_id"] is None
    fixed_a = _get(client, include_reported="true", variant="fixed-A", limit=100).json()["results"]
    assert {r["hub_id"] for r in fixed_a if r["reported"]} >= {"google/gemma-2-9b-it"}
    assert all("Tables 3-4" in r["source"] for r in fixed_a if r["reported"])


def test_it_shows_the_sealed_split_rounded(client, make_run):
    make_run("org/alpha", 301, split="test")
    body = _get(client, split="test")
    row = body.json()["results"][0]
    # 62.71%, published on the 2-point grid of a 480-question split (each value fits at least 5 counts)
    assert row["accuracy"] == 62.0 and row["correct"] is None and row["grid"] == 2.0
    assert "2-point grid" in row["grid_note"]
    assert_no_sealed_content(body.content.decode())
    text = b"".join(_get(client, split="test", format="csv").streaming_content).decode()
    assert_no_sealed_content(text)


def test_it_exports_csv_with_escaped_cells(client, make_run):
    make_run(HOSTILE, 400)
    make_run("org/beta", 100)
    response = _get(client, format="csv")
    assert response["Content-Type"].startswith("text/csv") and response.streaming
    rows = _csv(response)
    assert list(rows[0].keys())[:4] == ["rank", "tied", "hub_id", "revision"]
    assert rows[0]["hub_id"] == "'" + HOSTILE and rows[0]["rank"] == "1" and rows[0]["correct"] == "400"
    assert rows[1]["hub_id"] == "org/beta" and rows[1]["rank"] == "2"


def test_schema_lists_the_results_endpoints(client):
    body = client.get("/api/schema/").content
    for route in (b"/api/v1/leaderboard/", b"/api/v1/models/{hub_id}/", b"/api/v1/models/{hub_id}/history/",
                  b"/api/v1/results/topics.csv"):
        assert route in body
