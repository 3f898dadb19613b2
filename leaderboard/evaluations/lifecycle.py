"""The run lifecycle on Celery (DESIGN §8): enqueue on commit, claim by conditional UPDATE, heartbeat
a lease, retry up to RUN_MAX_ATTEMPTS, sweep expired leases, reconcile lost messages.

Every function takes ids or rows and re-reads state from the database: the
broker may lose, repeat or delay messages, and none of that may change a result.
"""
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from .failures import HINTS, RETRYABLE, RunCancelled
from .models import EvaluationRun, FailureCode, RunStatus


def _lease():
    return timezone.now() + timedelta(seconds=settings.RUN_LEASE_SECONDS)


def send_predict(run_id: int, *, countdown: int = 0):
    """Publish to the run's GPU queue (its size class, chosen at enqueue: leaderboard/core/routing.py)."""
    from evaluator.tasks import predict_run

    queue = EvaluationRun.objects.filter(pk=run_id).values_list("queue", flat=True).first() or "gpu"
    predict_run.apply_async(args=[run_id], queue=queue, countdown=countdown)


def send_score(run_id: int):
    from .tasks import score_run

    score_run.apply_async(args=[run_id], queue="default")


def run_enqueue(*, run: EvaluationRun, countdown: int = 0, route: bool = False):
    """Mark queued now; publish only once the transaction that made the run has committed.

    route=True (a new run, on the trusted side) picks and stores its size class's queue. Otherwise the
    stored queue stands: a retry is enqueued by the GPU worker, whose database role may neither write
    `queue` nor read the submission tables the router looks at.
    """
    changes = {"enqueued_at": timezone.now()}
    if route:
        from leaderboard.core.routing import gpu_queue_for_run

        changes["queue"] = gpu_queue_for_run(run.pk)
    EvaluationRun.objects.filter(pk=run.pk).update(**changes)
    transaction.on_commit(lambda: send_predict(run.pk, countdown=countdown))


def run_for_worker(run_id: int) -> EvaluationRun:
    """The run as the GPU worker may read it: its role cannot SELECT `summary` (leaderboard/core/worker_role.py).

    A deferred field stays out of later `refresh_from_db()` calls too, so the instance is safe to pass on.
    """
    return EvaluationRun.objects.select_related("benchmark_version").defer("summary").get(pk=run_id)


def run_claim_for_worker(*, run_id: int) -> EvaluationRun | None:
    """queued → running (or take over a running run whose lease expired). None if someone else has it."""
    now = timezone.now()
    claimable = Q(status=RunStatus.QUEUED) | Q(status=RunStatus.RUNNING, lease_expires_at__lt=now)
    updated = EvaluationRun.objects.filter(claimable, pk=run_id).update(
        status=RunStatus.RUNNING, attempts=F("attempts") + 1, lease_expires_at=_lease(),
        started_at=now, failure_reason="", failure_code="",
    )
    return run_for_worker(run_id) if updated == 1 else None


def run_heartbeat(*, run: EvaluationRun):
    """Extend the lease of this attempt; raise RunCancelled if an admin cancelled the run meanwhile or
    another worker has taken it over (a later attempt owns it now)."""
    updated = EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, attempts=run.attempts).update(
        lease_expires_at=_lease())
    if updated == 0:
        raise RunCancelled(f"run {run.pk} attempt {run.attempts} no longer holds the run")


def run_attempt_failed(*, run_id: int, code: str, excerpt: str = "", detail: str = "") -> str:
    """Retry while attempts remain and the failure may pass; else FAILED with a reason. Returns the status.

    Runs on the GPU worker: it re-enqueues on the run's stored queue (no routing).
    """
    run = run_for_worker(run_id)
    if run.status == RunStatus.CANCELLED:
        return run.status
    if code in RETRYABLE and run.attempts < settings.RUN_MAX_ATTEMPTS:
        requeued = EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            status=RunStatus.QUEUED, lease_expires_at=None, failure_code=code, log_excerpt=excerpt,
            failure_reason=f"attempt {run.attempts} failed; retrying",
        )
        if requeued:
            with transaction.atomic():
                run_enqueue(run=run, countdown=settings.RUN_RETRY_DELAY_SECONDS)
            return RunStatus.QUEUED
    run_fail(run=run, code=code, reason=_reason(code, run.attempts, detail), excerpt=excerpt)
    return RunStatus.FAILED


def _reason(code, attempts, detail=""):
    """"CODE after N attempts (what the engine said). What to do." — the detail is the error's own line,
    already reduced to its type for sealed runs (failures.detail)."""
    said = f" ({detail.strip()})" if detail.strip() else ""
    return f"{code} after {attempts} attempt{'s' * (attempts != 1)}{said}. {HINTS.get(code, '')}".strip()


def run_fail(*, run: EvaluationRun, code: str, reason: str, excerpt: str = ""):
    EvaluationRun.objects.filter(pk=run.pk).exclude(status__in=[RunStatus.SUCCEEDED, RunStatus.CANCELLED]).update(
        status=RunStatus.FAILED, failure_code=code, failure_reason=reason[:2000], log_excerpt=excerpt,
        finished_at=timezone.now(), lease_expires_at=None,
    )
    transaction.on_commit(lambda: _notify(run.pk))


def run_finished(*, run_id: int):
    transaction.on_commit(lambda: _notify(run_id))


def _notify(run_id):
    from .tasks import notify_run

    notify_run.apply_async(args=[run_id], queue="default")


def sweep(*, now=None) -> dict:
    """Re-enqueue runs whose lease expired (their worker died); fail runs past the time limit."""
    now = now or timezone.now()
    limit = timedelta(seconds=settings.CELERY_TASK_HARD_TIME_LIMIT)
    counts = {"requeued": 0, "failed": 0}
    for run in EvaluationRun.objects.filter(status=RunStatus.RUNNING, lease_expires_at__lt=now):
        if run.started_at and run.started_at < now - limit:
            run_fail(run=run, code=FailureCode.TIMEOUT, reason=_reason(FailureCode.TIMEOUT, run.attempts))
            counts["failed"] += 1
        elif run.attempts >= settings.RUN_MAX_ATTEMPTS:
            run_fail(run=run, code=FailureCode.WORKER_LOST, reason=_reason(FailureCode.WORKER_LOST, run.attempts))
            counts["failed"] += 1
        elif EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING, lease_expires_at__lt=now).update(
                status=RunStatus.QUEUED, lease_expires_at=None):
            with transaction.atomic():
                run_enqueue(run=run)
            counts["requeued"] += 1
    return counts


def reconcile(*, now=None) -> int:
    """Queued runs whose message may be lost (broker flushed or restarted) are published again.

    A duplicate message is harmless: only one claim can win.
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.RECONCILE_AFTER_SECONDS)
    runs = list(EvaluationRun.objects.filter(status=RunStatus.QUEUED)
                .filter(Q(enqueued_at__lt=stale) | Q(enqueued_at__isnull=True)).values_list("pk", "enqueued_at"))
    for run_id, enqueued_at in runs:
        with transaction.atomic():  # a run never enqueued was never routed either
            run_enqueue(run=EvaluationRun(pk=run_id), route=enqueued_at is None)
    # Runs predicted but never scored (the scoring message was lost) get scored.
    for run_id in EvaluationRun.objects.filter(status=RunStatus.SCORING, lease_expires_at__lt=now).values_list(
            "pk", flat=True):
        send_score(run_id)
    return len(runs)
