"""The monitor's statistics against values worked out by hand (ARCHITECTURE §6); the general tests and
intervals it uses are checked in tests/evaluator/test_statistics.py."""
import math

import pytest

from evaluator import statistics
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
    assert statistics.wilson(0.75, 400) == (pytest.approx(0.705323, abs=1e-6), pytest.approx(0.789921, abs=1e-6))
    assert statistics.wilson(0.65, 400) == (pytest.approx(0.602032, abs=1e-6), pytest.approx(0.695114, abs=1e-6))
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
