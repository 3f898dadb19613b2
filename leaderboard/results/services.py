"""Writes: the aggregate rows of a scored run (called once, at the end of evaluations.services.run_score).

Idempotent: the run's rows are deleted and inserted again inside the caller's transaction,
so scoring twice leaves the same rows. Only counts are written, never per-question data.
"""
from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from leaderboard.benchmarks.models import Topic
from leaderboard.evaluations.models import RunStatus
from leaderboard.submissions.models import ModelEntry

from leaderboard.core.cache_generation import results_changed
from .models import Level, ResultAggregate, RunResult


def _model_for(run):
    """The entry the run's model_ref names: its submission's model, or an on-device variant made from it."""
    if run.submission_id and not run.gguf_recipe:
        return run.submission.model
    return ModelEntry.objects.filter(hub_id__iexact=run.model_ref).first()


def _cells(rows, topics):
    """(variant, level, key) -> [name, n, correct] from rows that carry `correct`."""
    cells = defaultdict(lambda: ["", 0, 0])

    def add(variant, level, key, name, ok):
        cell = cells[(variant, level, key)]
        cell[0], cell[1], cell[2] = name, cell[1] + 1, cell[2] + ok

    for r in rows:
        if r.get("correct") is None:
            continue
        ok, variant = int(bool(r["correct"])), r["variant"]
        add(variant, Level.OVERALL, "", "", ok)
        topic = topics.get(r.get("topic", ""))
        if topic is None:
            continue
        sub, cat = topic.subcategory, topic.subcategory.category
        add(variant, Level.CATEGORY, cat.slug, cat.name, ok)
        add(variant, Level.SUBCATEGORY, f"{cat.slug}/{sub.slug}", sub.name, ok)
        add(variant, Level.TOPIC, topic.slug, topic.name, ok)
    return cells


@transaction.atomic
def run_results_write(*, run, rows, primary_variant: str) -> RunResult | None:
    """Replace the run's aggregates. A run that did not succeed gets none (and loses any it had)."""
    RunResult.objects.filter(run=run).delete()
    # Cached boards are stale from this commit on; a run only adds, so readers may see the previous board, marked as
    # updating, while one request recomputes it (a hide or flag elsewhere never allows that).
    results_changed(stale_ok=True)
    if run.status != RunStatus.SUCCEEDED:
        return None
    version = run.benchmark_version
    topics = {t.hub_field: t for t in Topic.objects.filter(benchmark_id=version.benchmark_id)
              .select_related("subcategory__category")}
    model = _model_for(run)
    result = RunResult.objects.create(
        run=run, model=model, hub_id=model.hub_id if model else run.model_ref, revision=run.model_revision,
        precision=run.precision, benchmark_id=version.benchmark_id, benchmark_version=version, split=run.split,
        shots=run.shots, primary_variant=primary_variant or "", scored_at=run.finished_at or timezone.now(),
    )
    ResultAggregate.objects.bulk_create([
        ResultAggregate(result=result, variant=variant, level=level, key=key, name=name, n=n, correct=correct)
        for (variant, level, key), (name, n, correct) in sorted(_cells(rows, topics).items())
    ])
    return result
