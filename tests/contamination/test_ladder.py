"""The Ladder rule per submitter: a new repository, precision, spelling or namespace of the same account does not
start afresh, and each account has a budget of sealed releases per window (through the real scoring path)."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.contamination.models import LadderDecision

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice")


def _test_board(client):
    response = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "split": "test"})
    return {row["hub_id"]: row for row in response.json()["results"]}


def _decision(run):
    return LadderDecision.objects.get(candidate_run_id=run.pk)


def test_a_new_repository_of_the_same_submitter_does_not_get_a_fresh_release(client, make_run, alice):
    first = make_run("alice-org/model-a", "test", 240, submitter=alice)
    again = make_run("alice-org/model-b", "test", 240, submitter=alice)  # a new repository, no gain
    assert _decision(first).reason == "first" and _decision(again).reason == "no-gain"
    board = _test_board(client)
    assert "alice-org/model-a" in board and "alice-org/model-b" not in board  # its test figure stays sealed
    status = client.get(reverse("api-model-detail", args=["alice-org/model-b"]))
    assert status.status_code == 404 or all(r["split"] != "test" for r in status.json()["runs"])
    better = make_run("alice-org/model-c", "test", 300, submitter=alice)  # a real gain: 60 more right, none lost
    assert _decision(better).reason == "gain" and _decision(better).shown_run_id == first.pk
    assert "alice-org/model-c" in _test_board(client)


def test_another_precision_or_spelling_is_the_same_family(client, make_run, alice):
    make_run("alice-org/model", "test", 240, submitter=alice)
    fp8 = make_run("alice-org/model", "test", 240, precision="float16", submitter=alice)
    shouted = make_run("ALICE-ORG/Other", "test", 240, submitter=alice)
    assert _decision(fp8).reason == "no-gain" and _decision(shouted).reason == "no-gain"
    assert {d.family for d in LadderDecision.objects.all()} == {"alice-org"}


def test_another_account_in_the_namespace_has_its_own_family(client, make_run, alice):
    bob = User.objects.create_user("bob")
    make_run("shared-org/a", "test", 300, submitter=alice)
    theirs = make_run("shared-org/b", "test", 240, submitter=bob)
    assert _decision(theirs).reason == "first" and "shared-org/b" in _test_board(client)


def test_each_account_has_a_budget_of_releases_per_window(client, make_run, alice, settings):
    settings.LADDER_RELEASES_PER_WINDOW = 2
    make_run("alice-org/one", "test", 200, submitter=alice)  # first
    make_run("other-namespace/two", "test", 100, submitter=alice)  # another namespace: first of its family
    spent = make_run("alice-org/three", "test", 400, submitter=alice)  # a real gain, but the budget is used up
    assert _decision(spent).reason == "budget" and not _decision(spent).moved
    assert "alice-org/three" not in _test_board(client)
    LadderDecision.objects.filter(moved=True).update(decided_at=LadderDecision.objects.first().decided_at
                                                     - timedelta(days=31))
    later = make_run("alice-org/four", "test", 400, submitter=alice)  # the window has passed
    assert _decision(later).reason == "gain" and "alice-org/four" in _test_board(client)


def test_a_rescore_does_not_judge_a_run_twice(make_run, alice):
    from leaderboard.evaluations import services
    from leaderboard.evaluations.models import EvaluationRun, RunStatus

    result = make_run("alice-org/model", "test", 240, submitter=alice)
    EvaluationRun.objects.filter(pk=result.pk).update(status=RunStatus.SCORING)
    services.run_score(run=EvaluationRun.objects.get(pk=result.pk))
    assert LadderDecision.objects.filter(candidate_run_id=result.pk).count() == 1
