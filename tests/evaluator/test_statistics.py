"""evaluator.statistics against scipy (and, where scipy has no counterpart, against the definition computed
another way), on random inputs and on the edges: counts of 0 and n, n = 1, tiny p-values. Plus values worked
out by hand."""
import math

import numpy as np
import pytest

from evaluator import statistics as st

# The dev environment has scipy (requirements/dev.lock); the vLLM one, which collects every module, does not.
sp = pytest.importorskip("scipy.stats")

REL = 1e-9
TINY = 1e-15  # the absolute slack for values that are 0 in exact arithmetic


def close(expected, rel=REL, abs=TINY):
    return pytest.approx(expected, rel=rel, abs=abs)


def _counts(rng, size, n_max=5000):
    """(correct, n) pairs: random ones and the edges 0, n, n = 1."""
    pairs = [(0, 1), (1, 1), (0, 2), (2, 2), (1, 2), (0, 10_000), (10_000, 10_000), (1, 10_000), (9_999, 10_000)]
    for _ in range(size):
        n = int(rng.integers(1, n_max))
        pairs.append((int(rng.integers(0, n + 1)), n))
    return pairs


# --- the normal distribution ---------------------------------------------------------------------------------

def test_z95_is_the_normal_quantile():
    assert st.Z95 == close(sp.norm.ppf(0.975), rel=1e-15)


def test_normal_cdf_matches_scipy_into_the_far_tails():
    rng = np.random.default_rng(1)
    xs = [*rng.uniform(-37, 9, 2000), -37.0, -30.0, -10.0, -3.0, -1e-9, 0.0, 1e-9, 3.0, 8.0, 40.0]
    for x in xs:
        assert st.normal_cdf(float(x)) == close(sp.norm.cdf(x), abs=0.0), x


# --- proportions -----------------------------------------------------------------------------------------------

def test_wilson_interval_matches_scipy():
    for correct, n in _counts(np.random.default_rng(2), 1500):
        ci = sp.binomtest(correct, n).proportion_ci(method="wilson")
        assert st.wilson_interval(correct, n) == (close(ci.low), close(ci.high)), (correct, n)


def test_wilson_interval_at_other_levels_matches_scipy():
    rng = np.random.default_rng(3)
    for correct, n in _counts(rng, 300):
        level = float(rng.uniform(0.5, 0.999999))
        ci = sp.binomtest(correct, n).proportion_ci(confidence_level=level, method="wilson")
        z = sp.norm.ppf(0.5 + level / 2)
        assert st.wilson_interval(correct, n, z) == (close(ci.low), close(ci.high)), (correct, n, level)


def test_wilson_of_a_fractional_n_solves_its_quadratic():
    # The Wilson limits are the roots of (p − π)² = z² π(1 − π) / n; numpy solves it here for an effective n.
    rng = np.random.default_rng(4)
    for _ in range(500):
        n, p = float(rng.uniform(0.5, 3000)), float(rng.uniform(0, 1))
        k = st.Z95 ** 2 / n
        roots = sorted(np.roots([1 + k, -(2 * p + k), p * p]).real)
        assert st.wilson(p, n) == (close(max(0.0, roots[0]), abs=1e-12), close(min(1.0, roots[1]), abs=1e-12))
    assert st.wilson(0.3, 0) == st.wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_by_hand():
    lo, hi = st.wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert st.wilson_interval(0, 10)[0] == pytest.approx(0.0, abs=1e-12)
    assert st.wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_agresti_caffo_variance_is_the_binomial_variance_with_two_added_trials():
    for correct, n in _counts(np.random.default_rng(5), 500):
        adjusted = (correct + 1) / (n + 2)
        expected = sp.binom(n + 2, adjusted).var() / (n + 2) ** 2
        assert st.agresti_caffo_var(correct / n, n) == close(expected), (correct, n)


def test_newcombe_is_built_from_scipys_wilson_limits():
    rng = np.random.default_rng(6)
    pairs = _counts(rng, 400)
    for (x1, n1), (x2, n2) in zip(pairs, reversed(pairs)):
        a = sp.binomtest(x1, n1).proportion_ci(method="wilson")
        b = sp.binomtest(x2, n2).proportion_ci(method="wilson")
        p1, p2 = x1 / n1, x2 / n2
        low = p1 - p2 - math.hypot(p1 - a.low, b.high - p2)
        high = p1 - p2 + math.hypot(a.high - p1, p2 - b.low)
        assert st.newcombe(p1, n1, p2, n2) == (close(low, abs=1e-12), close(high, abs=1e-12)), (x1, n1, x2, n2)


def test_two_proportion_z_squared_is_pearsons_chi_square():
    rng = np.random.default_rng(7)
    pairs = _counts(rng, 600)
    for (x1, n1), (x2, n2) in zip(pairs, reversed(pairs)):
        z = st.two_proportion_z(x1, n1, x2, n2)
        if x1 + x2 in (0, n1 + n2):  # both 0% or both 100%: no spread, z is 0 by convention
            assert z == 0.0
            continue
        chi2, p_value = sp.chi2_contingency([[x1, n1 - x1], [x2, n2 - x2]], correction=False)[:2]
        assert z * z == close(chi2), (x1, n1, x2, n2)
        assert math.copysign(1, z) == math.copysign(1, x1 / n1 - x2 / n2) or z == 0
        assert 2 * sp.norm.sf(abs(z)) == close(p_value, abs=1e-300)
    assert st.two_proportion_z(1, 0, 1, 2) is None and st.two_proportion_z(1, 2, 0, 0) is None


def test_two_proportion_z_of_the_probe_excess():
    # 30/100 vs 10/100: pooled 0.2; se = sqrt(0.2*0.8*0.02) = 0.056569; z = 0.2 / se = 3.5355
    assert st.two_proportion_z(30, 100, 10, 100) == pytest.approx(3.535534, abs=1e-5)


def test_binomial_upper_matches_scipy():
    rng = np.random.default_rng(9)
    cases = [(0, 1, 0.5), (1, 1, 0.5), (24, 24, 0.66875), (22, 24, 0.66875), (0, 24, 0.3), (5, 5, 0.0),
             (5, 5, 1.0), (0, 5, 1.0), (1, 10_000, 1e-6), (10_000, 10_000, 0.25), (3, 3000, 0.5)]
    for _ in range(400):
        n = int(rng.integers(1, 3000))
        cases.append((int(rng.integers(0, n + 1)), n, float(rng.uniform(0.001, 0.999))))
    for x, n, p in cases:
        expected = sp.binom.sf(x - 1, n, p)
        assert st.binomial_upper(x, n, p) == close(expected, rel=1e-8, abs=1e-14), (x, n, p)


def test_binomial_upper_by_hand():
    assert st.binomial_upper(24, 24, 0.5) == pytest.approx(0.5 ** 24)
    assert st.binomial_upper(1, 2, 0.5) == pytest.approx(0.75)  # 1 − P(X = 0) = 1 − 1/4
    assert st.binomial_upper(0, 7, 0.2) == 1.0 and st.binomial_upper(8, 7, 0.2) == 0.0


# --- multiplicity ------------------------------------------------------------------------------------------------

def _families(rng, size):
    """Families of p-values: uniform, tiny (down to 1e-300), tied, containing 1, and single ones."""
    families = [[0.05], [1e-300], [1.0], [0.01, 0.01, 0.01], [0.0, 1.0], [1e-300, 1e-200, 0.5, 0.5, 1.0]]
    for _ in range(size):
        m = int(rng.integers(1, 60))
        p = rng.uniform(0, 1, m)
        tiny = rng.uniform(size=m) < 0.3
        p[tiny] = 10.0 ** -rng.uniform(0, 300, int(tiny.sum()))
        if m > 2 and rng.uniform() < 0.3:
            p[1] = p[0]  # a tie
        families.append([float(v) for v in p])
    return families


def _holm_by_definition(p, alpha):
    """The step-down procedure itself: reject the sorted hypotheses while p_(j) ≤ alpha / (m − j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    rejected = [False] * m
    for rank, i in enumerate(order):
        if p[i] > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


def test_holm_matches_its_definition():
    rng = np.random.default_rng(9)
    for p in _families(rng, 400):
        order = np.argsort(p, kind="stable")
        sorted_p = np.asarray(p)[order]
        expected = np.empty(len(p))
        expected[order] = np.maximum.accumulate(np.minimum(1.0, (len(p) - np.arange(len(p))) * sorted_p))
        adjusted, _ = st.holm(p)
        assert adjusted == close(list(expected), abs=0.0)
        for alpha in (0.001, 0.01, 0.05, 0.2):
            assert st.holm(p, alpha)[1] == _holm_by_definition(p, alpha), (p, alpha)
    assert st.holm([]) == ([], [])


def test_holm_steps_down_where_bonferroni_stops():
    p = [0.01, 0.015, 0.3, 0.02]
    adjusted, rejected = st.holm(p)
    # sorted: 0.01*4 = 0.04; 0.015*3 = 0.045; 0.02*2 = 0.04 -> running max 0.045; 0.3*1 = 0.3
    assert adjusted == pytest.approx([0.04, 0.045, 0.3, 0.045])
    assert rejected == [True, True, False, True]
    assert [min(1, 4 * x) <= 0.05 for x in p] == [True, False, False, False]  # Bonferroni: one only


def test_holm_adjusted_values_never_decrease_along_the_order():
    adjusted, rejected = st.holm([0.005, 0.04, 0.03, 0.01])
    assert adjusted == pytest.approx([0.02, 0.06, 0.06, 0.03])
    assert rejected == [True, False, False, True]


def test_benjamini_hochberg_matches_scipy():
    for p in _families(np.random.default_rng(10), 400):
        expected = sp.false_discovery_control(p, method="bh")
        assert st.benjamini_hochberg(p) == close(list(expected), abs=0.0), p
    assert st.benjamini_hochberg([]) == []


def test_benjamini_hochberg_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04: m p / rank = 0.02, 0.02, 0.04, 0.04; then the running minimum from the top
    assert st.benjamini_hochberg(p) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert st.benjamini_hochberg([0.2, 0.9]) == pytest.approx([0.4, 0.9])


# --- means and paired scores ---------------------------------------------------------------------------------------

def test_t975_matches_scipy_to_its_table():
    # A 4-decimal table up to df 30, then a two-term Cornish–Fisher expansion: close to, not equal to, scipy.
    for df in range(1, 31):
        assert st.t975(df) == pytest.approx(sp.t.ppf(0.975, df), abs=5e-5), df
    for df in (31, 40, 60, 100, 1000, 10 ** 6):
        assert st.t975(df) == pytest.approx(sp.t.ppf(0.975, df), rel=5e-5, abs=0), df
    assert st.t975(10 ** 12) == close(st.Z95, rel=1e-9) and st.t975(0) == math.inf


def test_mean_ci_matches_numpy_and_its_t_quantile():
    rng = np.random.default_rng(11)
    for _ in range(300):
        values = [float(v) for v in rng.normal(rng.uniform(-5, 5), rng.uniform(0.01, 3), int(rng.integers(2, 200)))]
        block = st.mean_ci(values)
        n, mean, sd = len(values), float(np.mean(values)), float(np.std(values, ddof=1))
        assert (block["n"], block["mean"], block["sd"]) == (n, close(mean, abs=1e-12), close(sd))
        half = st.t975(n - 1) * sd / math.sqrt(n)
        assert block["ci95"] == [close(mean - half, abs=1e-12), close(mean + half, abs=1e-12)]
        scipy_half = sp.t.ppf(0.975, n - 1) * sp.sem(values)
        assert block["ci95"][1] - mean == pytest.approx(scipy_half, rel=5e-5)  # t975's table precision
    assert st.mean_ci([]) == {"n": 0, "mean": None, "sd": None, "ci95": [None, None]}
    assert st.mean_ci([4.0]) == {"n": 1, "mean": 4.0, "sd": None, "ci95": [None, None]}
    assert st.mean_ci([2.0, 2.0])["ci95"] == [2.0, 2.0]


def _pair(n, gains, losses):
    shown = {f"q{i}": False for i in range(n)}
    candidate = dict(shown)
    for i in range(gains):
        candidate[f"q{i}"] = True
    for i in range(gains, gains + losses):
        shown[f"q{i}"] = True
    return shown, candidate


def test_the_ladder_is_a_paired_t_statistic_above_one():
    rng = np.random.default_rng(12)
    for _ in range(400):
        n = int(rng.integers(2, 600))
        before, after = rng.uniform(size=n) < rng.uniform(), rng.uniform(size=n) < rng.uniform()
        extra = {f"only{i}": True for i in range(int(rng.integers(0, 3)))}  # unshared questions are ignored
        shown = {f"q{i}": bool(v) for i, v in enumerate(before)} | extra
        candidate = {f"q{i}": bool(v) for i, v in enumerate(after)}
        decision = st.ladder(shown, candidate)
        diffs = after.astype(int) - before.astype(int)
        assert decision.n == n and decision.mean_diff == close(float(diffs.mean()))
        assert decision.sd == close(float(np.std(diffs, ddof=1)))
        if decision.sd == 0:
            assert decision.moves == (decision.mean_diff > 0)
            continue
        t = sp.ttest_rel(after.astype(float), before.astype(float))[0]
        assert decision.mean_diff / decision.threshold == close(float(t), abs=1e-12)
        assert decision.moves == (decision.mean_diff > decision.threshold)


def test_ladder_moves_on_a_clear_paired_gain():
    # 8 gains, 2 losses, 90 ties: mean 0.06; s = sqrt(9.64 / 99) = 0.312047; s/sqrt(100) = 0.0312047
    decision = st.ladder(*_pair(100, 8, 2))
    assert decision.n == 100
    assert decision.mean_diff == pytest.approx(0.06)
    assert decision.sd == pytest.approx(0.312047, abs=1e-6)
    assert decision.threshold == pytest.approx(0.0312047, abs=1e-7)
    assert decision.moves


def test_ladder_keeps_the_shown_score_on_a_small_gain():
    # 4 gains, 2 losses: mean 0.02; s = sqrt(5.96 / 99) = 0.245361; threshold 0.0245361 > 0.02
    decision = st.ladder(*_pair(100, 4, 2))
    assert decision.mean_diff == pytest.approx(0.02)
    assert decision.threshold == pytest.approx(0.0245361, abs=1e-7)
    assert not decision.moves


def test_ladder_pairs_only_shared_questions():
    shown = {"a": False, "b": False, "c": True}
    candidate = {"a": True, "b": True, "z": True}
    decision = st.ladder(shown, candidate)
    assert decision.n == 2 and decision.mean_diff == 1.0 and decision.sd == 0.0 and decision.moves
    assert not st.ladder({"a": False}, {"a": True}).moves  # one shared question decides nothing


# --- rank correlation ------------------------------------------------------------------------------------------

def test_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(13)
    for _ in range(300):
        n = int(rng.integers(4, 80))
        xs = rng.integers(0, int(rng.integers(2, 30)), n).astype(float)  # few levels: many ties
        ys = xs + rng.normal(0, rng.uniform(0.1, 20), n)
        result = st.spearman(list(xs), list(ys))
        rho = sp.spearmanr(xs, ys)[0]
        if np.isnan(rho):  # a constant side
            assert result["rho"] is None
            continue
        assert result["rho"] == close(float(rho), abs=1e-12)
        if abs(rho) < 1:
            se, z = math.sqrt(1.06 / (n - 3)), math.atanh(result["rho"])
            q = sp.norm.ppf(0.975)
            assert result["ci95"] == [close(math.tanh(z - q * se)), close(math.tanh(z + q * se))]
    assert st.spearman([1, 2], [1, 2])["rho"] is None
    with pytest.raises(ValueError):
        st.spearman([1, 2, 3], [1, 2])


def test_newcombe_paired_gives_the_books_worked_example():
    # Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables" (2017), ch. 8: complete response
    # before and after consolidation therapy (Cavo et al., 2012), table 59/6/16/80: estimate -0.0621,
    # Newcombe's square-and-add interval -0.1186 to -0.0046 (also the R package contingencytables' test).
    low, high = st.newcombe_paired(59, 6, 16, 80)
    assert (6 - 16) / 161 == pytest.approx(-0.0621, abs=5e-5)
    assert (low, high) == (pytest.approx(-0.1186, abs=5e-5), pytest.approx(-0.0046, abs=5e-5))


def test_newcombe_paired_is_the_unpaired_interval_without_correlation_and_never_a_point():
    # ad = bc: φ = 0, so the paired interval is the two Wilson intervals added in squares, as `newcombe`.
    assert st.newcombe_paired(10, 5, 10, 5) == close(st.newcombe(15 / 30, 30, 20 / 30, 30))
    # No question changed: the estimate is 0, but the interval still has width (a Wald interval would be [0, 0]).
    low, high = st.newcombe_paired(40, 0, 0, 60)
    assert low < 0 < high and high == close(-low)
    # A large table: close to the paired Wald interval (b - c)/n ± z·√((b + c) − (b − c)²/n)/n.
    a, b, c, d = 6000, 300, 500, 3200
    n = a + b + c + d
    half = st.Z95 * math.sqrt((b + c) - (b - c) ** 2 / n) / n
    low, high = st.newcombe_paired(a, b, c, d)
    assert low == pytest.approx((b - c) / n - half, abs=5e-4) and high == pytest.approx((b - c) / n + half, abs=5e-4)
