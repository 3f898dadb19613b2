"""Leased jobs (ARCHITECTURE §8): rows that one worker at a time holds, for one attempt, on a lease.

A worker claims a row by a conditional UPDATE, refused once the row has used its attempts. The lease is on the
database's clock, so a host whose clock is off can neither shorten nor stretch it, and it belongs to one attempt:
a superseded worker's heartbeat fails and it touches nothing more. Beat's sweeper takes back rows whose lease
expired, each by a conditional UPDATE that leaves alone a row a worker has just claimed or renewed.

Evaluation runs (leaderboard/evaluations/lifecycle.py) and MRScore jobs (leaderboard/mrscore/services.py) use
it; they pass their model in, so core imports no app.
"""
import contextlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import DateTimeField, ExpressionWrapper, F, Q
from django.db.models.functions import Now


@dataclass(frozen=True)
class Leased:
    """A model whose rows are leased jobs: its status values, its attempts column and the settings (read at call
    time, so an override in tests applies) that size the lease and the attempts. The model has `status`,
    `lease_expires_at` and `finished_at` columns."""

    model: type[models.Model]
    lease_setting: str
    attempts_setting: str = "RUN_MAX_ATTEMPTS"
    attempts: str = "attempts"
    queued: str = "queued"
    running: str = "running"
    failed: str = "failed"
    final: tuple[str, ...] = ("succeeded", "cancelled")  # a failure never overwrites these

    @property
    def max_attempts(self) -> int:
        return getattr(settings, self.attempts_setting)

    def lease(self):
        return until(getattr(settings, self.lease_setting))

    def expired(self) -> Q:
        return Q(status=self.running, lease_expires_at__lt=Now())

    def held(self, attempt: int) -> Q:
        """Still running in this attempt: the only state in which its worker may change the row."""
        return Q(status=self.running, **{self.attempts: attempt})

    def used_up(self, row) -> bool:
        return getattr(row, self.attempts) >= self.max_attempts


def job_statuses(name: str, module: str, *own: str) -> type[models.TextChoices]:
    """The status choices of a leased job model: queued, running, the model's ``own`` states (a run's scoring), then
    succeeded, failed or cancelled. Each member is named as its value in capitals, labelled as its name titled."""
    values = ("queued", "running", *own, "succeeded", "failed", "cancelled")
    return models.TextChoices(name, [(value.upper(), value) for value in values], module=module)


class LeasedJob(models.Model):
    """The columns every leased job has besides its `status` (whose choices are the model's, from job_statuses):
    its attempts, its lease, its progress and its times; listed newest first (a model's Meta derives from this one)."""

    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]


def until(seconds: int):
    """Now plus `seconds` on the database's clock."""
    return ExpressionWrapper(Now() + timedelta(seconds=seconds), output_field=DateTimeField())


def claim(kind: Leased, pk: int, *, claimable: Q | None = None, limit: bool = True, **changes) -> bool:
    """Queued → running with a new lease and one more attempt, or take over a running row whose lease expired.
    Exactly one of several concurrent claims wins; a row that used its attempts is refused (limit=False: an
    operator's explicit takeover). `claimable` replaces the default states; `changes` are set as well."""
    if claimable is None:
        claimable = Q(status=kind.queued) | kind.expired()
    rows = kind.model.objects.filter(claimable, pk=pk)
    if limit:
        rows = rows.filter(**{f"{kind.attempts}__lt": kind.max_attempts})
    changes = {"status": kind.running, kind.attempts: F(kind.attempts) + 1, "lease_expires_at": kind.lease(),
               **changes}
    return rows.update(**changes) == 1


def heartbeat(kind: Leased, pk: int, *, attempt: int) -> bool:
    """Renew the lease of this attempt. False: the row was cancelled, finished or taken over meanwhile."""
    return bool(kind.model.objects.filter(kind.held(attempt), pk=pk).update(lease_expires_at=kind.lease()))


def requeue(kind: Leased, pk: int, *, attempt: int, give_back: bool = False, **changes) -> bool:
    """Running → queued, only while this attempt holds the row. give_back: the attempt is not counted (the
    worker is draining, or the failure was not the job's)."""
    if give_back:
        changes[kind.attempts] = F(kind.attempts) - 1
    return bool(kind.model.objects.filter(kind.held(attempt), pk=pk).update(
        status=kind.queued, lease_expires_at=None, **changes))


def fail(kind: Leased, pk: int, *, only: Q | None = None, **changes) -> bool:
    """FAILED, unless it has finished meanwhile or is no longer in the state `only` describes."""
    rows = kind.model.objects.filter(pk=pk).exclude(status__in=kind.final).filter(only or Q())
    return bool(rows.update(status=kind.failed, finished_at=Now(), lease_expires_at=None, **changes))


def sweep(kind: Leased, *, fail_row: Callable, requeued: Callable, give_up: Callable | None = None,
          rows=None, changes: Callable = lambda row: {}) -> dict:
    """Rows whose lease expired (their worker died): fail_row(row, only) when give_up(row) (by default: it used
    its attempts), else back to queued and requeued(row) publishes it again. `only` is the state the row must still
    be in; `rows` (a queryset, e.g. annotated) and `changes` (columns set with the re-queue) are optional."""
    counts = {"requeued": 0, "failed": 0}
    expired = kind.expired()
    for row in (kind.model.objects if rows is None else rows).filter(expired):
        still = expired & Q(**{kind.attempts: getattr(row, kind.attempts)})
        if (give_up or kind.used_up)(row):
            counts["failed"] += bool(fail_row(row, still))
        elif kind.model.objects.filter(still, pk=row.pk).update(status=kind.queued, lease_expires_at=None,
                                                                 **changes(row)):
            with transaction.atomic():
                requeued(row)
            counts["requeued"] += 1
    return counts


@contextlib.contextmanager
def exclusive(name: str):
    """True for the one holder of a PostgreSQL advisory lock, for the length of a transaction: a second beat
    (two schedulers by mistake, or during a redeploy) finds the sweeper or reconciler busy and skips."""
    if connection.vendor != "postgresql":  # the embedded SQLite default runs one worker with one beat
        yield True
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [zlib.crc32(name.encode())])
        yield bool(cursor.fetchone()[0])


def serialise(name: str) -> None:
    """Inside a transaction: wait for, then hold until commit, the PostgreSQL advisory lock `name`, so two requests
    cannot both pass a check-then-insert (quotas, the Ladder's budget). SQLite serialises writers by itself."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(name.encode())])
