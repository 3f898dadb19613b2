"""Prometheus metrics for /metrics.

Run and queue figures are read at scrape time (from PostgreSQL and the broker's Redis), so they
are right whichever process is scraped and however many web/worker processes there are. Only
request latency is observed in-process; under gunicorn set PROMETHEUS_MULTIPROC_DIR (the web
start script does) so every worker's observations are summed.
"""
import logging
import os
from datetime import timedelta

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

log = logging.getLogger(__name__)

REQUEST_LATENCY = Histogram(
    "leaderboard_http_request_duration_seconds",
    "Time to answer an HTTP request, by URL route name, method and status class.",
    ["route", "method", "status"],
)
RUN_DURATION_BUCKETS = (60, 300, 900, 1800, 3600, 7200, 14400, 21600, 43200)  # seconds; +Inf added
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# kombu's Redis transport keeps a queue's priority levels in separate lists: name, name\x06\x16<p>.
REDIS_PRIORITY_SEP = "\x06\x16"
REDIS_PRIORITY_STEPS = (0, 3, 6, 9)


def monitored_queues() -> list[str]:
    from .routing import gpu_queues

    names = [settings.CELERY_TASK_DEFAULT_QUEUE, *settings.METRICS_QUEUES, *gpu_queues()]
    return list(dict.fromkeys(names))  # ordered, unique


def _redis_queue_lengths(url: str, queues: list[str]) -> dict[str, int]:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        with client.pipeline(transaction=False) as pipe:
            for queue in queues:
                for step in REDIS_PRIORITY_STEPS:
                    pipe.llen(queue if step == 0 else f"{queue}{REDIS_PRIORITY_SEP}{step}")
            lengths = pipe.execute()
    finally:
        client.close()
    per_step = len(REDIS_PRIORITY_STEPS)
    return {q: sum(lengths[i * per_step:(i + 1) * per_step]) for i, q in enumerate(queues)}


class QueueCollector:
    """Messages waiting per Celery queue (Redis LLEN at scrape time). The embedded file broker of local
    development reports no queue lengths."""

    def collect(self):
        url = settings.CELERY_BROKER_URL
        if not url.startswith(("redis://", "rediss://")):
            return
        up = GaugeMetricFamily("leaderboard_broker_up", "1 if the broker's Redis answered this scrape.")
        try:
            lengths = _redis_queue_lengths(url, monitored_queues())
        except Exception as exc:  # noqa: BLE001 — a scrape reports the outage instead of failing
            log.warning("metrics: broker unreachable: %s", type(exc).__name__)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        depth = GaugeMetricFamily("leaderboard_celery_queue_length",
                                  "Messages waiting in a Celery queue (not yet taken by a worker).", labels=["queue"])
        for queue, length in lengths.items():
            depth.add_metric([queue], length)
        yield depth


class RunCollector:
    """Runs by state, run duration and failures by reason, from the database at scrape time."""

    def collect(self):
        from django.db import DatabaseError

        try:
            families = list(self._families())
        except DatabaseError as exc:
            log.warning("metrics: database unreachable: %s", type(exc).__name__)
            families = []
        up = GaugeMetricFamily("leaderboard_metrics_database_up", "1 if the database answered this scrape.")
        up.add_metric([], 1 if families else 0)
        yield up
        yield from families

    def _families(self):
        from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Q, Sum
        from django.utils import timezone

        from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus

        runs = EvaluationRun.objects.all()
        by_state = dict(runs.values_list("status").annotate(n=Count("pk")).order_by())
        states = GaugeMetricFamily("leaderboard_runs", "Evaluation runs by state.", labels=["state"])
        for state in RunStatus.values:
            states.add_metric([state], by_state.get(state, 0))
        yield states

        oldest = runs.filter(status=RunStatus.QUEUED).aggregate(t=Min("enqueued_at"))["t"]
        waiting = GaugeMetricFamily("leaderboard_oldest_queued_run_age_seconds",
                                    "Age of the longest-waiting queued run (0 when none waits).")
        waiting.add_metric([], max(0.0, (timezone.now() - oldest).total_seconds()) if oldest else 0.0)
        yield waiting

        failures = CounterMetricFamily("leaderboard_run_failures", "Runs that ended FAILED, by failure code.",
                                       labels=["reason"])
        by_code = dict(runs.filter(status=RunStatus.FAILED).values_list("failure_code")
                       .annotate(n=Count("pk")).order_by())
        for code in dict.fromkeys([*FailureCode.values, *by_code]):
            failures.add_metric([code or "UNKNOWN"], by_code.get(code, 0))
        yield failures

        # Last attempt: claim (started_at) to the end of scoring or the failure (finished_at).
        duration = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
        buckets = {f"le_{b}": Count("pk", filter=Q(duration__lte=timedelta(seconds=b))) for b in RUN_DURATION_BUCKETS}
        rows = (runs.filter(status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED], started_at__isnull=False,
                            finished_at__isnull=False)
                .alias(duration=duration).values("status")
                .annotate(count=Count("pk"), total=Sum("duration"), **buckets).order_by())
        histogram = HistogramMetricFamily("leaderboard_run_duration_seconds",
                                          "Duration of finished runs (last attempt, claim to result), by outcome.",
                                          labels=["status"])
        found = {row["status"]: row for row in rows}
        for status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
            row = found.get(status, {})
            counts = [(str(float(b)), row.get(f"le_{b}", 0)) for b in RUN_DURATION_BUCKETS]
            counts.append(("+Inf", row.get("count", 0)))
            total = row.get("total") or timedelta(0)
            histogram.add_metric([status], counts, sum_value=max(total.total_seconds(), 0.0))
        yield histogram


class _ProcessMetrics:
    """This process's own metrics (request latency, python/process collectors) without re-registering them."""

    def collect(self):
        return REGISTRY.collect()


def metrics_registry() -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_ProcessMetrics())
    registry.register(QueueCollector())
    registry.register(RunCollector())
    return registry


def metrics_render() -> tuple[bytes, str]:
    return generate_latest(metrics_registry()), CONTENT_TYPE_LATEST


def observe_request(*, route: str, method: str, status_code: int, seconds: float):
    method = method if method in KNOWN_METHODS else "other"
    REQUEST_LATENCY.labels(route=route, method=method, status=f"{status_code // 100}xx").observe(seconds)
