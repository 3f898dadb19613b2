import csv
import io
import json

import pytest
from django.urls import reverse

from leaderboard.results.models import Level, ResultAggregate
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
HOSTILE = "=cmd|' /C calc'!A0"


def _csv(response):
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_model_detail_works(client, make_run):
    run = make_run("org/alpha", 300, variants=("original", "R1"), extra_correct={"R1": 250})
    data = client.get(reverse("api-model-detail", args=["org/alpha"])).json()
    assert data["hub_id"] == "org/alpha" and data["size_class"] == "mini" and data["params"] == 2_000_000_000
    (entry,) = data["runs"]
    assert entry["run_id"] == run.pk and entry["variants"] == ["original", "R1"] and entry["breakdown_note"] == ""
    card = entry["reproducibility"]
    assert card["template_hash"] == "f" * 64 and card["seed"] == 1234 and card["hardware"] == {"gpu": "H100"}
    assert card["library_versions"]["torch"] == "2.5.0" and card["dataset_hash"] == run.dataset_hash
    assert entry["efficiency"] == {"prefill_tokens_per_s": 1000.0}
    cells = {(c["variant"], c["level"], c["key"]): c for c in entry["results"]}
    for agg in ResultAggregate.objects.filter(result__run=run):
        cell = cells[(agg.variant, agg.level, agg.key)]
        assert (cell["n"], cell["correct"]) == (agg.n, agg.correct)
        assert cell["accuracy"] == round(100 * agg.correct / agg.n, 2)
    assert len(cells) == 2 * (1 + 9 + 27 + 80)


def test_model_detail_csv(client, make_run):
    run = make_run("org/alpha", 300)
    rows = _csv(client.get(reverse("api-model-detail", args=["org/alpha"]), {"format": "csv"}))
    assert len(rows) == 1 + 9 + 27 + 80
    topic = next(r for r in rows if r["level"] == "topic")
    agg = ResultAggregate.objects.get(result__run=run, level=Level.TOPIC, key=topic["key"], variant="original")
    assert (int(topic["n"]), int(topic["correct"])) == (agg.n, agg.correct)


def test_model_detail_handles_the_sealed_split(client, make_run):
    make_run("org/alpha", 301, split="test")
    response = client.get(reverse("api-model-detail", args=["org/alpha"]))
    (entry,) = response.json()["runs"]
    assert [c["level"] for c in entry["results"]] == ["overall"] and entry["breakdown_note"]
    assert entry["results"][0]["accuracy"] == 62.0 and entry["results"][0]["correct"] is None  # 62.71 on a 2-pt grid
    assert_no_sealed_content(response.content.decode())
    rows = _csv(client.get(reverse("api-model-detail", args=["org/alpha"]), {"format": "csv"}))
    assert [r["level"] for r in rows] == ["overall"] and rows[0]["correct"] == ""
    assert_no_sealed_content(json.dumps(rows))


def test_model_detail_handles_an_unknown_model(client, db):
    assert client.get(reverse("api-model-detail", args=["org/nothing"])).status_code == 404
    assert client.get(reverse("api-model-history", args=["org/nothing"])).status_code == 404


def test_history_works(client, make_run):
    first = make_run("org/alpha", 240)
    second = make_run("org/alpha", 300, revision="b" * 40)
    rows = client.get(reverse("api-model-history", args=["org/alpha"])).json()
    assert [r["run_id"] for r in rows] == [first.pk, second.pk]
    assert rows[0]["accuracy_change"] is None and rows[1]["previous_run_id"] == first.pk
    assert rows[1]["accuracy_change"] == round(100 * (300 - 240) / 480, 2)
    csv_rows = _csv(client.get(reverse("api-model-history", args=["org/alpha"]), {"format": "csv"}))
    assert [int(r["run_id"]) for r in csv_rows] == [first.pk, second.pk]
    assert float(csv_rows[1]["accuracy_change"]) == rows[1]["accuracy_change"]


def test_history_rounds_the_sealed_split(client, make_run):
    make_run("org/alpha", 240, split="test")
    make_run("org/alpha", 301, split="test", revision="b" * 40)
    response = client.get(reverse("api-model-history", args=["org/alpha"]))
    rows = response.json()
    # Published 50 and 62 (2-point grid): the change is theirs, 12.0, never the exact 12.7 (61 of 480).
    assert rows[1]["accuracy_change"] == 12.0 and rows[1]["correct"] is None
    assert_no_sealed_content(response.content.decode())


def test_topics_csv_works(client, make_run):
    make_run("org/alpha", 300)
    make_run(HOSTILE, 200)
    rows = _csv(client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu"}))
    assert len(rows) == 2 * 80
    stored = {(a.result.hub_id, a.key): (a.n, a.correct) for a in
              ResultAggregate.objects.filter(level=Level.TOPIC, variant="original").select_related("result")}
    for row in rows:
        hub_id = row["hub_id"][1:] if row["hub_id"].startswith("'") else row["hub_id"]
        assert (int(row["n"]), int(row["correct"])) == stored[(hub_id, row["topic_slug"])]
    assert {r["hub_id"] for r in rows} == {"org/alpha", "'" + HOSTILE}


def test_topics_csv_refuses_the_sealed_split(client, make_run):
    make_run("org/alpha", 300, split="test")
    response = client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu", "split": "test"})
    assert response.status_code == 400
    assert_no_sealed_content(response.content.decode())
    assert client.get(reverse("api-results-topics-csv"), {"benchmark": "nope"}).status_code == 404
