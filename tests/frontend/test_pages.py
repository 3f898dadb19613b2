import html

import pytest
from django.urls import reverse

from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def test_home_lists_benchmarks_with_split_counts(client, demo_loaded):
    page = client.get(reverse("home")).content.decode()
    assert "Mobile-MMLU" in page and "<td>240</td><td>480</td><td>480</td>" in page
    assert_no_sealed_content(html.unescape(page))


def test_benchmark_page_shows_taxonomy_with_published_figures(client, demo_loaded):
    page = html.unescape(client.get(reverse("benchmark-detail", args=["mobile-mmlu"])).content.decode())
    assert "Marketing & Sales Strategies" in page and "Travel Planning" in page
    assert "8.43" in page  # Travel Planning's published MRScore
    assert "3 / 6 / 6" in page  # demo questions per topic
    assert_no_sealed_content(page)


def test_it_handles_an_unknown_benchmark(client):
    assert client.get(reverse("benchmark-detail", args=["nope"])).status_code == 404


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}
