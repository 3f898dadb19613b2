"""/metrics exposes queue depth, runs by state, run duration, failures by reason and request latency."""
import os
import subprocess
import sys
import uuid
from datetime import timedelta

import pytest
import redis
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.evaluations import services
from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from tests.support.lifecycle import database_url
from tests.support.worker import REPO

pytestmark = pytest.mark.django_db


def scrape(client, **headers):
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.content.decode()) for s in family.samples}


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def runs(demo_loaded):
    """Runs in every state; two finished ones with known durations; failures with codes."""
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    now = timezone.now()
    states = [RunStatus.QUEUED, RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.SCORING, RunStatus.SUCCEEDED,
              RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.FAILED, RunStatus.CANCELLED]
    made = []
    for i, state in enumerate(states):
        run = services.run_create(version=version, split="validation", model_ref=f"org/model-{i}")
        made.append(run)
        EvaluationRun.objects.filter(pk=run.pk).update(status=state)
    # Finished runs: 2 minutes and 2 hours (succeeded), 30 s (failed: out of memory), unknown start (failed: timeout).
    for run, seconds in ((made[4], 120), (made[5], 7200), (made[6], 30)):
        EvaluationRun.objects.filter(pk=run.pk).update(started_at=now - timedelta(seconds=seconds), finished_at=now)
    EvaluationRun.objects.filter(pk=made[6].pk).update(failure_code=FailureCode.OUT_OF_MEMORY)
    EvaluationRun.objects.filter(pk=made[7].pk).update(failure_code=FailureCode.TIMEOUT, finished_at=now)
    EvaluationRun.objects.filter(pk=made[0].pk).update(enqueued_at=now - timedelta(minutes=10))
    # A queued run's earlier failed attempt keeps its code, but it has not failed: not counted.
    EvaluationRun.objects.filter(pk=made[1].pk).update(failure_code=FailureCode.WORKER_LOST, enqueued_at=now)
    return made


def test_it_works(client, runs):
    samples = scrape(client)
    assert value(samples, "leaderboard_metrics_database_up") == 1
    expected = {"queued": 2, "running": 1, "scoring": 1, "succeeded": 2, "failed": 2, "cancelled": 1}
    assert {state: value(samples, "leaderboard_runs", state=state) for state in expected} == expected
    assert value(samples, "leaderboard_oldest_queued_run_age_seconds") >= 600


def test_it_counts_failures_by_reason(client, runs):
    samples = scrape(client)
    assert value(samples, "leaderboard_run_failures_total", reason="OUT_OF_MEMORY") == 1
    assert value(samples, "leaderboard_run_failures_total", reason="TIMEOUT") == 1
    assert value(samples, "leaderboard_run_failures_total", reason="WORKER_LOST") == 0
    assert ("leaderboard_run_failures_total", (("reason", "GATED"),)) in samples  # every code, even at zero


def test_it_has_a_run_duration_histogram(client, runs):
    samples = scrape(client)
    name = "leaderboard_run_duration_seconds"
    assert value(samples, f"{name}_count", status="succeeded") == 2
    assert value(samples, f"{name}_bucket", status="succeeded", le="60.0") == 0
    assert value(samples, f"{name}_bucket", status="succeeded", le="300.0") == 1
    assert value(samples, f"{name}_bucket", status="succeeded", le="7200.0") == 2
    assert value(samples, f"{name}_bucket", status="succeeded", le="+Inf") == 2
    assert value(samples, f"{name}_sum", status="succeeded") == pytest.approx(7320, abs=1)
    # The failed run without a start time has no duration to report.
    assert value(samples, f"{name}_count", status="failed") == 1
    assert value(samples, f"{name}_bucket", status="failed", le="60.0") == 1


def test_it_reports_queue_depth_per_queue(client, settings):
    queue = f"test-metrics-{uuid.uuid4().hex[:8]}"
    settings.METRICS_QUEUES = ["gpu", queue]
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        broker.lpush(queue, "m1", "m2")
        broker.lpush(f"{queue}\x06\x169", "urgent")  # kombu keeps priority levels in their own lists
        samples = scrape(client)
    finally:
        broker.delete(queue, f"{queue}\x06\x169")
    assert value(samples, "leaderboard_broker_up") == 1
    assert value(samples, "leaderboard_celery_queue_length", queue=queue) == 3
    assert ("leaderboard_celery_queue_length", (("queue", "default"),)) in samples


def test_it_handles_the_broker_down(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    samples = scrape(client)
    assert value(samples, "leaderboard_broker_up") == 0
    assert not any(name == "leaderboard_celery_queue_length" for name, _ in samples)
    assert value(samples, "leaderboard_metrics_database_up") == 1  # the rest still scrapes


def test_it_observes_request_latency_by_route_name(client):
    before = scrape(client)
    client.get("/api/v1/benchmarks/")
    client.get("/api/v1/benchmarks/")
    client.get("/no/such/page/")
    after = scrape(client)
    name = "leaderboard_http_request_duration_seconds_count"
    routes = {dict(labels)["route"] for (metric, labels) in after if metric == name}
    # Other tests in the same process may have observed other benchmark routes: take this URL's own name.
    api_route = "api-benchmark-list"
    assert api_route in routes and not any("/api/" in r for r in routes)  # URL names, not raw paths
    grew = value(after, name, route=api_route, method="GET", status="2xx") - \
        value(before, name, route=api_route, method="GET", status="2xx")
    assert grew == 2
    assert value(after, name, route="unmatched", method="GET", status="4xx") >= 1


def test_it_needs_the_token_when_one_is_set(client, settings):
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert scrape(client, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")


def test_it_sums_request_latency_across_gunicorn_workers(tmp_path):
    """With PROMETHEUS_MULTIPROC_DIR (docker/start-web.sh sets it), observations go through shared files,
    so whichever gunicorn worker answers the scrape reports every worker's requests."""
    code = """
import django; django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()  # testserver is an allowed host
client = Client()
client.get('/no/such/page/')
print(client.get('/metrics').content.decode())
"""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
           "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test", "DATABASE_URL": database_url()}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert list(tmp_path.glob("histogram_*.db"))  # written to the shared folder
    count = 'leaderboard_http_request_duration_seconds_count{method="GET",route="unmatched",status="4xx"} 1.0'
    assert count in out.stdout
    assert "leaderboard_runs{" in out.stdout
