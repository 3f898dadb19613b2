import pytest

from leaderboard.scoring import services as scoring
from leaderboard.results.models import Level, ResultAggregate, RunResult

pytestmark = pytest.mark.django_db


def test_it_writes_aggregates_per_level_and_variant(make_run):
    run = make_run("org/alpha", 300, variants=("original", "R1"), extra_correct={"R1": 240})
    result = RunResult.objects.get(run=run)
    aggs = ResultAggregate.objects.filter(result=result)
    overall = {a.variant: (a.n, a.correct) for a in aggs.filter(level=Level.OVERALL)}
    assert overall == {"original": (480, 300), "R1": (480, 240)}
    for level, count in ((Level.CATEGORY, 9), (Level.SUBCATEGORY, 27), (Level.TOPIC, 80)):
        cells = aggs.filter(level=level, variant="original")
        assert cells.count() == count
        assert sum(c.n for c in cells) == 480 and sum(c.correct for c in cells) == 300
    assert run.summary["overall"]["correct"] == 300


def test_it_is_idempotent(make_run):
    run = make_run("org/alpha", 300)

    def cells():
        return sorted(ResultAggregate.objects.filter(result__run=run).values_list("variant", "level", "key", "n",
                                                                                  "correct"))
    first = cells()
    scoring.run_score(run=run)  # a repeated scoring message: delete + insert, same rows
    assert cells() == first and RunResult.objects.filter(run=run).count() == 1
