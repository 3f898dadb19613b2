"""Every page: it loads with demo data, links the others, and never shows sealed content."""
import html

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.support.sealed import assert_no_sealed_content, sealed_strings

pytestmark = pytest.mark.django_db
NAV = ("leaderboard", "compare", "topics", "mrscore", "contamination", "submit", "about")


def test_benchmark_page_shows_taxonomy_with_published_figures(client, demo_loaded):
    response = client.get(reverse("benchmark-detail", args=["mobile-mmlu"]))
    data = page_data(response)
    assert data["counts"] == [9, 27, 80] and data["total"] == 16186  # the published populations
    assert_charts(response, "taxonomy")
    page = html.unescape(response.content.decode())
    assert "Marketing & Sales Strategies" in page and "Travel Planning" in page
    assert "8.43" in page  # Travel Planning's published MRScore
    assert "3 / 6 / 6" in page  # demo questions per topic
    assert_no_sealed_content(page)


def test_it_handles_an_unknown_benchmark(client):
    assert client.get(reverse("benchmark-detail", args=["nope"])).status_code == 404


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_about_page_explains_the_method_and_cites_the_papers(client):
    page = text(client.get(reverse("about")))
    for needle in ("2503.20786", "2406.01574", "2412.15194", "Wilson", "Holm", "Ladder", "δ₀", "fixed-A", "R4",
                   "0.1 point"):
        assert needle in page, needle
    # The rules a reader needs to trust the sealed figures, in plain words: the grid, reweighting, multiplicity.
    for needle in ("fits at least 5 different counts", "2 for 480", "reweighted to the test split's topic mix",
                   "Benjamini–Hochberg", "budget per submitter", "5 published test figures per 30 days", "g²/12"):
        assert needle in " ".join(page.split()), needle


def test_every_page_works_links_the_others_and_keeps_the_sealed_split_sealed(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/alpha", 300, split="test")
    make_run("org/beta", 200)
    make_run("org/beta", 250, split="test")
    secrets = sealed_strings()
    pages = [reverse("home"), reverse("leaderboard"), reverse("leaderboard") + "?split=test",
             reverse("model-detail", args=["org/alpha"]), reverse("compare") + "?models=org/alpha,org/beta",
             reverse("topics"), reverse("topic-detail", args=["travel-planning"]), reverse("mrscore"),
             reverse("contamination"), reverse("about"), reverse("benchmark-detail", args=["mobile-mmlu"]),
             reverse("login")]
    for user in (None, User.objects.create_user("staff", is_staff=True, is_superuser=True)):
        if user:
            client.force_login(user)
        for path in pages:
            response = client.get(path)
            assert response.status_code == 200, path
            dom = elements(response)
            assert len(dom.find("h1")) == 1, path
            hrefs = {a.get("href") for a in dom.find("a")}
            assert {reverse(name) for name in NAV} <= hrefs, path
            assert_no_sealed_content(text(response), secrets)
