from collections import Counter

import pytest
from django.core.management import call_command

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.models import Question, Topic

pytestmark = pytest.mark.django_db


def test_it_covers_every_topic_with_dev_validation_and_sealed_test(demo_loaded):
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    per_split = Counter(questions.values_list("split", flat=True))
    assert per_split["validation"] >= 400 and per_split["test"] >= 400
    assert abs(per_split["validation"] - per_split["test"]) <= 0.1 * per_split["validation"]
    dev_per_topic = Counter(questions.filter(split="dev").values_list("topic_id", flat=True))
    topics = Topic.objects.filter(benchmark__slug="mobile-mmlu")
    assert len(dev_per_topic) == topics.count() == 80 and min(dev_per_topic.values()) >= 3
    for split in ("validation", "test"):
        assert questions.filter(split=split).values("topic").distinct().count() == 80


def test_it_includes_multi_correct_questions_in_both_open_and_sealed_splits(demo_loaded):
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    assert questions.filter(split="validation", answer__contains=",").count() >= 10
    sealed = [decrypt_answer(q.answer_sealed) for q in questions.filter(split="test")]
    assert sum("," in a for a in sealed) >= 10
    # Balanced first letters: no letter is the answer to more than 35% of validation questions.
    first = Counter(a[0] for a in questions.filter(split="validation").values_list("answer", flat=True))
    assert max(first.values()) / sum(first.values()) < 0.35


def test_it_is_idempotent(demo_loaded, snapshot, capsys):
    before = snapshot()
    call_command("load_demo", "--skip-models", verbosity=0)
    assert snapshot() == before
    assert capsys.readouterr().out.count("identical content already imported") == 3


def test_no_sealed_question_repeats_an_open_one(demo_loaded):
    """A sealed question whose text is also in dev or validation would already be public."""
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    open_texts = {t.strip().lower() for t in questions.exclude(split="test").values_list("text", flat=True)}
    sealed = [t for t in questions.filter(split="test").values_list("text", flat=True) if t.strip().lower() in open_texts]
    assert sealed == []
