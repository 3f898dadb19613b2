"""The per-question browser of a model's open-split run: what a reader sees, and that no sealed question ever
appears (the demo bank's sealed questions have ids and texts of their own)."""
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.benchmarks.models import Question
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results.models import Level, ResultAggregate
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import text
from tests.frontend.question_runs import run_with_probabilities, sealed_only_strings
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def url(hub_id="org/alpha", **query):
    path = reverse("model-questions", args=[hub_id])
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


@pytest.fixture
def scored_with_probs(demo_loaded):
    return run_with_probabilities


def items(page: str) -> list[str]:
    return re.findall(r'<li class="qb-item .*?</li>\s*(?=<li class="qb-item|</ol>)', page, re.S)


def test_it_lists_each_question_with_probabilities_prediction_and_answer(client, scored_with_probs):
    run = scored_with_probs()
    response = client.get(url())
    page = text(response)
    assert response.status_code == 200
    listed = items(page)
    assert len(listed) == 50 and "Showing 1–50 of 480" in page
    overall = ResultAggregate.objects.get(result__run=run, level=Level.OVERALL, variant="original")
    assert f"480 questions: {overall.correct} right, {overall.n - overall.correct} wrong" in page
    validation = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation")
    first = validation.order_by("position").first()
    item = listed[0]
    assert first.uid in item and first.text in item and "✗ wrong" in item  # question 0: every third is wrong
    chosen = re.search(r'<li class="qb-option is-predicted">\s*<span class="qb-letter">(\w)</span>.*?</li>', item, re.S)
    assert chosen and "90.0%" in chosen.group(0) and "model's choice" in chosen.group(0)
    answer = re.search(r'<li class="qb-option is-answer">\s*<span class="qb-letter">(\w)</span>', item).group(1)
    assert answer == first.answer.split(",")[0] != chosen.group(1)
    assert f"answer: <strong>{first.answer.replace(',', ', ')}</strong>" in item
    assert item.count("<meter") == len(first.options)


def test_probabilities_follow_the_original_option_order_under_a_shuffled_order(client, scored_with_probs):
    scored_with_probs()
    item = items(text(client.get(url(variant="R1"))))[1]  # right: its answer was picked, shown at another letter
    predicted = re.search(
        r'<li class="qb-option is-answer is-predicted">\s*<span class="qb-letter">(\w)</span>.*?</li>', item, re.S)
    assert predicted and "90.0%" in predicted.group(0)
    second = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation").order_by("position")[1]
    assert predicted.group(1) == sorted(second.answer.split(","))[0]


def test_it_filters_by_topic_and_by_right_or_wrong(client, scored_with_probs):
    scored_with_probs()
    wrong = text(client.get(url(outcome="wrong")))
    assert "160 wrong" in wrong and "Showing 1–50 of 160 wrong" in wrong
    assert all("✗ wrong" in item for item in items(wrong))
    right = text(client.get(url(outcome="right")))
    assert all("✓ right" in item for item in items(right)) and "Showing 1–50 of 320 right" in right
    validation = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation")
    topic = validation.order_by("position").first().topic
    page = text(client.get(url(topic=topic.slug)))
    count = validation.filter(topic=topic).count()
    assert f"{count} question{'s' if count != 1 else ''} in this topic" in page
    assert len(items(page)) == count and all(topic.name in item for item in items(page))


def test_it_pages_fifty_at_a_time(client, scored_with_probs):
    scored_with_probs()
    page = text(client.get(url(outcome="wrong")))
    assert "Page 1 of 4" in page and 'href="?run=' in page and "outcome=wrong&page=2" in page
    last = text(client.get(url(outcome="wrong", page=4)))
    assert len(items(last)) == 10 and "Showing 151–160 of 160 wrong" in last
    assert client.get(url(page=11)).status_code == 404
    assert client.get(url(page="x")).status_code == 404


def test_a_run_without_letter_probabilities_says_so(client, make_run):
    make_run("org/alpha", 300)
    page = text(client.get(url()))
    assert "This run stored no letter probabilities." in page and "<meter" not in page
    assert len(items(page)) == 50


def test_sealed_questions_never_appear(client, scored_with_probs):
    sealed = Question.objects.filter(split="test").order_by("position").first()
    intruder = {"question_id": sealed.uid, "variant": "original", "topic": sealed.topic.hub_field, "perm": [0, 1, 2, 3],
                "predicted": "A", "predicted_original": "A", "letter_probs": {"A": 1.0}, "letter_mass": 1.0}
    run = scored_with_probs(extra_rows=[intruder])  # a validation run's chunk naming a sealed question
    test_run = scored_with_probs(split="test", variants=("original",))
    assert client.get(url(split="test")).status_code == 404
    assert client.get(url(run=test_run.pk)).status_code == 404
    assert client.get(url(run=test_run.pk, split="test")).status_code == 404
    assert client.get(url(split="dev")).status_code == 404
    pages = []
    for outcome in ("", "right", "wrong"):
        for number in range(1, 11):
            response = client.get(url(run=run.pk, outcome=outcome, page=number))
            if response.status_code == 404:
                break
            pages.append(text(response))
    assert len(pages) == 10 + 7 + 4
    body = "\n".join(pages)
    assert_no_sealed_content(body, sealed_only_strings())
    assert sealed.uid not in body and not Question.objects.filter(split="test", uid__in=re.findall(
        r'id="q-([^"]+)"', body)).exists()


def test_hidden_models_and_runs_are_not_found(client, scored_with_probs):
    run = scored_with_probs()
    other = scored_with_probs("org/beta")
    assert client.get(url()).status_code == 200
    assert client.get(url(run=other.pk)).status_code == 404  # another model's run
    assert client.get(url("org/nope")).status_code == 404
    assert client.get(url(topic="no-such-topic")).status_code == 404
    assert client.get(url(outcome="maybe")).status_code == 404
    assert client.get(url(variant="fixed-A")).status_code == 404  # an order the run did not evaluate
    EvaluationRun.objects.filter(pk=run.pk).update(hidden=True)
    assert client.get(url()).status_code == 404
    assert client.get(url(run=run.pk)).status_code == 404
    EvaluationRun.objects.filter(pk=run.pk).update(hidden=False)
    ModelEntry.objects.filter(hub_id="org/alpha").update(hidden=True)
    assert client.get(url()).status_code == 404


def test_it_reads_only_the_chosen_runs_chunks_and_caches_them(client, scored_with_probs):
    older = scored_with_probs()
    newer = scored_with_probs()
    with CaptureQueriesContext(connection) as first:
        assert client.get(url(run=older.pk)).status_code == 200
    chunk_reads = [q["sql"] for q in first.captured_queries if "evaluations_predictionchunk" in q["sql"]]
    assert chunk_reads and all(f'"run_id" = {older.pk}' in sql for sql in chunk_reads)
    assert not any(f'"run_id" = {newer.pk}' in sql for sql in chunk_reads)
    with CaptureQueriesContext(connection) as again:
        assert client.get(url(run=older.pk, outcome="wrong")).status_code == 200
    assert not [q for q in again.captured_queries if "evaluations_predictionchunk" in q["sql"]]


def test_the_model_page_links_to_it(client, scored_with_probs):
    scored_with_probs()
    page = text(client.get(reverse("model-detail", args=["org/alpha"])))
    assert f'href="{url()}"' in page and "Browse its answers" in page
