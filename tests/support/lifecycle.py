"""Helpers for tests that run a real Celery worker against the test database and Redis."""
import os
import time

from django.db import connection

from tests.support.busy import Deadline
from tests.support.worker import WorkerProcess

# The test settings' broker: CELERY_BROKER_URL when set (parallel test runs each take their own Redis db).
BROKER = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")


def database_url():
    s = connection.settings_dict
    return f"postgresql://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}"


def worker_env(settings_module="leaderboard.settings.test", **overrides):
    """The test process's environment (fake-hub variables included) plus the worker's settings."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module, "DATABASE_URL": database_url(),
           "CELERY_BROKER_URL": BROKER}
    env.update({k: str(v) for k, v in overrides.items()})
    return env


def start_worker(queues="gpu,default", **overrides):
    """A worker on both queues uses the trusted settings; a gpu-only worker runs with the GPU worker
    settings (no sealed key, no site secret), as in production."""
    module = "leaderboard.settings.gpu_worker" if queues == "gpu" else "leaderboard.settings.test"
    return WorkerProcess(worker_env(module, **overrides), queues=queues)


def flush_broker():
    import redis

    redis.Redis.from_url(BROKER).flushdb()


def wait_until(predicate, timeout=120, interval=0.2, message="condition"):
    """Poll until predicate() is truthy, for `timeout` seconds of an unloaded machine (tests/support/busy.py: longer
    while the cores are oversubscribed). `message` may be a callable (e.g. reading a worker's log at failure)."""
    deadline = Deadline(timeout)
    while True:
        value = predicate()
        if value:
            return value
        if deadline.passed():
            break
        time.sleep(interval)
    waited = time.monotonic() - deadline.started
    raise AssertionError(f"timed out after {waited:.0f}s ({timeout}s unloaded) waiting for "
                         f"{message() if callable(message) else message}")
