"""The median accuracy of each topic over a board's models: one aggregate query over the board's topic rows (after
one read of their result ids), however many models and topics (the model page's "vs board median" column). Open
splits only."""
from django.db import connection
from django.db.models import Aggregate, FloatField
from django.db.models.functions import Cast

from leaderboard.core.errors import SealedSplitError
from leaderboard.evaluations import display

from .models import Level, ResultAggregate, RunResult


class _Median(Aggregate):
    """PostgreSQL's continuous median (the mean of the two middle values for an even count)."""

    function = "PERCENTILE_CONT"
    template = "%(function)s(0.5) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()


def _median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def topic_medians(*, run_ids, split="validation", variant="original") -> dict[str, float]:
    """topic slug -> the median, in percent (2 places), of the accuracies of the given runs' results on it."""
    if display.is_sealed(split):
        raise SealedSplitError(display.SEALED_BREAKDOWN_NOTE)
    # The results' ids first: a plain list keeps the aggregate query on its (result, level) index whatever the
    # planner's statistics say (a join on run ids was a nested loop over every topic row of the table).
    result_ids = list(RunResult.objects.filter(run_id__in=list(run_ids), split=split).values_list("pk", flat=True))
    rows = ResultAggregate.objects.filter(result_id__in=result_ids, level=Level.TOPIC, variant=variant, n__gt=0)
    ratio = Cast("correct", FloatField()) / Cast("n", FloatField())
    if connection.vendor == "postgresql":
        medians = dict(rows.values("key").annotate(median=_Median(ratio)).values_list("key", "median"))
    else:  # SQLite (the embedded default) has no percentile aggregate: the same figure from one read of the rows
        by_key = {}
        for key, value in rows.annotate(ratio=ratio).values_list("key", "ratio"):
            by_key.setdefault(key, []).append(value)
        medians = {key: _median(values) for key, values in by_key.items()}
    return {key: round(100 * value, 2) for key, value in medians.items()}
