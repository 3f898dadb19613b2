"""The board median per topic (the model page's "vs board median" column): PostgreSQL's PERCENTILE_CONT and the
read-and-sort fallback of other databases (the embedded SQLite default) give the same figures."""
import statistics

import pytest
from django.db import connection

from leaderboard.results.models import Level, ResultAggregate
from leaderboard.results.topic_medians import topic_medians

pytestmark = pytest.mark.django_db


def test_the_median_of_each_topic_over_the_given_runs(make_run, monkeypatch):
    runs = [make_run(f"org/m{i}", correct).pk for i, correct in enumerate((100, 240, 300, 410))]
    make_run("org/other", 480)  # not among the runs asked about
    medians = topic_medians(run_ids=runs)
    assert len(medians) == 80
    cells = ResultAggregate.objects.filter(level=Level.TOPIC, result__run__in=runs, n__gt=0)
    for key in {a.key for a in cells}:
        expected = statistics.median(100 * a.correct / a.n for a in cells if a.key == key)  # 4: mean of middle two
        assert medians[key] == pytest.approx(expected, abs=0.005), key
    monkeypatch.setattr(connection, "vendor", "sqlite")
    assert topic_medians(run_ids=runs) == medians


def test_the_sealed_split_is_refused(db):
    with pytest.raises(PermissionError) as refused:  # still one for the callers that catch it
        topic_medians(run_ids=[], split="test")
    assert (refused.value.code, refused.value.status) == ("SEALED_SPLIT", 404)
