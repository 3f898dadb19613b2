from leaderboard.results.ranking import significance_ranks, significantly_higher


def test_it_ranks_by_significance():
    # 90% vs 88% on n=100 is not significant; both are significantly above 50%.
    assert significance_ranks([(90, 100), (88, 100), (50, 100)]) == [1, 1, 3]


def test_it_separates_close_scores_with_large_n():
    assert significantly_higher(9000, 10000, 8800, 10000)
    assert significance_ranks([(9000, 10000), (8800, 10000), (8790, 10000)]) == [1, 2, 2]


def test_it_handles_degenerate_cells():
    assert not significantly_higher(0, 0, 5, 10)
    assert not significantly_higher(10, 10, 10, 10)
    assert significance_ranks([]) == []


def test_it_equals_every_pair_compared_with_mixed_sizes_and_fractional_counts():
    import random

    def pairwise(cells):
        return [1 + sum(significantly_higher(c, n, ci, ni) for c, n in cells) for ci, ni in cells]

    rng = random.Random(3)
    for _ in range(200):
        cells = []
        for _ in range(rng.randint(0, 40)):
            n = rng.choice([0, 5, 37, 100, 480])
            cells.append((rng.randint(0, n) if rng.random() < 0.8 else rng.random() * n, n))
        assert significance_ranks(cells) == pairwise(cells), cells
