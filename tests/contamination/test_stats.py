"""The monitor's statistics against values worked out by hand (ARCHITECTURE §6)."""
import math

import pytest

from leaderboard.contamination import stats


def test_delta_matches_the_hand_computation():
    # validation 300/400 = 0.75, test 260/400 = 0.65.
    # Changed on purpose (was the Wald SE 0.0322102 and Δ ± 1.96 SE): the SE is Agresti–Caffo's always, not only
    # when the Wald SE is 0, and the interval is Newcombe's hybrid score interval, which behave near 0 and 1.
    d = stats.delta_stats(300, 400, 260, 400)
    pv, pt = 301 / 402, 261 / 402  # one success and one failure added to each split
    se = math.sqrt(pv * (1 - pv) / 402 + pt * (1 - pt) / 402)  # = 0.0321627...
    assert d.delta == pytest.approx(-0.10)
    assert d.se == pytest.approx(0.0321627, abs=1e-6)
    assert d.se == pytest.approx(se)
    assert d.z == pytest.approx(-3.10920, abs=1e-4)
    assert d.flagged  # -z = 3.11 > 3
    # Newcombe: Wilson 95% limits 0.705323-0.789921 (validation) and 0.602032-0.695114 (test);
    # L = Δ - √((0.65 - 0.602032)² + (0.789921 - 0.75)²), U = Δ + √((0.695114 - 0.65)² + (0.75 - 0.705323)²)
    assert stats.wilson(0.75, 400) == (pytest.approx(0.705323, abs=1e-6), pytest.approx(0.789921, abs=1e-6))
    assert stats.wilson(0.65, 400) == (pytest.approx(0.602032, abs=1e-6), pytest.approx(0.695114, abs=1e-6))
    assert (d.ci95_low, d.ci95_high) == (pytest.approx(-0.162407, abs=1e-5), pytest.approx(-0.036507, abs=1e-5))


def test_delta0_shifts_the_test_and_can_clear_the_flag():
    d = stats.delta_stats(300, 400, 260, 400, delta0=-0.02)
    assert d.z == pytest.approx(-2.48736, abs=1e-4)  # -0.08 / 0.0321627
    assert not d.flagged


def test_the_uncertainty_of_delta0_widens_the_z():
    d = stats.delta_stats(300, 400, 260, 400, delta0=0.0, delta0_se=0.01)
    assert d.se_z == pytest.approx(math.sqrt(0.0321627 ** 2 + 0.01 ** 2), abs=1e-6)
    assert d.z == pytest.approx(-0.1 / d.se_z) and d.z == pytest.approx(-2.96907, abs=1e-4)
    assert not d.flagged  # the same Δ with δ₀ known exactly was flagged


def test_a_test_score_above_validation_is_never_flagged():
    assert not stats.delta_stats(100, 400, 300, 400).flagged


def test_it_handles_proportions_of_zero_and_one():
    # The Agresti–Caffo SE (p~v = 7/8, p~t = 1/8 on n = 8) is the SE now, not a fallback behind a Wald SE of 0.
    d = stats.delta_stats(6, 6, 0, 6)
    assert d.delta == -1
    assert d.se == pytest.approx(math.sqrt(2 * (7 / 8) * (1 / 8) / 8), abs=1e-9)
    assert d.z == pytest.approx(-1 / math.sqrt(2 * (7 / 8) * (1 / 8) / 8), abs=1e-9)
    assert d.flagged
    assert d.ci95_low == pytest.approx(-1.0) and -1 < d.ci95_high < 0  # Newcombe stays inside [-1, 1]


def test_holm_steps_down_where_bonferroni_stops():
    p = [0.01, 0.015, 0.3, 0.02]
    adjusted, rejected = stats.holm(p)
    # sorted: 0.01*4 = 0.04; 0.015*3 = 0.045; 0.02*2 = 0.04 -> running max 0.045; 0.3*1 = 0.3
    assert adjusted == pytest.approx([0.04, 0.045, 0.3, 0.045])
    assert rejected == [True, True, False, True]
    assert [min(1, 4 * x) <= 0.05 for x in p] == [True, False, False, False]  # Bonferroni: one only


def test_holm_adjusted_values_never_decrease_along_the_order():
    adjusted, rejected = stats.holm([0.005, 0.04, 0.03, 0.01])
    assert adjusted == pytest.approx([0.02, 0.06, 0.06, 0.03])
    assert rejected == [True, False, False, True]


def _pair(n, gains, losses):
    shown = {f"q{i}": False for i in range(n)}
    candidate = dict(shown)
    for i in range(gains):
        candidate[f"q{i}"] = True
    for i in range(gains, gains + losses):
        shown[f"q{i}"] = True
    return shown, candidate


def test_ladder_moves_on_a_clear_paired_gain():
    # 8 gains, 2 losses, 90 ties: mean 0.06; s = sqrt(9.64 / 99) = 0.312047; s/sqrt(100) = 0.0312047
    decision = stats.ladder(*_pair(100, 8, 2))
    assert decision.n == 100
    assert decision.mean_diff == pytest.approx(0.06)
    assert decision.sd == pytest.approx(0.312047, abs=1e-6)
    assert decision.threshold == pytest.approx(0.0312047, abs=1e-7)
    assert decision.moves


def test_ladder_keeps_the_shown_score_on_a_small_gain():
    # 4 gains, 2 losses: mean 0.02; s = sqrt(5.96 / 99) = 0.245361; threshold 0.0245361 > 0.02
    decision = stats.ladder(*_pair(100, 4, 2))
    assert decision.mean_diff == pytest.approx(0.02)
    assert decision.threshold == pytest.approx(0.0245361, abs=1e-7)
    assert not decision.moves


def test_ladder_pairs_only_shared_questions():
    shown = {"a": False, "b": False, "c": True}
    candidate = {"a": True, "b": True, "z": True}
    decision = stats.ladder(shown, candidate)
    assert decision.n == 2 and decision.mean_diff == 1.0 and decision.sd == 0.0 and decision.moves


def test_two_proportion_z_of_the_probe_excess():
    # 30/100 vs 10/100: pooled 0.2; se = sqrt(0.2*0.8*0.02) = 0.056569; z = 0.2 / se = 3.5355
    assert stats.two_proportion_z(30, 100, 10, 100) == pytest.approx(3.535534, abs=1e-5)
