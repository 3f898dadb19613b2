"""Δ points, flags, Holm per topic, δ₀, the Ladder rule and the history, through the real scoring path."""
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.models import Benchmark
from leaderboard.contamination import selectors, services
from leaderboard.contamination.models import DeltaPoint, LadderDecision
from leaderboard.core.models import AuditRecord

pytestmark = pytest.mark.django_db


def _board(client, **params):
    response = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu", **params})
    assert response.status_code == 200, response.content
    return {row["hub_id"]: row for row in response.json()["results"]}


def test_it_adds_a_point_once_both_splits_are_scored(client, make_run):
    make_run("org/m", "validation", 360)
    assert not DeltaPoint.objects.exists()  # no test result yet
    make_run("org/m", "test", 312)
    row = _board(client)["org/m"]
    # validation 360/480 = 0.75, test 312/480 = 0.65: SE = sqrt((.75*.25 + .65*.35)/480) = 0.0294039
    assert row["delta"] == -10.0 and row["se"] == 2.94
    assert (row["ci95_low"], row["ci95_high"]) == (-15.8, -4.2)
    assert row["z"] == -3.4 and row["flagged"] and row["delta0"] == 0.0
    assert "3 standard errors" in row["flag_reasons"][0]
    assert row["validation"] == {"n": 480, "correct": 360, "accuracy": 75.0, "ci95_low": 70.94, "ci95_high": 78.66}
    assert row["test"]["correct"] is None and row["test"]["accuracy"] == 65.0  # sealed: 0.1 point, no count


def test_published_figures_use_the_test_accuracy_as_published(client, make_run):
    """z, SE and the CI come from the 0.1-point test figure, so they reveal no more than it does."""
    from leaderboard.contamination import stats

    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 313)  # 65.208...%, published as 65.2
    row = _board(client)["org/m"]
    published = stats.delta_from(0.75, 480, 0.652, 480)
    assert row["test"]["accuracy"] == 65.2 and row["delta"] == -9.8
    assert row["z"] == round(published.z, 2) and row["se"] == round(100 * published.se, 2)
    assert row["z"] != round(stats.delta_stats(360, 480, 313, 480).z, 2)  # the exact count would differ


def test_it_does_not_flag_a_model_at_chance_on_both_splits(client, make_run):
    make_run("org/random", "validation", 120)
    make_run("org/random", "test", 127)
    row = _board(client)["org/random"]
    assert row["delta"] == 1.5 and not row["flagged"] and row["flag_reasons"] == []


def test_delta0_set_by_an_admin_rejudges_the_board(client, make_run):
    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 312)
    staff = User.objects.create_user("ops", is_staff=True)
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.02, actor=staff, reason="reference models")
    row = _board(client)["org/m"]
    assert row["delta0"] == -2.0 and row["z"] == -2.72 and not row["flagged"]  # -0.08 / 0.0294039
    assert AuditRecord.objects.filter(action="set-delta0", actor=staff).exists()


def test_delta0_from_reference_models_is_their_mean_delta(make_run):
    make_run("ref/a", "validation", 300)
    make_run("ref/a", "test", 288)  # Δ = -12/480 = -0.025
    make_run("ref/b", "validation", 300)
    make_run("ref/b", "test", 296)  # Δ = -4/480
    staff = User.objects.create_user("ops", is_staff=True)
    offset = services.delta_offset_from_reference(points=DeltaPoint.objects.all(), actor=staff, reason="refs")
    assert offset.value == pytest.approx(-8 / 480)
    assert offset.reference_models == ["ref/a@" + "a" * 40, "ref/b@" + "a" * 40]


def test_per_topic_holm_names_only_the_topic_with_a_gap(client, make_run, questions):
    counts = Counter(slug for _, _, slug in questions["test"])
    target = counts.most_common(1)[0][0]
    make_run("org/t", "validation", lambda i, uid, slug: True)
    make_run("org/t", "test", lambda i, uid, slug: slug != target)
    row = _board(client)["org/t"]
    assert not row["flagged"]  # overall: 480/480 vs (480 - k)/480, z above -3
    assert row["topics"]["tested"] == len(counts)
    assert [t["topic_slug"] for t in row["topics"]["significant"]] == [target]
    assert "delta" not in row["topics"]["significant"][0]  # per-topic sealed figures are withheld


def test_the_probe_excess_adds_to_the_evidence(client, make_run, questions, version):
    from leaderboard.evaluations.selectors import answer_key

    def probe(split, every):
        key = answer_key(version=version, split=split)
        rows = []
        for i, (uid, _, _) in enumerate(questions[split]):
            wrong = next(L for L in "ABCD" if L not in key[uid])
            rows.append({"question_id": uid, "masked": wrong, "exact": i % every == 0})
        correct = next(L for L in "ABCD" if L in key[questions[split][0][0]])
        rows.append({"question_id": questions[split][0][0], "masked": correct, "exact": True})  # not counted
        return rows

    make_run("org/p", "validation", 300, probe_rows=probe("validation", 2))
    make_run("org/p", "test", 300, probe_rows=probe("test", 20))
    row = _board(client)["org/p"]
    assert row["probe"]["validation"]["n"] == 480 and row["probe"]["validation"]["exact"] == 240
    assert row["probe"]["test"]["exact"] == 24 and row["probe"]["excess"] == 45.0
    assert row["probe"]["z"] > 3 and any("memorization probe" in r for r in row["flag_reasons"])


def test_the_ladder_rule_decides_which_test_score_is_shown(client, make_run):
    rev1, rev2, rev3 = "1" * 40, "2" * 40, "3" * 40
    make_run("org/l", "test", 240, revision=rev1)
    # rev2 gains 20 questions and loses none: mean 20/480, s/sqrt(n) = 0.2000/sqrt(480) -> moves
    make_run("org/l", "test", 260, revision=rev2)
    # rev3 against rev2: 3 gains, 2 losses -> mean 1/480 = 0.00208 < s/sqrt(n) = 0.00466: stays
    make_run("org/l", "test", lambda i, uid, slug: i < 258 or 260 <= i < 263, revision=rev3)
    moved, kept = LadderDecision.objects.order_by("pk")
    assert moved.moved and moved.mean_diff == pytest.approx(20 / 480)
    assert not kept.moved and kept.n == 480
    assert kept.mean_diff == pytest.approx(1 / 480) and kept.threshold == pytest.approx(0.0046618, abs=1e-6)
    # A re-run of the shown revision that does no better cannot displace the shown run either.
    make_run("org/l", "test", 250, revision=rev2)
    response = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "split": "test"})
    rows = [r for r in response.json()["results"] if r["hub_id"] == "org/l"]
    assert len(rows) == 1 and rows[0]["revision"] == rev2 and rows[0]["accuracy"] == 54.2
    assert rows[0]["run_id"] == moved.candidate_run_id
    assert "revision 333333333333, 222222222222" in rows[0]["ladder_note"] and "threshold" in rows[0]["ladder_note"]
    # The runs the rule did not show publish no test figure anywhere: not on the model's API, nor its history.
    model = client.get(reverse("api-model-detail", args=["org/l"])).json()
    assert sorted(run["revision"] for run in model["runs"]) == [rev1, rev2]
    history = client.get(reverse("api-model-history", args=["org/l"])).json()
    assert len(history) == 2 and "54.0" not in str(history)  # the withheld runs: 263/480 = 54.8, 250/480 = 52.1
    # Its author's status view does not give it away either.
    from leaderboard.evaluations.models import EvaluationRun
    from leaderboard.submissions.presenters import run_status

    status = run_status(EvaluationRun.objects.get(pk=kept.candidate_run_id))
    assert status["accuracy"] is None and "Ladder rule" in status["accuracy_note"]


def test_the_history_keeps_every_point_and_the_board_mean_per_day(client, make_run):
    make_run("org/a", "validation", 300)
    make_run("org/a", "test", 288)  # Δ -2.5
    DeltaPoint.objects.update(computed_at=DeltaPoint.objects.get().computed_at - timedelta(days=2))
    make_run("org/b", "validation", 300)
    make_run("org/b", "test", 312)  # Δ +2.5
    make_run("org/a", "test", 312, revision="a" * 40)  # a re-test, 24 more right (the Ladder shows it): Δ +2.5
    make_run("org/a", "test", 290, revision="a" * 40)  # another, not better: withheld, no point published
    response = client.get(reverse("api-contamination-history"), {"benchmark": "mobile-mmlu"})
    series = response.json()
    assert [p["mean_delta"] for p in series] == [-2.5, 2.5]  # day 1: a only; day 3: mean(+2.5, +2.5)
    assert [p["models"] for p in series] == [1, 2]
    model = client.get(reverse("api-contamination-model", args=["org/a"])).json()
    assert [p["delta"] for p in model["history"]] == [-2.5, 2.5]
    assert len(model["latest"]) == 1 and model["latest"][0]["delta"] == 2.5


def test_the_leaderboard_shows_the_contamination_flag(client, make_run):
    make_run("org/m", "validation", 480)
    make_run("org/m", "test", 120)
    rows = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu"}).json()["results"]
    assert rows[0]["possible_contamination"] and rows[0]["flagged"]
    clean = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "flagged": "false"}).json()
    assert clean["results"] == []


def test_the_csv_has_one_row_per_model(client, make_run):
    make_run("=cmd|evil", "validation", 480)
    make_run("=cmd|evil", "test", 120)
    response = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu", "format": "csv"})
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[0].startswith("hub_id,revision,precision,benchmark")
    assert lines[1].startswith("'=cmd|evil,") and ",-75.0,1.98,-78.9,-71.1,0.0,-37.95,true," in lines[1]


def test_it_handles_unknown_benchmarks_and_models(client):
    assert client.get(reverse("api-contamination"), {"benchmark": "nope"}).status_code == 404
    bad = client.get(reverse("api-contamination-history"), {"shots": "-1"})
    assert bad.status_code == 400 and "shots" in bad.json()
    assert client.get(reverse("api-contamination-model", args=["no/model"])).status_code == 404


def test_selectors_skip_hidden_runs(make_run):
    make_run("org/h", "validation", 480)
    run = make_run("org/h", "test", 120)
    run.hidden = True
    run.save(update_fields=["hidden"])
    assert selectors.board(benchmark=Benchmark.objects.get(slug="mobile-mmlu")) == []
