import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.frontend.conftest import assert_charts, page_data, text
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def test_it_shows_the_papers_scores_before_a_judge_runs(client, make_run):
    make_run("org/alpha", 300)
    response = client.get(reverse("mrscore"))
    data = page_data(response)
    assert data["source"] == "paper" and data["provenance"] is None
    assert {b["label"]: b["topics"] for b in data["bins"]} == {">= 7": 21, "5-6.9": 38, "3-4.9": 21, "< 3": 0}
    assert sum(data["published_histogram"]) == 80
    assert_charts(response, "histogram", "scatter")
    assert "No judge has scored" in text(response)


def test_it_works(client, make_run, judge_server):
    make_run("org/alpha", 300)
    judge_server.reply = lambda question: str(1 + len(question) % 10)
    call_command("mrscore", "--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--revision", "r1", "--concurrency", "16", "--chunk-size", "256", "--verbosity", "0",
                 stdout=io.StringIO(), stderr=io.StringIO())
    response = client.get(reverse("mrscore"))
    data = page_data(response)
    assert data["source"] == "judge" and data["provenance"]["judge_model"] == "judge-x"
    assert sum(data["histogram"]) == data["n_scored"] == 720  # dev + validation: the sealed split is not aggregated
    assert len(data["topics"]) == 80 and all(t["bin"] for t in data["topics"])
    assert sum(b["topics"] for b in data["bins"]) == 80
    page = text(response)
    assert "judge-x" in page and 'id="judge-identity"' in page and "csv-link" in page
    assert_charts(response, "histogram", "scatter")
    assert_no_sealed_content(page)
