"""Per-topic evidence that neither leaks nor cries wolf (stats.topic_evidence): for a model flagged overall, the
exact one-sided binomial test of each unit's validation count against the validation accuracy its published test
figure and δ₀ predict, Holm across units, small topics pooled into their subcategory or category by question
counts. Plus the pieces of the board's flag: Benjamini–Hochberg, δ₀ from reference models and the reweighting,
against values worked out by hand."""
import math

import pytest

from leaderboard.benchmarks.models import Benchmark
from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.contamination import selectors, stats
from leaderboard.contamination.models import DeltaPoint

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
        counts = {t: (int(rng.integers(0, 7)), 6, 6) for t in tree}
        expected = rng.choice([None, float(rng.uniform(0, 1))])
        ev = stats.topic_evidence(counts, names, tree, expected=expected)
        shapes.add((ev.tested, ev.pooled, ev.untested))
    # 6 validation questions a topic, 80 topics: a unit needs 11 (0.5^11 ≤ 0.05/80), so no topic stands alone;
    # every subcategory of two or more does (12 or more); the two single-topic subcategories of one category
    # are pooled into it: 25 subcategories and 1 category, all 80 topics pooled.
    assert stats.min_unit_n(80) == 11 and stats.min_unit_n(1024, 1.0) == 10
    assert shapes == {(26, 80, 0)}


def test_nothing_is_named_for_a_model_not_flagged():
    tree, names = _taxonomy()
    perfect = {t: (40, 40, 40) for t in tree}
    assert stats.topic_evidence(perfect, names, tree, expected=None).named == []
    assert len(stats.topic_evidence(perfect, names, tree, expected=0.5).named) == 80


def test_the_test_is_the_exact_binomial_against_the_expected_accuracy_with_holm():
    tree = {t: (f"c/{t}", t, "c", "C") for t in "abc"}
    # 30 questions each, expected 0.6: P(X ≥ 27) = 0.000313, P(X ≥ 24) = 0.0172, P(X ≥ 23) = 0.0435. Holm at
    # 0.05 over 3 units: 0.000313 ≤ 0.05/3, then 0.0172 ≤ 0.05/2 (Bonferroni's 0.05/3 would refuse it); 0.0435 is not.
    counts = {"a": (27, 30, 30), "b": (24, 30, 30), "c": (10, 30, 30)}
    ev = stats.topic_evidence(counts, {}, tree, expected=0.6)
    assert [u.key for u in ev.named] == ["a", "b"] and ev.tested == 3 and ev.expected == 0.6
    counts["b"] = (23, 30, 30)
    assert [u.key for u in stats.topic_evidence(counts, {}, tree, expected=0.6).named] == ["a"]
    assert stats.binomial_upper(27, 30, 0.6) == pytest.approx(0.000313, abs=1e-6)


def test_the_expected_validation_accuracy_is_the_published_figure_s_top_minus_delta0():
    figure = publish(316, 480)  # 66 on the 2-point grid: counts 312–321
    top = figure.counts()[-1] / 480
    assert top == pytest.approx(321 / 480)
    assert stats.expected_validation(top, -0.015) == pytest.approx(321 / 480 + 0.015)  # test harder: p_v higher
    assert stats.expected_validation(0.995, -0.02) == 1.0 and stats.expected_validation(0.01, 0.02) == 0.0


# --- the whole public path, by Monte-Carlo ---------------------------------------------------------------------

def _names(x_v, n_v, x_t, n_t, topics, tree):
    """What the board publishes for one model (alone on its board, so its q is its p: the most a board lets
    through): the flag from the reweighted validation and the published test figure, then the names."""
    sizes = {t: (int(a), int(b)) for t, a, b in zip(topics, n_v, n_t)}
    xs = dict(zip(topics, (int(v) for v in x_v)))
    groups = stats.strata(sizes, {}, tree)
    rw = stats.reweight([(sum(xs[t] for t in g), sum(sizes[t][0] for t in g), sum(sizes[t][1] for t in g))
                         for g in groups])
    total = int(sum(n_t))
    figure = publish(int(sum(x_t)), total)
    d = stats.delta_from(rw.accuracy, rw.n, figure.fraction, total, var_v=rw.variance,
                         n_v_effective=rw.n_effective, var_rounding=figure.rounding_variance)
    expected = stats.expected_validation(figure.counts()[-1] / total, 0.0) if d.flagged else None
    validation = {t: (xs[t], sizes[t][0], sizes[t][1]) for t in topics}
    return d.flagged, stats.topic_evidence(validation, {}, tree, expected=expected)


def _models(rng, m, n_v, n_t, contaminated=None, test_at=None):
    """m models: topic accuracies spread around a base (logit sd 0.8), the same on both splits; where
    `contaminated` (a mask of topics) the validation answers were learned (all right); `test_at`: the test
    accuracy instead (chance for a memorizer)."""
    for _ in range(m):
        base = rng.uniform(0.3, 0.9)
        accuracy = 1 / (1 + np.exp(-(math.log(base / (1 - base)) + rng.normal(0, 0.8, len(n_v)))))
        on_validation = accuracy if contaminated is None else np.where(contaminated, 1.0, accuracy)
        yield rng.binomial(n_v, on_validation), rng.binomial(n_t, accuracy if test_at is None else test_at)


def _sizes(kind, topics, rng):
    if kind == "demo":
        return np.full(len(topics), 6), np.full(len(topics), 6)
    return rng.integers(60, 161, len(topics)), rng.integers(60, 161, len(topics))


@pytest.mark.parametrize("kind", ["demo", "full"])
def test_clean_models_are_almost_never_named(kind):
    """Clean models (the same topic accuracies on both splits): a unit is named only when the model is flagged
    overall, so the false-naming rate is at most the flag's error rate (−z > 3: 0.00135 for a model alone on its
    board). Measured over 2,000 clean models: at the demo's sizes (80 topics of 6 + 6) 0.1% flagged and none
    named; at full size (80 topics of 60 to 160 per split) 0.05% flagged and named (the old Fisher rule on exact
    per-topic counts named a unit for 0.55% and 2.75%)."""
    tree, _ = _taxonomy()
    topics = sorted(tree)
    rng = np.random.default_rng(11)
    n_v, n_t = _sizes(kind, topics, rng)
    named = [bool(_names(x_v, n_v, x_t, n_t, topics, tree)[1].named) for x_v, x_t in _models(rng, 2000, n_v, n_t)]
    assert np.mean(named) <= 0.005, np.mean(named)


@pytest.mark.parametrize("kind", ["demo", "full"])
def test_a_memorizer_has_every_unit_named(kind):
    """Validation all right, test at chance (25%): flagged, and every unit tested is named (at the demo's sizes
    26 units of 12 to 30 validation questions, at full size all 80 topics)."""
    tree, _ = _taxonomy()
    topics = sorted(tree)
    rng = np.random.default_rng(12)
    n_v, n_t = _sizes(kind, topics, rng)
    for x_v, x_t in _models(rng, 50, n_v, n_t, contaminated=np.full(len(topics), True), test_at=0.25):
        flagged, evidence = _names(x_v, n_v, x_t, n_t, topics, tree)
        assert flagged and len(evidence.named) == evidence.tested == (26 if kind == "demo" else 80)


def test_a_memorized_category_is_named_and_so_are_the_model_s_easiest_topics():
    """Full size, one category of 17 topics memorized on validation, the model's true level elsewhere: flagged,
    and its 17 topics are named. The names never read a per-topic test count, so a clean topic on which the model
    is much better than its average is named too: a name says that validation there is above what the published
    test figure predicts, which for a flagged model is where its excess shows. Measured over 400 such models:
    the memorized topics named 100%, the others 21% (the easy ones: topic accuracies spread by a logit sd of 0.8
    around the model's level)."""
    tree, _ = _taxonomy()
    topics = sorted(tree)
    rng = np.random.default_rng(13)
    n_v, n_t = _sizes("full", topics, rng)
    memorized = np.array([tree[t][2] == "c6" for t in topics])
    hits = {True: [], False: []}
    for x_v, x_t in _models(rng, 400, n_v, n_t, contaminated=memorized):
        flagged, evidence = _names(x_v, n_v, x_t, n_t, topics, tree)
        assert flagged
        named = {u.key for u in evidence.named}
        for t, seen in zip(topics, memorized):
            hits[bool(seen)].append(t in named)
    assert np.mean(hits[True]) >= 0.99 and np.mean(hits[False]) <= 0.3, (np.mean(hits[True]), np.mean(hits[False]))


@pytest.mark.django_db
def test_the_names_read_no_per_topic_test_count(make_run, questions):
    """Two points that differ only in where the sealed run's right answers fall (the same total, so the same
    published figure) publish the same per-topic evidence. The old rule named the units whose test count was low."""
    tree = selectors.topic_tree(benchmark=Benchmark.objects.get(slug="mobile-mmlu"))
    make_run("org/m", "validation", lambda i, uid, slug: True)
    make_run("org/m", "test", lambda i, uid, slug: tree[slug][2] != "lifestyle-personal")  # 102 wrong
    point = DeltaPoint.objects.get()
    rows = [selectors.board(benchmark=point.benchmark)]
    moved = dict(point.topic_counts)
    low = [t for t in moved if tree[t][2] == "lifestyle-personal"]
    high = [t for t in moved if tree[t][2] == "academic-learning"][:len(low)]
    for a, b in zip(low, high):  # swap the sealed counts of 15 topics with 15 others: the total stays
        moved[a], moved[b] = [*moved[a][:3], moved[b][3], moved[a][4]], [*moved[b][:3], moved[a][3], moved[b][4]]
    DeltaPoint.objects.filter(pk=point.pk).update(topic_counts=moved)
    rows.append(selectors.board(benchmark=point.benchmark))
    assert [r["topics"] for r in rows[0]] == [r["topics"] for r in rows[1]]
    assert rows[0][0]["flagged"] and rows[0][0]["topics"]["expected"] == 78.96  # 378 publishes 78: top 379 of 480


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
    for needle in ("Benjamini–Hochberg", f"q-value is below {stats.BH_Q}", "exact binomial test", "Holm",
                   "Newcombe", "Agresti–Caffo", f"fewer than {stats.MIN_STRATUM_N} validation questions",
                   "flagged overall", "no per-topic test count", "reweighted to the test split"):
        assert needle in page, needle
