"""?version=<number> on the leaderboard and the per-topic CSV: default current, 400 naming valid ones."""
import pytest
from django.urls import reverse

from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_versions(make_run):
    make_run("org/alpha", 300)  # measured on the demo's version 1
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    old = benchmark.versions.order_by("-number").first()
    return old, BenchmarkVersion.objects.create(benchmark=benchmark, number=old.number + 1)


def test_it_works(client, two_versions):
    old, new = two_versions
    url = reverse("api-leaderboard")
    assert client.get(url).json()["count"] == 0  # the current version has no results yet
    rows = client.get(url, {"version": old.number}).json()["results"]
    assert [r["hub_id"] for r in rows] == ["org/alpha"]
    topics = client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu", "version": old.number})
    assert b"".join(topics.streaming_content).count(b"org/alpha") == 80
    empty = client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu"})
    assert b"".join(empty.streaming_content).count(b"\n") == 1  # header only


@pytest.mark.parametrize("url,params", [("api-leaderboard", {}), ("api-results-topics-csv",
                                                                   {"benchmark": "mobile-mmlu"})])
def test_it_handles_an_unknown_version(client, two_versions, url, params):
    old, new = two_versions
    response = client.get(reverse(url), {**params, "version": 99}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    message = response.json()["version"][0]
    assert "99" in message and f"{old.number}, {new.number}" in message  # the version asked for, the valid ones
    assert client.get(reverse(url), {**params, "version": "latest"}).status_code == 400
