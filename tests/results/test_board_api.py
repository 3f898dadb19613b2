"""The board's columns and filters in the leaderboard API and the per-topic CSV: params range, topic / category /
model filters (400s that name the parameter and its allowed values), the paper's rows never ranked, and the
overview columns (sealed test as published, Δ, categories, order spread, efficiency, provenance)."""
import csv
import io

import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.boards import selectors as boards
from leaderboard.results import selectors
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
TOPIC = "travel-planning"


def _json(client, **params):
    response = client.get(reverse("api-leaderboard"), params)
    assert response.status_code == 200, response.content
    return response.json()


def _ids(client, **params):
    return [r["hub_id"] for r in _json(client, **params)["results"]]


def _topics_csv(client, **params):
    response = client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu", **params})
    assert response.status_code == 200, response.content
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def _error(client, name, **params):
    """The 400's body: JSON, or for the CSV endpoint one "detail" cell holding the same dict, as text."""
    response = client.get(reverse(name), {"benchmark": "mobile-mmlu", **params})
    assert response.status_code == 400, response.content
    if response["Content-Type"].startswith("application/json"):
        return response.json()
    text = response.content.decode()
    assert "ErrorDetail" not in text, text
    return {"text": text}


def test_params_range_filter(client, make_run):
    make_run("org/tiny", 300, params=500_000_000)
    make_run("org/phone", 310, params=2_000_000_000)
    make_run("org/big", 320, params=70_000_000_000)
    assert _ids(client, params_min=1, params_max=10) == ["org/phone"]
    assert set(_ids(client, params_max=2)) == {"org/tiny", "org/phone"}
    assert _ids(client, params_min=3) == ["org/big"]
    error = _error(client, "api-leaderboard", params_min=5, params_max=1)
    assert "params_max" in error


def test_the_papers_rows_are_never_ranked_and_follow_the_size_filters(client, make_run):
    make_run("org/alpha", 400, params=1_000_000_000)
    rows = _json(client, include_reported="true", limit=100, sort="-accuracy")["results"]
    measured, paper = [r for r in rows if not r["reported"]], [r for r in rows if r["reported"]]
    assert [r["hub_id"] for r in measured] == ["org/alpha"] and measured[0]["rank"] == 1
    assert len(paper) == 22 and all(r["rank"] is None for r in paper)
    assert rows[0]["hub_id"] == "org/alpha"  # after every measured row, whatever the sort
    # A parameter filter reads what the paper's rows lack: they are left out, not let through.
    assert _ids(client, include_reported="true", size_class="mini") == ["org/alpha"]
    assert _ids(client, include_reported="true", params_max=3) == ["org/alpha"]
    assert _ids(client, include_reported="true", search="gemma-2-9b") == ["google/gemma-2-9b-it"]


def test_topic_and_category_pool_those_questions_and_rank_by_them(client, make_run):
    make_run("org/first", 480)  # every answer right
    make_run("org/last", 0)
    overall = {r["hub_id"]: r for r in _json(client)["results"]}
    rows = {r["hub_id"]: r for r in _json(client, topic=TOPIC)["results"]}
    assert rows["org/first"]["accuracy"] == 100.0 and rows["org/last"]["accuracy"] == 0.0
    assert rows["org/first"]["n"] < overall["org/first"]["n"] and rows["org/first"]["rank"] == 1
    taxonomy = selectors.taxonomy_slugs(benchmark=_benchmark())
    category = next(c for c, topics in taxonomy.items() if TOPIC in topics)
    by_category = {r["hub_id"]: r for r in _json(client, category=category)["results"]}
    assert by_category["org/first"]["n"] >= rows["org/first"]["n"]
    two = {r["hub_id"]: r for r in _json(client, topic=[TOPIC, taxonomy[category][0]])["results"]}
    assert two["org/first"]["n"] >= rows["org/first"]["n"]


def _benchmark():
    from leaderboard.benchmarks.models import Benchmark

    return Benchmark.objects.get(slug="mobile-mmlu")


def test_model_filter_is_repeatable_any_case_and_keeps_ranks(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 300)
    make_run("org/gamma", 200)
    ranks = {r["hub_id"]: r["rank"] for r in _json(client)["results"]}
    rows = _json(client, model=["ORG/beta", "org/gamma"])["results"]
    assert {r["hub_id"]: r["rank"] for r in rows} == {"org/beta": ranks["org/beta"], "org/gamma": ranks["org/gamma"]}
    assert _ids(client, model="org/alpha,org/gamma") == ["org/alpha", "org/gamma"]


def test_unknown_values_are_a_400_naming_the_parameter_and_the_allowed_values(client, make_run):
    make_run("org/alpha", 400)
    for name in ("api-leaderboard", "api-results-topics-csv"):
        for parameter, value, allowed in (("topic", "nope", TOPIC), ("category", "nope", "allowed values: "),
                                          ("model", "org/nobody", "allowed values: the hub ids")):
            text = str(_error(client, name, **{parameter: value}))
            assert parameter in text and value in text and allowed in text, (name, text)
    error = _error(client, "api-leaderboard", sort="nope")
    assert "sort" in error and "accuracy" in error["sort"][0] and "category:" in error["sort"][0]
    error = _error(client, "api-leaderboard", split="test", topic=TOPIC)
    assert "topic" in error and "sealed" in error["topic"][0]


def test_topics_csv_filters(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 300)
    every = _topics_csv(client)
    assert {r["hub_id"] for r in every} == {"org/alpha", "org/beta"} and len({r["topic_slug"] for r in every}) == 80
    one = _topics_csv(client, topic=TOPIC)
    assert {r["topic_slug"] for r in one} == {TOPIC} and len(one) == 2
    taxonomy = selectors.taxonomy_slugs(benchmark=_benchmark())
    category = next(iter(taxonomy))
    assert {r["topic_slug"] for r in _topics_csv(client, category=category)} == set(taxonomy[category])
    mine = _topics_csv(client, model="ORG/ALPHA", topic=TOPIC)
    assert [(r["hub_id"], r["topic_slug"]) for r in mine] == [("org/alpha", TOPIC)]


def test_the_overview_columns(client, make_run):
    make_run("org/alpha", 400, variants=("original", "fixed-A"), extra_correct={"fixed-A": 304})
    make_run("org/alpha", 301, split="test")  # 62.7%: published 62 on the 480-question split's 2-point grid
    EvaluationRun.objects.filter(model_ref="org/alpha", split="validation").update(efficiency={
        "batch1_latency_s": {"p50": 0.031, "mean": 0.04}, "peak_memory_bytes": 5_300_000_000,
        "energy_j_per_question": 1.25})
    row = _json(client)["results"][0]
    assert row["test_accuracy"] == 62.0 and row["test_grid"] == 2.0
    published = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu"}).json()
    point = published["results"][0] if "results" in published else published[0]
    assert row["delta"] == point["delta"] and row["possible_contamination"] == point["flagged"]
    assert row["order_spread"] == 20.0  # (400 - 304) / 480
    assert len(row["categories"]) == 9 and all(0 <= v <= 100 for v in row["categories"].values())
    assert (row["latency_s"], row["peak_memory_bytes"], row["energy_j_per_question"]) == (0.031, 5_300_000_000, 1.25)
    assert row["template"] == "default" and row["scored_at"] and row["submitted_at"]
    text = b"".join(client.get(reverse("api-leaderboard"), {"format": "csv"}).streaming_content).decode()
    header = text.splitlines()[0].split(",")
    assert {"test_accuracy", "delta", "order_spread", "latency_s"} <= set(header)
    assert sum(h.startswith("category:") for h in header) == 9
    assert_no_sealed_content(text)


def test_sealed_ranks_come_from_the_published_figure(make_run):
    make_run("org/alpha", 301, split="test")
    row = boards.board_rows(benchmark=_benchmark(), split="test")[0]
    assert row["_cell"] == (62.0 / 100 * 480, 480)  # never the exact count (301)
    assert row["categories"] == {} and row["order_spread"] is None and row["test_accuracy"] is None
