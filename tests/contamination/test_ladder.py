"""The Ladder rule with a budget per submitter: a model's revisions, precisions and spellings are judged against its
best published run, and every publication (a new repository's first included) spends the submitting account's
budget of sealed releases per window, whatever the namespace (through the real scoring path)."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.contamination.models import LadderDecision
from tests.support.boards import current

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice")


def _test_board(client):
    response = current(client, reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "split": "test"})
    return {row["hub_id"]: row for row in response.json()["results"]}


def _decision(run):
    return LadderDecision.objects.get(candidate_run_id=run.pk)


def test_a_later_revision_precision_or_spelling_is_judged_against_the_models_best(client, make_run, alice):
    first = make_run("alice-org/model", "test", 240, submitter=alice)
    again = make_run("alice-org/model", "test", 240, revision="b" * 40, submitter=alice)  # no gain
    fp16 = make_run("alice-org/model", "test", 240, precision="float16", submitter=alice)  # another precision
    shouted = make_run("ALICE-ORG/Model", "test", 240, revision="c" * 40, submitter=alice)  # another spelling
    assert _decision(first).reason == "first"
    assert [_decision(r).reason for r in (again, fp16, shouted)] == ["no-gain"] * 3
    assert {d.family for d in LadderDecision.objects.all()} == {"alice-org/model"}
    rows = [r for r in _test_board(client).values() if r["hub_id"] == "alice-org/model"]
    assert [r["run_id"] for r in rows] == [first.pk]  # the withheld figures stay sealed
    better = make_run("alice-org/model", "test", 300, revision="d" * 40, submitter=alice)  # 60 more right
    assert _decision(better).reason == "gain" and _decision(better).shown_run_id == first.pk


def test_a_new_model_is_measured_so_its_contamination_is_judged(client, make_run, alice):
    """A second repository is not compared with the first (it is another model: its own test figure is what its Δ
    and flag need), but its publication spends the account's budget like any other."""
    make_run("alice-org/model-a", "test", 300, submitter=alice)
    make_run("alice-org/model-b", "validation", 480, submitter=alice)  # validation all right ...
    b = make_run("alice-org/model-b", "test", 120, submitter=alice)  # ... test at chance: a memorizer
    assert _decision(b).reason == "first" and _decision(b).moved
    contamination = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu"}).json()["results"]
    assert [r["flagged"] for r in contamination if r["hub_id"] == "alice-org/model-b"] == [True]


def test_each_account_has_a_budget_of_releases_per_window(client, make_run, alice, settings):
    settings.LADDER_RELEASES_PER_WINDOW = 2
    make_run("alice-org/one", "test", 200, submitter=alice)  # first
    make_run("other-namespace/two", "test", 100, submitter=alice)  # another namespace: the same account's budget
    spent = make_run("alice-org/three", "test", 400, submitter=alice)  # a new repository: the budget is used up
    assert _decision(spent).reason == "budget" and not _decision(spent).moved
    assert "alice-org/three" not in _test_board(client)
    bob = User.objects.create_user("bob")
    assert _decision(make_run("alice-org/four", "test", 300, submitter=bob)).reason == "first"  # bob's own budget
    LadderDecision.objects.filter(moved=True).update(decided_at=LadderDecision.objects.first().decided_at
                                                     - timedelta(days=31))
    later = make_run("alice-org/three", "test", 400, revision="b" * 40, submitter=alice)  # the window has passed
    assert _decision(later).reason == "first" and "alice-org/three" in _test_board(client)


def test_a_rescore_does_not_judge_a_run_twice(make_run, alice):
    from leaderboard.scoring import services as scoring
    from leaderboard.evaluations.models import EvaluationRun, RunStatus

    result = make_run("alice-org/model", "test", 240, submitter=alice)
    EvaluationRun.objects.filter(pk=result.pk).update(status=RunStatus.SCORING)
    scoring.run_score(run=EvaluationRun.objects.get(pk=result.pk))
    assert LadderDecision.objects.filter(candidate_run_id=result.pk).count() == 1
