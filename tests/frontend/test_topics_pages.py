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


def test_it_shows_new_results_at_once(client, make_run):
    make_run("org/alpha", 480)
    page_data(client.get(reverse("topics")))
    make_run("org/beta", 0)
    assert page_data(client.get(reverse("topics")))["easiest"][0]["models"] == 2
    assert [m[0] for m in page_data(client.get(reverse("topic-detail", args=["travel-planning"])))["models"]] == [
        "org/alpha", "org/beta"]
