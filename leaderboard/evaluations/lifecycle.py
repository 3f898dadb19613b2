"""The run lifecycle on Celery (ARCHITECTURE §8): enqueue on commit, claim by conditional UPDATE, heartbeat
a lease, retry up to RUN_MAX_ATTEMPTS, sweep expired leases, reconcile lost messages.

Every function takes ids or rows and re-reads state from the database: the
broker may lose, repeat or delay messages, and none of that may change a result.
"""
import logging
from datetime import timedelta

import redis.exceptions
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q
from django.db.models.functions import Coalesce, Now
from kombu.exceptions import OperationalError

from leaderboard.core import leases
from leaderboard.core.text import pg_text

from . import broker
from .failures import RETRYABLE, RunCancelled, hint
from .models import EvaluationRun, FailureCode, RunStatus
from .routing import gpu_queue_for_run

log = logging.getLogger(__name__)
LOCAL_QUEUE = "local"  # runs of manage.py evaluate: predicted in the operator's process, never published
# Predictions and scoring are leased jobs on the same row: scoring keeps the status SCORING while it holds
# the lease and counts its own attempts.
RUNS = leases.Leased(EvaluationRun, lease_setting="RUN_LEASE_SECONDS")
SCORING = leases.Leased(EvaluationRun, lease_setting="RUN_LEASE_SECONDS", attempts="scoring_attempts",
                        queued=RunStatus.SCORING, running=RunStatus.SCORING)
# Tasks are sent by name: their modules import this one (and score_run lives above it, in leaderboard.scoring).
SCORE_TASK = "evaluations.score_run"  # leaderboard.scoring.tasks.score_run
NOTIFY_TASK = "evaluations.notify_run"  # leaderboard.evaluations.tasks.notify_run


def send_predict(run_id: int, *, countdown: int = 0):
    """Publish to the run's GPU queue (its size class, chosen at enqueue: leaderboard/evaluations/routing.py).

    Called on commit: the run is already stored QUEUED, and the database is the source of truth. If the broker
    cannot be reached, the run stays queued and the reconciler (reconcile(), on beat) publishes it later; the
    error is logged, never raised, so the request or task that made the run still succeeds as a whole.
    """
    queue = EvaluationRun.objects.filter(pk=run_id).values_list("queue", flat=True).first() or "gpu"
    try:
        current_app.send_task(broker.TASK, args=[run_id], queue=queue, countdown=countdown)
    except (OperationalError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError) as exc:
        log.warning(
            "broker unreachable, run %s stays queued; the reconciler will publish it: %s", run_id, exc)


def send_score(run_id: int, *, countdown: int = 0):
    current_app.send_task(SCORE_TASK, args=[run_id], queue="default", countdown=countdown)


def run_enqueue(*, run: EvaluationRun, countdown: int = 0, route: bool = False):
    """Mark queued; publish only once the transaction that made the run has committed.

    enqueued_at is when the run first joined the queue and stays (queue positions and the oldest-queued
    metric read it); published_at is the last publish. route=True (a new run, on the trusted side) picks
    and stores its size class's queue. Otherwise the stored queue stands: a retry is enqueued by the GPU
    worker, whose database role may neither write `queue` nor read the submission tables the size routing reads.
    """
    changes = {"enqueued_at": Coalesce(F("enqueued_at"), Now()), "published_at": Now()}
    if route:
        changes["queue"] = gpu_queue_for_run(run.pk)
    EvaluationRun.objects.filter(pk=run.pk).update(**changes)
    transaction.on_commit(lambda: send_predict(run.pk, countdown=countdown))


def run_for_worker(run_id: int) -> EvaluationRun:
    """The run as the GPU worker may read it: its role cannot SELECT `summary` (leaderboard/evaluations/worker_role.py).

    A deferred field stays out of later `refresh_from_db()` calls too, so the instance is safe to pass on.
    """
    return EvaluationRun.objects.select_related("benchmark_version").defer("summary").get(pk=run_id)


def run_claim_for_worker(*, run_id: int) -> EvaluationRun | None:
    """queued → running (or take over a running run whose lease expired). None if someone else has it,
    or if the run has used its attempts (a redelivered message never starts one more)."""
    claimed = leases.claim(RUNS, run_id, started_at=Now(), failure_reason="", failure_code="")
    return run_for_worker(run_id) if claimed else None


def run_heartbeat(*, run: EvaluationRun):
    """Extend the lease of this attempt; raise RunCancelled if an admin cancelled the run meanwhile or
    another worker has taken it over (a later attempt owns it now)."""
    if not leases.heartbeat(RUNS, run.pk, attempt=run.attempts):
        raise RunCancelled(f"run {run.pk} attempt {run.attempts} no longer holds the run")


def run_release(*, run_id: int, attempt: int) -> str:
    """Back to the queue without spending the attempt (the worker is shutting down, not the model failing)."""
    if not leases.requeue(RUNS, run_id, attempt=attempt, give_back=True):
        return run_for_worker(run_id).status
    with transaction.atomic():
        run_enqueue(run=EvaluationRun(pk=run_id))
    return RunStatus.QUEUED


def run_attempt_failed(*, run_id: int, attempt: int, code: str, excerpt: str = "", detail: str = "") -> str:
    """Retry while attempts remain and the failure may pass; else FAILED with a reason. Returns the status.

    Runs on the GPU worker: it re-enqueues on the run's stored queue (no routing).
    """
    run = run_for_worker(run_id)
    if run.status == RunStatus.CANCELLED:
        return run.status
    if run.status != RunStatus.RUNNING or run.attempts != attempt:
        return run.status  # superseded: a later attempt owns the run; this one touches nothing
    if code == FailureCode.INFRASTRUCTURE_ERROR and run.infra_retries < settings.RUN_MAX_INFRA_RETRIES:
        # Not the model's fault: the attempt is given back, and retries back off on a budget of their own.
        if leases.requeue(RUNS, run.pk, attempt=attempt, give_back=True, infra_retries=F("infra_retries") + 1,
                          failure_code=code, log_excerpt=pg_text(excerpt),
                          failure_reason=f"infrastructure error ({pg_text(detail)[:200]}); retrying"):
            delay = min(3600, max(1, settings.RUN_RETRY_DELAY_SECONDS) * 2 ** run.infra_retries)
            with transaction.atomic():
                run_enqueue(run=run, countdown=delay)
            return RunStatus.QUEUED
    if code in RETRYABLE and not RUNS.used_up(run):
        if leases.requeue(RUNS, run.pk, attempt=attempt, failure_code=code, log_excerpt=excerpt,
                          failure_reason=f"attempt {run.attempts} failed; retrying"):
            with transaction.atomic():
                run_enqueue(run=run, countdown=settings.RUN_RETRY_DELAY_SECONDS)
            return RunStatus.QUEUED
    if run_fail(run=run, code=code, reason=_reason(code, run.attempts, detail), excerpt=excerpt,
                only=RUNS.held(attempt)):
        return RunStatus.FAILED
    return run_for_worker(run_id).status


def _reason(code, attempts, detail=""):
    """"CODE after N attempts (what the engine said). What to do." — the detail is the error's own line,
    already reduced to its type for sealed runs (failures.detail)."""
    said = f" ({detail.strip()})" if detail.strip() else ""
    return f"{code} after {attempts} attempt{'s' * (attempts != 1)}{said}. {hint(code)}".strip()


def run_fail(*, run: EvaluationRun, code: str, reason: str, excerpt: str = "", only: Q | None = None) -> bool:
    """FAILED with a reason and a notice. `only`: the state the run must still be in (conditional)."""
    updated = leases.fail(RUNS, run.pk, only=only, failure_code=code, failure_reason=pg_text(reason)[:2000],
                          log_excerpt=pg_text(excerpt))
    if updated:
        transaction.on_commit(lambda: _notify(run.pk))
    return updated


def run_finished(*, run_id: int):
    transaction.on_commit(lambda: _notify(run_id))


def _notify(run_id):
    current_app.send_task(NOTIFY_TASK, args=[run_id], queue="default")


def sweep() -> dict:
    """Runs whose lease expired (their worker died): re-enqueued, or FAILED past the time limit or their
    attempts; runs whose scoring stopped: scoring re-sent, or FAILED after RUN_MAX_ATTEMPTS. Every change is
    a conditional UPDATE on the database's clock, so a run a worker has just claimed or renewed is left alone."""
    too_old = Now() - timedelta(seconds=settings.CELERY_TASK_HARD_TIME_LIMIT)

    def give_up(run):  # a local run (manage.py evaluate) names a model on the operator's disk: no GPU queue
        return run.past_limit or RUNS.used_up(run) or run.queue == LOCAL_QUEUE

    def fail(run, only):
        code = FailureCode.TIMEOUT if run.past_limit else FailureCode.WORKER_LOST
        return run_fail(run=run, code=code, reason=_reason(code, run.attempts), only=only)

    counts = leases.sweep(RUNS, give_up=give_up, fail_row=fail, requeued=lambda run: run_enqueue(run=run),
                          rows=EvaluationRun.objects.annotate(
                              past_limit=ExpressionWrapper(Q(started_at__lt=too_old), output_field=BooleanField())))
    counts["rescored"] = 0
    for run in EvaluationRun.objects.filter(SCORING.expired()).only("pk", "scoring_attempts"):
        if SCORING.used_up(run):
            code = FailureCode.SCORING_ERROR
            counts["failed"] += run_fail(run=run, code=code, reason=_reason(code, run.scoring_attempts),
                                         only=SCORING.expired() & Q(scoring_attempts=run.scoring_attempts))
        else:  # the scoring message was lost, or its worker died: send it again
            send_score(run.pk)
            counts["rescored"] += 1
    return counts


def score_claim(*, run_id: int) -> bool:
    """SCORING runs are claimed like predictions: one scorer at a time, a lease, attempts counted."""
    free = Q(scoring_attempts=0) | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=Now())
    return leases.claim(SCORING, run_id, claimable=Q(status=RunStatus.SCORING) & free)


def score_failed(*, run_id: int, exc: BaseException) -> str:
    """A scoring attempt failed: retried after a delay while attempts remain, else FAILED with a notice.
    The reason names the error's type only: scoring reads the sealed key."""
    run = EvaluationRun.objects.only("pk", "scoring_attempts").get(pk=run_id)
    code = FailureCode.SCORING_ERROR
    if not SCORING.used_up(run):
        # Lease expired now: the retry below (or the sweeper, if it is lost) may claim it.
        EvaluationRun.objects.filter(pk=run_id, status=RunStatus.SCORING).update(lease_expires_at=Now())
        transaction.on_commit(lambda: send_score(run_id, countdown=settings.RUN_RETRY_DELAY_SECONDS))
        return RunStatus.SCORING
    run_fail(run=run, code=code, reason=_reason(code, run.scoring_attempts, type(exc).__name__),
             only=Q(status=RunStatus.SCORING))
    return RunStatus.FAILED


def reconcile() -> int:
    """Queued runs whose predict message is lost (broker flushed or restarted) are published again, oldest
    first. A message still waiting in the broker (a busy GPU) is left alone: the broker's queues are read
    where the transport allows (Redis); elsewhere a run is re-published once RECONCILE_AFTER_SECONDS have
    passed since its last publish. A duplicate message is harmless all the same: only one claim can win."""
    grace = Now() - timedelta(seconds=settings.RECONCILE_AFTER_SECONDS)
    queued = (EvaluationRun.objects.filter(status=RunStatus.QUEUED).exclude(queue=LOCAL_QUEUE)
              .filter(Q(published_at__isnull=True) | Q(published_at__lt=grace))
              .order_by(F("enqueued_at").asc(nulls_first=True), "pk").values_list("pk", "enqueued_at", "queue"))
    queued = list(queued)
    waiting = broker.waiting_run_ids({queue for _, _, queue in queued}) if queued else set()
    lost = [(pk, enqueued_at) for pk, enqueued_at, _ in queued if waiting is None or pk not in waiting]
    for run_id, enqueued_at in lost:
        with transaction.atomic():  # a run never enqueued was never routed either
            run_enqueue(run=EvaluationRun(pk=run_id), route=enqueued_at is None)
    return len(lost)
