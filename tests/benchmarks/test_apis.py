import json

import pytest
from django.urls import reverse

from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def test_benchmark_list(client, demo_loaded):
    rows = {row["slug"]: row for row in client.get(reverse("api-benchmark-list")).json()}
    assert rows["mobile-mmlu"]["questions"] == {"dev": 240, "validation": 480, "test": 480}
    assert rows["mobile-mmlu"]["version"] == 1 and len(rows["mobile-mmlu"]["content_hash"]) == 64
    assert rows["mobile-mmlu-pro"]["version"] == 1  # the demo's Pro subset of validation
    assert rows["mobile-mmlu-pro"]["questions"]["validation"] == 160


def test_benchmark_detail_has_the_taxonomy_and_no_sealed_content(client, demo_loaded):
    response = client.get(reverse("api-benchmark-detail", args=["mobile-mmlu"]))
    data = response.json()
    topics = [t for c in data["categories"] for s in c["subcategories"] for t in s["topics"]]
    assert len(data["categories"]) == 9 and len(topics) == 80
    assert sum(t["published_population"] for t in topics) == 16186
    assert all(t["questions"] == {"dev": 3, "validation": 6, "test": 6} for t in topics)
    assert_no_sealed_content(json.dumps(data, ensure_ascii=False))


def test_schema_is_served(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200 and b"/api/v1/benchmarks/" in response.content


def test_it_handles_an_unknown_benchmark(client):
    assert client.get(reverse("api-benchmark-detail", args=["nope"])).status_code == 404
