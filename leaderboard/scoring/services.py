"""Scoring a run and publishing what it shows: the one step that writes across results and contamination.

It sits above both (docs/ARCHITECTURE.md §7): evaluations scores the run (the answer key, the summary, SCORING →
SUCCEEDED), then, in the same transaction, results stores its aggregates and contamination its Δ point and Ladder
decision. A run that was not SCORING (a repeated message, a cancel) publishes nothing.
"""
from django.db import transaction

from leaderboard.contamination import services as contamination_services
from leaderboard.evaluations import services as evaluation_services
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results import services as results_services


@transaction.atomic
def run_score(*, run: EvaluationRun) -> EvaluationRun:
    rows = evaluation_services.run_summarize(run=run)
    if rows is None:
        return run
    result = results_services.run_results_write(run=run, rows=rows, primary_variant=run.summary["primary_variant"])
    # Δ and the Ladder pair runs of the leaderboard's own settings: a protocol's run (evaluator/protocols.py, made
    # by an admin) is never paired with them, nor decides which sealed figure a board shows.
    if result is not None and not run.protocol:
        contamination_services.run_scored(result=result, rows=rows)
    return run
