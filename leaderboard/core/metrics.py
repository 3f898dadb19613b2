"""Prometheus metrics for /metrics.

Run figures (leaderboard/evaluations/metrics.py, registered by that app) and queue figures are read at scrape time (from PostgreSQL and the broker's Redis), so they
are right whichever process is scraped and however many web/worker processes there are. Only
request latency is observed in-process; under gunicorn set PROMETHEUS_MULTIPROC_DIR (the web
start script does) so every worker's observations are summed.
"""
import logging
import os

from django.conf import settings
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

from .routing import gpu_queues

log = logging.getLogger(__name__)

REQUEST_LATENCY = Histogram(
    "leaderboard_http_request_duration_seconds",
    "Time to answer an HTTP request, by URL route name, method and status class.",
    ["route", "method", "status"],
)
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# kombu's Redis transport keeps a queue's priority levels in separate lists: name, name\x06\x16<p>.
REDIS_PRIORITY_SEP = "\x06\x16"
REDIS_PRIORITY_STEPS = (0, 3, 6, 9)


def monitored_queues() -> list[str]:
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
    for collector in _app_collectors:
        registry.register(collector)
    return registry


_app_collectors = []


def register_collector(collector) -> None:
    """Apps add collectors of their own figures (AppConfig.ready): core reads no app's models itself."""
    if not any(type(c) is type(collector) for c in _app_collectors):  # ready() may run again in tests
        _app_collectors.append(collector)


def metrics_render() -> tuple[bytes, str]:
    return generate_latest(metrics_registry()), CONTENT_TYPE_LATEST


def observe_request(*, route: str, method: str, status_code: int, seconds: float):
    method = method if method in KNOWN_METHODS else "other"
    REQUEST_LATENCY.labels(route=route, method=method, status=f"{status_code // 100}xx").observe(seconds)
