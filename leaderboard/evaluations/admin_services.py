"""Admin operations on runs. Each writes an audit record; none deletes anything."""
from django.db import transaction
from django.utils import timezone

from leaderboard.core.audit import audit_record
from leaderboard.core.cache_generation import results_changed

from . import lifecycle, services
from .models import TERMINAL_STATUSES, EvaluationRun, FailureCode, RunStatus


@transaction.atomic
def run_rerun(run: EvaluationRun, *, actor, reason: str) -> EvaluationRun:
    """A new run row with the measured settings of `run` and a plan of its own (run_create: the chunk size of its
    backend here and now, the fingerprint, the progress total); the old row stays for the score difference."""
    new = services.run_create(
        version=run.benchmark_version, split=run.split, model_ref=run.model_ref, model_revision=run.model_revision,
        backend=run.backend, precision=run.precision, template=run.template, shots=run.shots, variants=run.variants,
        seed=run.seed, mode=run.mode, use_chat_template=run.use_chat_template, submission=run.submission,
        probe=run.probe, rerun_of=run, protocol=run.protocol, model_files=run.model_files,
        gguf_recipe=run.gguf_recipe)
    lifecycle.run_enqueue(run=new, route=True)
    audit_record(actor=actor, action="rerun", target=run, reason=reason, new_run=new.pk)
    return new


@transaction.atomic
def run_cancel(run: EvaluationRun, *, actor, reason: str) -> bool:
    cancelled = EvaluationRun.objects.filter(pk=run.pk).exclude(status__in=TERMINAL_STATUSES).update(
        status=RunStatus.CANCELLED, failure_code=FailureCode.CANCELLED, failure_reason=f"Cancelled: {reason}",
        finished_at=timezone.now(), lease_expires_at=None)
    audit_record(actor=actor, action="cancel", target=run, reason=reason, applied=bool(cancelled))
    if cancelled:
        lifecycle.run_finished(run_id=run.pk)
    return bool(cancelled)


def run_set_hidden(run: EvaluationRun, *, actor, reason: str, hidden=True):
    EvaluationRun.objects.filter(pk=run.pk).update(hidden=hidden)
    results_changed()
    audit_record(actor=actor, action="hide" if hidden else "unhide", target=run, reason=reason)


def run_set_flagged(run: EvaluationRun, *, actor, reason: str, flagged=True):
    EvaluationRun.objects.filter(pk=run.pk).update(flagged=flagged)
    results_changed()
    audit_record(actor=actor, action="flag" if flagged else "unflag", target=run, reason=reason)


def run_exact_figures(run: EvaluationRun, *, actor, reason: str) -> list[dict]:
    """The exact overall and per-topic counts of a run, for a superuser only; the viewing is audited (the record
    names the run and the reason, never the figures)."""
    if not getattr(actor, "is_superuser", False):
        raise PermissionError("Exact figures of a run are for superusers only.")
    summary = run.summary or {}
    rows = []
    if summary.get("overall"):
        rows.append({"level": "overall", "key": "", **_exact(summary["overall"])})
    for key, block in sorted((summary.get("per_topic") or {}).items()):
        rows.append({"level": "topic", "key": key, **_exact(block)})
    audit_record(actor=actor, action="view-exact-figures", target=run, reason=reason, split=run.split)
    return rows


def _exact(block: dict) -> dict:
    n, correct = block.get("n") or 0, block.get("correct") or 0
    return {"n": n, "correct": correct, "accuracy": round(100 * correct / n, 4) if n else None}
