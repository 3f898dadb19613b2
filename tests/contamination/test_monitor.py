"""Δ points, flags, Holm per topic, δ₀, the Ladder rule and the history, through the real scoring path."""
import math
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion
from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.contamination import selectors, services, stats
from leaderboard.contamination.models import DeltaPoint, LadderDecision
from leaderboard.core.models import AuditRecord

pytestmark = pytest.mark.django_db


def _board(client, **params):
    response = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu", **params})
    assert response.status_code == 200, response.content
    return {row["hub_id"]: row for row in response.json()["results"]}


def _expected(point, p_t=None, delta0=0.0):
    """What the monitor should publish for a point, worked out here from the stated method: validation
    reweighted to the test split's topic mix over the strata of the topic sizes, the test accuracy as published
    on the split's grid (2 points for the demo's 480 test questions; its rounding variance in SE) unless given."""
    figure = publish(point.correct_t, point.n_t)
    p_t = figure.fraction if p_t is None else p_t
    tree = selectors.topic_tree(benchmark=point.benchmark)
    counts = point.topic_counts
    groups = stats.strata({t: (v[2], v[4]) for t, v in counts.items()}, {}, tree)
    rw = stats.reweight([(sum(counts[t][1] for t in g), sum(counts[t][2] for t in g), sum(counts[t][4] for t in g))
                         for g in groups])
    return stats.delta_from(rw.accuracy, rw.n, p_t, point.n_t, delta0, var_v=rw.variance,
                            n_v_effective=rw.n_effective, var_rounding=figure.rounding_variance)


def test_it_adds_a_point_once_both_splits_are_scored(client, make_run):
    make_run("org/m", "validation", 360)
    assert not DeltaPoint.objects.exists()  # no test result yet
    make_run("org/m", "test", 312)
    row = _board(client)["org/m"]
    # validation 360/480 = 0.75, test 312/480 = 0.65, published as 66 on the 2-point grid of a 480-question split.
    # Changed on purpose (was Δ -10.0 from a 0.1-point figure, SE 2.79, z -3.58): at n = 480 a 0.1-point figure
    # pins the count, so the test accuracy is published on a 2-point grid and Δ, SE, z and the CI start from it,
    # with the rounding's variance (0.02²/12) in SE. The validation side is reweighted to the test split's topic
    # mix (a stratified Agresti–Caffo variance); the interval is Newcombe's.
    expected = _expected(DeltaPoint.objects.get())
    assert row["delta"] == -9.0 and row["validation_reweighted"] == 75.0 and row["delta_unweighted"] == -9.0
    assert row["se"] == round(100 * expected.se, 2) == 2.84
    assert (row["ci95_low"], row["ci95_high"]) == (round(100 * expected.ci95_low, 1),
                                                   round(100 * expected.ci95_high, 1))
    assert row["z"] == round(expected.z, 2) == -3.17 and row["flagged"] and row["delta0"] == 0.0
    assert row["q_value"] == row["p_value"]  # a board of one model: BH changes nothing
    assert "3 standard errors" in row["flag_reasons"][0] and "Benjamini" in row["flag_reasons"][0]
    assert row["validation"] == {"n": 480, "correct": 360, "accuracy": 75.0, "ci95_low": 70.94, "ci95_high": 78.66}
    assert row["test"]["correct"] is None and row["test"]["accuracy"] == 66.0 and row["test"]["grid"] == 2.0


def test_published_figures_use_the_test_accuracy_as_published(client, make_run):
    """z, SE and the CI come from the published test figure, so two counts it cannot tell apart give one row."""
    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 313)  # 65.21%, published as 66 (2-point grid)
    first = _board(client)["org/m"]
    point = DeltaPoint.objects.get()
    published = _expected(point)
    assert first["test"]["accuracy"] == 66.0 and first["delta"] == -9.0
    assert first["z"] == round(published.z, 2) and first["se"] == round(100 * published.se, 2)
    assert first["p_value"] == float(f"{published.p_lower:.3g}")
    assert first["p_value"] != float(f"{_expected(point, 313 / 480).p_lower:.3g}")  # the exact count would differ
    DeltaPoint.objects.all().delete()
    make_run("org/m", "test", 321, revision="b" * 40)  # 66.88%, also published as 66
    make_run("org/m", "validation", 360, revision="b" * 40)
    second = _board(client)["org/m"]
    same = ("test", "delta", "se", "ci95_low", "ci95_high", "z", "p_value", "q_value", "flagged")
    assert {k: second[k] for k in same} == {k: first[k] for k in same}


def test_it_does_not_flag_a_model_at_chance_on_both_splits(client, make_run):
    make_run("org/random", "validation", 120)
    make_run("org/random", "test", 127)  # 26.5%: published as 26 (2-point grid)
    row = _board(client)["org/random"]
    assert row["delta"] == 1.0 and not row["flagged"] and row["flag_reasons"] == []


def test_delta0_set_by_an_admin_rejudges_the_board(client, make_run):
    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 312)
    staff = User.objects.create_user("ops", is_staff=True)
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.02, actor=staff, reason="reference models")
    row = _board(client)["org/m"]
    expected = _expected(DeltaPoint.objects.get(), delta0=-0.02)  # -0.07 / SE
    assert row["delta0"] == -2.0 and row["z"] == round(expected.z, 2) and row["z"] > -3 and not row["flagged"]
    assert AuditRecord.objects.filter(action="set-delta0", actor=staff).exists()


def test_the_uncertainty_of_delta0_is_added_to_the_se(client, make_run):
    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 312)
    staff = User.objects.create_user("ops", is_staff=True)
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    services.delta_offset_set(benchmark=benchmark, shots=0, value=0.0, se=0.02, actor=staff, reason="noisy refs")
    row = _board(client)["org/m"]
    se = _expected(DeltaPoint.objects.get()).se
    assert row["delta0_se"] == 2.0 and row["z"] == round(-0.09 / math.sqrt(se ** 2 + 0.02 ** 2), 2) == -2.59
    assert not row["flagged"]  # flagged at z = -3.17 when δ₀ was taken as exact


def test_the_splits_are_paired_within_one_benchmark_version(make_run, version):
    from leaderboard.results.models import RunResult

    make_run("org/m", "validation", 360)
    later = BenchmarkVersion.objects.create(benchmark=version.benchmark, number=version.number + 1)
    RunResult.objects.filter(hub_id="org/m").update(benchmark_version=later)  # as if scored on another version
    make_run("org/m", "test", 312)
    assert not DeltaPoint.objects.exists()


def test_delta0_is_kept_per_benchmark_version(client, make_run, version):
    make_run("org/m", "validation", 360)
    make_run("org/m", "test", 312)
    assert DeltaPoint.objects.get().benchmark_version == version
    staff = User.objects.create_user("ops", is_staff=True)
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    other = BenchmarkVersion.objects.create(benchmark=benchmark, number=version.number + 1)
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.05, actor=staff, reason="v+1",
                              benchmark_version=other)
    assert _board(client)["org/m"]["delta0"] == 0.0  # another version's δ₀ does not apply
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.01, actor=staff, reason="all versions")
    assert _board(client)["org/m"]["delta0"] == -1.0  # the benchmark-wide one does
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.02, actor=staff, reason="this version",
                              benchmark_version=version)
    services.delta_offset_set(benchmark=benchmark, shots=0, value=-0.03, actor=staff, reason="all, newer")
    assert _board(client)["org/m"]["delta0"] == -2.0  # its own version's wins over a newer benchmark-wide one


def test_delta0_from_reference_models_is_their_mean_delta(client, make_run):
    make_run("ref/a", "validation", 300)
    make_run("ref/a", "test", 288)  # published 60.0: Δ = 0.600 - 0.625 = -0.025
    make_run("ref/b", "validation", 300)
    make_run("ref/b", "test", 296)  # 61.67%, published 62 (2-point grid): Δ = 0.62 - 0.625 = -0.005
    make_run("org/m", "validation", 300)
    make_run("org/m", "test", 290)
    staff = User.objects.create_user("ops", is_staff=True)
    offset = services.delta_offset_from_reference(points=DeltaPoint.objects.filter(hub_id__startswith="ref/"),
                                                  actor=staff, reason="refs")
    # Changed on purpose (was the exact-count mean -8/480, then -0.0165 from 0.1-point figures): each Δ is the
    # published one (test accuracy on its grid), so δ₀, which is published, holds nothing finer than they do.
    assert offset.value == pytest.approx(-0.015)
    assert offset.reference_models == ["ref/a@" + "a" * 40, "ref/b@" + "a" * 40]
    a, b = (r for r in sorted(offset.reference_deltas, key=lambda r: r["model"]))
    assert (a["delta"], b["delta"]) == (pytest.approx(-0.025), pytest.approx(-0.005))
    # Two references: their own sampling errors (√(SE_a² + SE_b²)/2) exceed their spread (|Δa - Δb|/2).
    assert offset.se == pytest.approx(math.sqrt(a["se"] ** 2 + b["se"] ** 2) / 2) and offset.se > 0.01
    board = _board(client)
    assert board["org/m"]["delta0"] == -1.5 and board["org/m"]["delta0_se"] == round(100 * offset.se, 2)
    # A reference model is judged against the others, never against itself.
    assert board["ref/a"]["delta0"] == -0.5 and board["ref/a"]["delta0_se"] == round(100 * b["se"], 2)
    assert board["ref/b"]["delta0"] == -2.5


def _within_topic(questions, split):
    """uid -> its index among its topic's questions."""
    seen = Counter()
    out = {}
    for uid, _, slug in questions[split]:
        out[uid] = seen[slug]
        seen[slug] += 1
    return out


def test_per_topic_evidence_names_the_memorized_category(client, make_run, questions):
    """Changed on purpose (was: Fisher's exact test on the exact per-topic counts, each name consistent with 5
    test counts): validation counts are public and a crafted model chooses them, so a name that moved with a
    unit's sealed count was a threshold oracle on it (test_adversary_topic_naming.py). Units are now named for a
    model flagged overall, by the exact binomial test of their validation count against what the published test
    figure predicts. Here the model gets 2 of 6 right in every topic on both splits, and every validation question
    of one category (17 topics in 4 subcategories): flagged, and exactly that category's units are named."""
    tree = selectors.topic_tree(benchmark=Benchmark.objects.get(slug="mobile-mmlu"))
    target = "lifestyle-personal"
    index = {split: _within_topic(questions, split) for split in ("validation", "test")}
    make_run("org/t", "validation", lambda i, uid, slug: tree[slug][2] == target or index["validation"][uid] < 2)
    make_run("org/t", "test", lambda i, uid, slug: index["test"][uid] < 2)
    row = _board(client)["org/t"]
    topics = row["topics"]
    assert row["flagged"] and row["test"]["accuracy"] == 34.0  # 160 of 480; validation 228
    assert topics["topics"] == 80 and topics["test"] == "binomial-exact-one-sided"
    assert topics["expected"] == 34.79  # the top of the published bin (167 of 480), δ₀ = 0
    # 6 validation questions a topic: none stands alone (a unit needs 11); subcategories of two or more do.
    assert topics["tested"] == 26 and topics["pooled"] == 80 and topics["untested"] == 0
    named = {t["topic_slug"]: t for t in topics["significant"]}
    assert set(named) == {key for key, _, cat, _ in tree.values() if cat == target}
    assert all(t["level"] == "subcategory" for t in named.values())
    assert sum(len(t["members"]) for t in named.values()) == 17
    assert "delta" not in next(iter(named.values()))  # per-topic sealed figures are withheld


def test_a_gap_on_the_test_side_alone_is_not_located(client, make_run, questions):
    """Every validation question right, every test question right but those of one subcategory: flagged overall,
    yet no unit is named, because the names never read a per-topic test count and the validation side is the
    same everywhere (the old rule named that subcategory: a fact about the sealed split no published figure
    carries)."""
    tree = selectors.topic_tree(benchmark=Benchmark.objects.get(slug="mobile-mmlu"))
    target = Counter(tree[slug][0] for _, _, slug in questions["test"]).most_common(1)[0][0]
    make_run("org/t", "validation", lambda i, uid, slug: True)
    make_run("org/t", "test", lambda i, uid, slug: tree[slug][0] != target)
    row = _board(client)["org/t"]
    assert row["flagged"] and row["topics"]["significant"] == []


def test_a_model_not_flagged_has_no_unit_named(client, make_run, questions):
    one = questions["test"][0][2]
    make_run("org/t", "validation", lambda i, uid, slug: True)
    make_run("org/t", "test", lambda i, uid, slug: slug != one)
    row = _board(client)["org/t"]
    assert not row["flagged"] and row["topics"]["expected"] is None and row["topics"]["significant"] == []


def test_the_probe_shows_the_validation_rate_only(client, make_run, questions, version):
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
    assert row["probe"] == {"validation": {"n": 480, "exact": 240, "rate": 50.0, "ci95_low": 45.5,
                                           "ci95_high": 54.5}}
    # Nothing of the sealed split's probe (a second sealed figure per run) is kept or shown, nor a reason from it.
    assert DeltaPoint.objects.get(hub_id="org/p").probe.keys() == {"validation"}
    assert not any("probe" in r for r in row["flag_reasons"])


def test_the_ladder_rule_decides_which_test_score_is_shown(client, make_run):
    rev1, rev2, rev3 = "1" * 40, "2" * 40, "3" * 40
    make_run("org/l", "test", 240, revision=rev1)
    # rev2 gains 20 questions and loses none: mean 20/480, s/sqrt(n) = 0.2000/sqrt(480) -> moves
    make_run("org/l", "test", 260, revision=rev2)
    # rev3 against rev2: 3 gains, 2 losses -> mean 1/480 = 0.00208 < s/sqrt(n) = 0.00466: stays
    make_run("org/l", "test", lambda i, uid, slug: i < 258 or 260 <= i < 263, revision=rev3)
    first, moved, kept = LadderDecision.objects.order_by("pk")
    assert first.moved and first.reason == "first" and first.shown_run is None
    assert moved.moved and moved.reason == "gain" and moved.shown_run_id == first.candidate_run_id and moved.mean_diff == pytest.approx(20 / 480)
    assert not kept.moved and kept.reason == "no-gain" and kept.n == 480
    assert kept.mean_diff == pytest.approx(1 / 480) and kept.threshold == pytest.approx(0.0046618, abs=1e-6)
    # A re-run of the shown revision that does no better cannot displace the shown run either.
    make_run("org/l", "test", 250, revision=rev2)
    response = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "split": "test"})
    rows = [r for r in response.json()["results"] if r["hub_id"] == "org/l"]
    assert len(rows) == 1 and rows[0]["revision"] == rev2 and rows[0]["accuracy"] == 54.0  # 54.17 on a 2-pt grid
    assert rows[0]["run_id"] == moved.candidate_run_id
    assert "revision 333333333333, 222222222222" in rows[0]["ladder_note"] and "threshold" in rows[0]["ladder_note"]
    # The runs the rule did not show publish no test figure anywhere: not on the model's API, nor its history.
    model = client.get(reverse("api-model-detail", args=["org/l"])).json()
    assert sorted(run["revision"] for run in model["runs"]) == [rev1, rev2]
    history = client.get(reverse("api-model-history", args=["org/l"])).json()
    assert len(history) == 2 and kept.candidate_run_id not in [h["run_id"] for h in history]
    # Its author's status view does not give it away either.
    from leaderboard.evaluations.models import EvaluationRun
    from leaderboard.submissions.serializers import RunStatusSerializer

    status = RunStatusSerializer(EvaluationRun.objects.get(pk=kept.candidate_run_id)).data
    assert status["accuracy"] is None and "Ladder rule" in status["accuracy_note"]


def test_the_history_keeps_every_point_and_the_board_mean_per_day(client, make_run):
    make_run("org/a", "validation", 300)
    make_run("org/a", "test", 288)  # Δ -2.5
    DeltaPoint.objects.update(computed_at=DeltaPoint.objects.get().computed_at - timedelta(days=2))
    make_run("org/b", "validation", 300)
    make_run("org/b", "test", 312)  # 65%, published 66: Δ +3.5
    make_run("org/a", "test", 312, revision="a" * 40)  # a re-test, 24 more right (the Ladder shows it): Δ +3.5
    make_run("org/a", "test", 290, revision="a" * 40)  # another, not better: withheld, no point published
    response = client.get(reverse("api-contamination-history"), {"benchmark": "mobile-mmlu"})
    series = response.json()
    assert [p["mean_delta"] for p in series] == [-2.5, 3.5]  # day 1: a only; day 3: mean(+3.5, +3.5)
    assert [p["models"] for p in series] == [1, 2]
    model = client.get(reverse("api-contamination-model", args=["org/a"])).json()
    assert [p["delta"] for p in model["history"]] == [-2.5, 3.5]
    assert len(model["latest"]) == 1 and model["latest"][0]["delta"] == 3.5


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
    # Changed on purpose (was SE 1.98, CI -78.9 to -71.1, z -37.95, then Δ -75.0 from a 0.1-point test figure):
    # the stratified Agresti–Caffo SE is larger at a 100% validation score, the interval is Newcombe's (Wilson
    # limits), and the test figure (25%) is published on the 2-point grid of a 480-question split: 26.
    assert lines[1].startswith("'=cmd|evil,") and ",100.0,480,26.0,480,-74.0,2.3," in lines[1]
    assert ",true," in lines[1]
    assert lines[0].endswith(",computed_at,validation_reweighted,delta_unweighted,delta0_se,p_value,q_value")


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
