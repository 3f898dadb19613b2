import pytest
from django.urls import reverse

from tests.frontend.conftest import assert_charts, page_data, text

pytestmark = pytest.mark.django_db


def test_it_works(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 200, params=8_000_000_000)
    response = client.get(reverse("compare"), {"models": "org/beta, org/alpha,org/beta"})
    assert response.status_code == 200
    data = page_data(response)
    heat = data["heatmap"]
    assert heat["models"] == ["org/beta", "org/alpha"] and len(heat["topics"]) == 80
    assert len(heat["z"]) == 2 and all(len(row) == 80 for row in heat["z"])
    assert sum(heat["n"][1]) == 480  # every validation question of org/alpha, spread over its topics
    scatter = data["scatter"]
    assert len(scatter["paper_mmlu"]) == 22 and len(scatter["paper_mobile_mmlu"]) == 22
    measured = {p[0]: p for p in scatter["measured"]}
    assert measured["org/beta"][1:] == [8.0, round(100 * 200 / 480, 2), 1, 0]  # chosen, not flagged
    assert_charts(response, "heatmap", "scatter")
    assert "widest gap" in text(response)


def test_it_takes_repeated_models_and_its_csv_holds_only_them(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 200)
    make_run("org/gamma", 300)
    response = client.get(reverse("compare") + "?models=org/gamma&models=org/alpha")
    assert page_data(response)["heatmap"]["models"] == ["org/gamma", "org/alpha"]
    csv_url = response.context["csv_url"]
    rows = b"".join(client.get(csv_url).streaming_content).decode().splitlines()[1:]
    assert len(rows) == 2 * 80 and {row.split(",")[0] for row in rows} == {"org/gamma", "org/alpha"}


def test_it_offers_the_best_models_when_none_are_asked_for(client, make_run):
    for i, correct in enumerate((100, 400, 300, 200)):
        make_run(f"org/m{i}", correct)
    data = page_data(client.get(reverse("compare")))
    assert data["heatmap"]["models"] == ["org/m1", "org/m2", "org/m3"]


def test_it_handles_unknown_models(client, make_run):
    make_run("org/alpha", 400)
    response = client.get(reverse("compare"), {"models": "org/alpha,org/ghost"})
    assert response.status_code == 200 and "No open-split result for: org/ghost" in text(response)
    assert page_data(response)["heatmap"]["models"] == ["org/alpha"]
    assert client.get(reverse("compare"), {"benchmark": "nope"}).status_code == 404


def test_it_never_compares_sealed_results(client, make_run):
    make_run("org/alpha", 300, split="test")
    response = client.get(reverse("compare"), {"models": "org/alpha"})
    assert page_data(response)["heatmap"]["models"] == [] and "No open-split result for: org/alpha" in text(response)
