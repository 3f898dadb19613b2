"""Per-topic evidence that neither leaks nor cries wolf (stats.topic_evidence): Fisher's exact one-sided test per
unit with Holm, small topics pooled into their subcategory or category, and a unit named only when several test
counts would name it. Plus the pieces of the board's flag: Benjamini–Hochberg, δ₀ from reference models and the
reweighting, against values worked out by hand."""
import math

import pytest

from leaderboard.benchmarks.models import Benchmark
from leaderboard.contamination import selectors, stats

np = pytest.importorskip("numpy")

# The shape of the Mobile-MMLU taxonomy: topics per subcategory, subcategories per category (80, 27, 9).
SUBCATEGORIES = [[3, 2, 2, 4, 4], [4, 3, 4], [2, 3, 2, 2], [1, 1], [3, 4], [3, 3, 4], [4, 5, 4, 4], [2], [3, 2, 2]]


def _taxonomy():
    tree, names = {}, {}
    for c, subs in enumerate(SUBCATEGORIES):
        for s, k in enumerate(subs):
            for i in range(k):
                slug = f"t{c}-{s}-{i}"
                tree[slug], names[slug] = (f"c{c}/s{s}", f"Sub {c}.{s}", f"c{c}", f"Cat {c}"), f"Topic {slug}"
    return tree, names


def test_small_topics_are_pooled_by_subcategory_then_category():
    tree = {"a": ("c/s", "S", "c", "C"), "b": ("c/s", "S", "c", "C"), "d": ("c/u", "U", "c", "C"),
            "e": ("c/v", "V", "c", "C"), "big": ("c/w", "W", "c", "C"), "lone": ("k/x", "X", "k", "K")}
    sizes = {"a": 10, "b": 10, "d": 12, "e": 9, "big": 40, "lone": 5}
    units, left_out = stats.pool_units(sorted(sizes), {}, tree, lambda m: sum(sizes[t] for t in m) >= 20)
    assert [(u.key, u.level, u.members) for u in units] == [
        ("big", "topic", ("big",)), ("c/s", "subcategory", ("a", "b")), ("c", "category", ("d", "e"))]
    assert units[1].name == "S (2 topics pooled)"
    assert left_out == ["lone"]  # too small even with its whole category


def test_the_units_depend_on_the_question_counts_only():
    tree, names = _taxonomy()
    rng = np.random.default_rng(5)
    shapes = set()
    for _ in range(20):
        counts = {t: (int(rng.integers(0, 7)), 6, int(rng.integers(0, 7)), 6) for t in tree}
        ev = stats.topic_evidence(counts, names, tree)
        shapes.add((ev.tested, ev.pooled, ev.untested))
    # 6 + 6 questions: no topic alone (6/6 vs 0/6 gives 1/924 > 0.05/80); subcategories of 3 or more pooled
    # (18 + 18); two-topic subcategories go on to their category; a category of two single topics stays out.
    assert shapes == {(20, 76, 4)}


def _clean_naming_rate(sizes_v, sizes_t, tree, names, models, seed):
    rng = np.random.default_rng(seed)
    topics = sorted(tree)
    n_v, n_t = np.array([sizes_v[t] for t in topics]), np.array([sizes_t[t] for t in topics])
    named = 0
    for _ in range(models):
        base = rng.uniform(0.3, 0.9)
        accuracy = 1 / (1 + np.exp(-(math.log(base / (1 - base)) + rng.normal(0, 0.8, len(topics)))))
        x_v, x_t = rng.binomial(n_v, accuracy), rng.binomial(n_t, accuracy)
        counts = {t: (int(a), int(b), int(c), int(d)) for t, a, b, c, d in zip(topics, x_v, n_v, x_t, n_t)}
        named += bool(stats.topic_evidence(counts, names, tree).named)
    return named / models


@pytest.mark.django_db
def test_clean_models_rarely_have_a_unit_named_at_the_demo_split_sizes(questions):
    """The demo bank: 80 topics of 6 validation and 6 test questions each, in the Mobile-MMLU taxonomy. Measured:
    0.55% of 2,000 clean models have a unit named (nominal 5%); the old Wald z per topic named one for about 43%."""
    tree = selectors.topic_tree(benchmark=Benchmark.objects.get(slug="mobile-mmlu"))
    sizes = {split: {} for split in questions}
    for split, rows in questions.items():
        for _, _, slug in rows:
            sizes[split][slug] = sizes[split].get(slug, 0) + 1
    assert len(sizes["test"]) == 80 and set(sizes["test"].values()) == {6}
    tree = {t: tree[t] for t in sizes["test"]}
    rate = _clean_naming_rate(sizes["validation"], sizes["test"], tree, {}, models=2000, seed=11)
    assert rate <= 0.05, rate


def test_clean_models_rarely_have_a_unit_named_at_full_size():
    """80 topics of 60 to 160 questions per split (the full Mobile-MMLU averages about 200 questions a topic):
    every topic is its own unit. Measured: 2.75% of 2,000 clean models (nominal 5%; the old Wald z: about 7%)."""
    tree, names = _taxonomy()
    rng = np.random.default_rng(12)
    sizes_v = {t: int(rng.integers(60, 161)) for t in tree}
    sizes_t = {t: int(rng.integers(60, 161)) for t in tree}
    counts = {t: (0, sizes_v[t], 0, sizes_t[t]) for t in tree}
    assert stats.topic_evidence(counts, names, tree).tested == 80
    rate = _clean_naming_rate(sizes_v, sizes_t, tree, names, models=2000, seed=13)
    assert rate <= 0.05, rate


def test_a_named_unit_is_consistent_with_several_test_counts():
    """Naming a unit must not pin its sealed count: with everything else as it is, at least MIN_NAMED_COUNTS
    test counts of that unit would have named it too."""
    tree, names = _taxonomy()
    rng = np.random.default_rng(21)
    topics = sorted(tree)
    checked = 0
    for _ in range(60):
        sizes = rng.integers(4, 40, len(topics))
        base = rng.uniform(0.4, 0.9)
        x_v = rng.binomial(sizes, min(1.0, base + 0.1))
        x_t = rng.binomial(sizes, np.clip(base - rng.uniform(0, 0.5, len(topics)), 0, 1))  # gaps of all sizes
        counts = {t: (int(a), int(n), int(b), int(n)) for t, a, b, n in zip(topics, x_v, x_t, sizes)}
        for unit in stats.topic_evidence(counts, names, tree).named:
            n_t = sum(counts[t][3] for t in unit.members)
            still_named = 0
            for total in range(n_t + 1):
                moved, left = dict(counts), total
                for t in unit.members:  # the same unit total, spread over its topics
                    c_v, n_v, _, n = counts[t]
                    moved[t] = (c_v, n_v, min(n, left), n)
                    left -= min(n, left)
                still_named += unit in stats.topic_evidence(moved, names, tree).named
                if still_named == stats.MIN_NAMED_COUNTS:
                    break
            assert still_named >= stats.MIN_NAMED_COUNTS, (unit, still_named)
            checked += 1
    assert checked >= 20  # the property was exercised


def test_the_q_value_of_one_model_among_others():
    # sorted 0.005, 0.01, 0.03, 0.04: m p / rank = 0.02, 0.02, 0.04, 0.04; then the running minimum from the top
    assert stats.bh_q_of(0.005, [0.01, 0.04, 0.03]) == pytest.approx(0.02)


def test_the_board_flag_needs_both_z_and_q():
    strong = stats.delta_from(0.80, 10_000, 0.75, 10_000)  # z about -8.5
    weak = stats.delta_from(0.70, 10_000, 0.6795, 10_000)  # z about -3.1
    assert strong.flagged and weak.flagged
    clean = [stats.delta_from(0.7, 10_000, 0.7, 10_000)] * 998
    verdicts = stats.board_judgement([strong, weak, *clean])
    assert verdicts[0][1] and not verdicts[1][1]  # among 1,000, z = -3.1 is not a discovery (q about 1)
    assert stats.board_judgement([weak])[0][1]  # alone it is


def test_delta0_from_reference_models():
    assert stats.delta0_from_reference([]) == (0.0, 0.0)
    assert stats.delta0_from_reference([(-0.01, 0.006)]) == (pytest.approx(-0.01), pytest.approx(0.006))
    refs = [(-0.02, 0.001), (0.0, 0.001), (-0.01, 0.001), (-0.03, 0.001)]
    mean, se = stats.delta0_from_reference(refs)
    # mean -0.015; s = √((0.005² + 0.015² + 0.005² + 0.015²)/3) = 0.0129099; s/√4 = 0.0064550
    assert mean == pytest.approx(-0.015) and se == pytest.approx(0.0064550, abs=1e-7)


def test_reweighting_with_equal_mixes_keeps_the_accuracy():
    rw = stats.reweight([(30, 40, 40), (10, 40, 40), (0, 0, 10), (5, 10, 0)])  # the last two carry no weight
    assert rw.accuracy == pytest.approx(0.5) and rw.n == 80 and rw.strata == 2
    p1, p2 = 31 / 42, 11 / 42
    assert rw.variance == pytest.approx(0.25 * p1 * (1 - p1) / 40 + 0.25 * p2 * (1 - p2) / 40)
    # Korn–Graubard's effective n for the interval: p(1-p)/Σ w² p_k(1-p_k)/n_k, at most n
    assert rw.n_effective == pytest.approx(min(80, 0.25 / (0.25 * 0.75 * 0.25 / 40 * 2)))
    assert stats.reweight([(0, 0, 5)]) is None


@pytest.mark.django_db
def test_the_methodology_page_states_the_rules_with_the_monitor_s_numbers(client):
    from django.urls import reverse

    page = client.get(reverse("about")).content.decode()
    for needle in ("Benjamini–Hochberg", f"q-value is below {stats.BH_Q}", "Fisher", "Holm", "Newcombe",
                   "Agresti–Caffo", f"fewer than {stats.MIN_STRATUM_N} validation questions",
                   f"least {stats.MIN_NAMED_COUNTS} different test counts", "reweighted to the test split"):
        assert needle in page, needle
