import re

import pytest
from django.urls import reverse

from tests.frontend.conftest import assert_charts, page_data, text
from tests.frontend.seed import seed_board

pytestmark = pytest.mark.django_db


def test_it_works(client, demo_loaded):
    seed_board(n_models=5)
    response = client.get(reverse("topics"))
    assert response.status_code == 200
    data = page_data(response)
    assert len(data["easiest"]) == 10 and len(data["hardest"]) == 10
    means = [t["mean"] for t in data["easiest"]]
    assert means == sorted(means, reverse=True) and data["hardest"][0]["mean"] <= data["easiest"][-1]["mean"]
    assert all(t["low"] <= t["mean"] <= t["high"] and t["models"] == 5 for t in data["easiest"])
    assert_charts(response, "easiest", "hardest")
    assert text(response).count('<tr><th scope="row"><a href="/topics/') == 80


def test_a_topic_page_shows_its_accuracy_across_models_and_its_mrscore(client, make_run):
    make_run("org/alpha", 480)
    make_run("org/beta", 0)
    response = client.get(reverse("topic-detail", args=["travel-planning"]))
    assert response.status_code == 200
    data = page_data(response)
    assert [m[0] for m in data["models"]] == ["org/alpha", "org/beta"] and data["total"] == 2
    assert data["models"][0][2] == 100.0 and data["models"][1][2] == 0.0
    page = text(response)
    assert "<h1>Travel Planning</h1>" in page and "8.43" in page  # the paper's MRScore
    assert_charts(response, "topic")


def test_it_handles_unknown_topics(client, demo_loaded):
    assert client.get(reverse("topic-detail", args=["nope"])).status_code == 404
    assert client.get(reverse("topic-detail", args=["travel-planning"]), {"benchmark": "nope"}).status_code == 404


def test_it_works_before_any_result(client, demo_loaded):
    page = text(client.get(reverse("topics")))
    assert "No model has been scored" in page and 'id="chart-easiest"' not in page


def test_it_shows_new_results_once_recomputed(client, make_run):
    """After a published run each page first answers with its previous data, said to be updating, and recomputes
    it after that answer."""
    topic = reverse("topic-detail", args=["travel-planning"])
    make_run("org/alpha", 480)
    page_data(client.get(reverse("topics")))
    page_data(client.get(topic))
    make_run("org/beta", 0)
    updating = client.get(reverse("topics"))
    assert page_data(updating)["easiest"][0]["models"] == 1 and "Updating: showing the board" in text(updating)
    assert page_data(client.get(reverse("topics")))["easiest"][0]["models"] == 2
    assert [m[0] for m in page_data(client.get(topic))["models"]] == ["org/alpha"]
    assert [m[0] for m in page_data(client.get(topic))["models"]] == ["org/alpha", "org/beta"]


def test_a_topic_page_ranks_its_models_and_sorts_and_pages_on_the_server(client, demo_loaded):
    from urllib.parse import parse_qs, urlsplit

    from tests.frontend.test_leaderboard_page import Table

    hub_ids = seed_board(n_models=130, per_topic=6)
    url = reverse("topic-detail", args=["travel-planning"])
    response = client.get(url, {"flagged": "show"})
    table = Table(response.content.decode(), "topic-models")
    assert len(table.rows) == 100 and table.rows[0]["cells"][0].startswith("1")
    assert [h["text"].rstrip(" ↕↑") for h in table.headers][:3] == ["Rank", "Model", "Accuracy (95% CI)"]
    page = text(response)
    assert "Showing 1–100 of 130 models." in page and 'aria-label="Pages of this topic' in page
    assert len(Table(client.get(url, {"flagged": "show", "page": 2}).content.decode(), "topic-models").rows) == 30
    by_name = Table(client.get(url, {"flagged": "show", "sort": "name"}).content.decode(), "topic-models")
    assert [r["hub"] for r in by_name.rows] == sorted(hub_ids)[:100]
    hidden = Table(client.get(url).content.decode(), "topic-models")  # seed.py flags every 97th model
    assert {r["hub"] for r in hidden.rows}.isdisjoint({h for i, h in enumerate(hub_ids) if i % 97 == 13})
    csv = re.search(r'class="csv-link" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert parse_qs(urlsplit(csv).query)["topic"] == ["travel-planning"]
    body = b"".join(client.get(csv).streaming_content).decode()
    assert {line.split(",")[9] for line in body.splitlines()[1:]} == {"travel-planning"}
