"""The mobile-vs-general computation on known data (pure: no database)."""
from datetime import datetime, timezone

import pytest

from leaderboard.boards.rank_comparison import competition_ranks, correlation, pair, sort_pairs


def row(hub_id, accuracy, *, rank=None, flagged=False, precision="bfloat16", scored=1, run_id=None):
    return {"hub_id": hub_id, "precision": precision, "accuracy": accuracy, "ci95_low": accuracy - 3,
            "ci95_high": accuracy + 3, "rank": rank, "flagged": flagged, "run_id": run_id,
            "scored_at": datetime(2026, 1, scored, tzinfo=timezone.utc)}


MOBILE = [row("a/one", 90.0), row("a/two", 80.0), row("a/three", 70.0), row("a/four", 60.0), row("a/five", 50.0)]
GENERAL = [row("a/one", 85.0), row("a/two", 75.0), row("a/three", 80.0), row("a/four", 55.0), row("a/five", 40.0)]


def test_ties_share_the_best_place():
    assert competition_ranks([70.0, 90.0, 70.0, 50.0]) == [2, 1, 2, 4]
    assert competition_ranks([]) == []


def test_it_pairs_models_and_says_who_does_better_on_mobile_knowledge():
    pairs = {p["hub_id"]: p for p in pair(MOBILE + [row("only/mobile", 99.0)], GENERAL + [row("only/general", 1.0)])}
    assert set(pairs) == {"a/one", "a/two", "a/three", "a/four", "a/five"}  # measured on both only
    assert [pairs[h]["mobile_rank"] for h in ("a/one", "a/two", "a/three")] == [1, 2, 3]
    assert [pairs[h]["general_rank"] for h in ("a/one", "a/two", "a/three")] == [1, 3, 2]
    assert pairs["a/two"]["rank_change"] == 1  # 2nd on mobile, 3rd on general: a mobile specialist
    assert pairs["a/three"]["rank_change"] == -1
    assert pairs["a/one"]["mobile_ci95_low"] == 87.0 and pairs["a/one"]["general_accuracy"] == 85.0


def test_spearman_with_its_interval_on_known_values():
    # Ranks differ by one place for two models: rho = 1 - 6·2 / (5·24) = 0.9; Fisher z with SE sqrt(1.06 / 2).
    result = correlation(pair(MOBILE, GENERAL))
    assert result["n"] == 5 and result["rho"] == pytest.approx(0.9)
    assert result["ci95_low"] == pytest.approx(0.045313, abs=1e-6)
    assert result["ci95_high"] == pytest.approx(0.993952, abs=1e-6)
    assert "Fisher" in result["method"] and "Fieller" in result["method"]


def test_published_ties_stay_ties():
    """Two models published at the same figure (a sealed grid point) share a place and an average rank."""
    mobile = [row("m/a", 10.0), row("m/b", 20.0), row("m/c", 20.0), row("m/d", 30.0)]
    general = [row("m/a", 1.0), row("m/b", 2.0), row("m/c", 3.0), row("m/d", 4.0)]
    pairs = {p["hub_id"]: p for p in pair(mobile, general)}
    assert pairs["m/b"]["mobile_rank"] == pairs["m/c"]["mobile_rank"] == 2
    assert correlation(list(pairs.values()))["rho"] == pytest.approx(4.5 / 22.5 ** 0.5)  # scipy: 0.9486833


def test_too_few_models_have_no_correlation():
    result = correlation(pair(MOBILE[:2], GENERAL[:2]))
    assert result["n"] == 2 and result["rho"] is None and result["ci95_low"] is None


def test_a_models_newest_row_stands_for_it_and_a_flag_on_either_board_marks_the_pair():
    mobile = [row("x/m", 40.0, scored=1), row("x/m", 60.0, scored=2, flagged=True), row("X/M", 50.0, precision="int8")]
    pairs = pair(mobile, [row("x/m", 30.0), row("x/m", 20.0, precision="int8")])
    by_precision = {p["precision"]: p for p in pairs}
    assert by_precision["bfloat16"]["mobile_accuracy"] == 60.0 and by_precision["bfloat16"]["flagged"]
    assert by_precision["int8"]["mobile_accuracy"] == 50.0 and not by_precision["int8"]["flagged"]


def test_sorting():
    pairs = pair(MOBILE, GENERAL)
    assert [p["hub_id"] for p in sort_pairs(pairs, "-rank_change")][:1] == ["a/two"]
    assert [p["general_rank"] for p in sort_pairs(pairs, "general_rank")] == [1, 2, 3, 4, 5]
    assert [p["hub_id"] for p in sort_pairs(pairs, "name")][0] == "a/five"
