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
