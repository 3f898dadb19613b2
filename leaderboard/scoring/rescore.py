"""The admin's re-score: the run scored again from its stored predictions (no inference), then published."""
from django.db import transaction

from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.core.audit import audit_record
from leaderboard.evaluations.models import EvaluationRun, RunStatus

from .services import run_score


def _audited_accuracy(run: EvaluationRun) -> float | None:
    """The overall accuracy an audit record keeps. None for a sealed run: staff read audit records, and a sealed
    run's figure is either published on the board already or withheld by the Ladder rule."""
    if run.split in SEALED_SPLITS:
        return None
    return ((run.summary or {}).get("overall") or {}).get("accuracy")


@transaction.atomic
def run_rescore(run: EvaluationRun, *, actor, reason: str) -> EvaluationRun:
    """Recompute the summary from stored predictions: no inference."""
    before = _audited_accuracy(run)
    EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.SUCCEEDED).update(status=RunStatus.SCORING)
    run.refresh_from_db()
    run_score(run=run)
    audit_record(actor=actor, action="rescore", target=run, reason=reason, accuracy_before=before,
                 accuracy_after=_audited_accuracy(run))
    return run
