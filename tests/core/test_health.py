"""/healthz says the process is up; /readyz says whether it can serve, and if not what is down and how to fix it."""
import json
import os
import subprocess
import sys

import pytest
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.migration import Migration

from tests.support.worker import REPO

pytestmark = pytest.mark.django_db
CLOSED_PORT = 1  # nothing listens there: connections are refused at once


def test_it_works(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_it_is_ready_when_everything_answers(client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ready" and body["down"] == []
    assert set(body["checks"]) == {"database", "migrations", "broker", "cache"}
    assert all(check == {"ok": True} for check in body["checks"].values())


def test_it_handles_redis_down(client, settings):
    settings.CELERY_BROKER_URL = f"redis://user:hunter2@127.0.0.1:{CLOSED_PORT}/0"
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["down"] == ["broker"]
    broker = body["checks"]["broker"]
    assert broker["ok"] is False and "ConnectionError" in broker["error"]
    assert "CELERY_BROKER_URL" in broker["fix"] and "redis-cli" in broker["fix"]
    assert "hunter2" not in response.content.decode()  # credentials never echoed
    assert body["checks"]["database"] == {"ok": True}


def test_it_handles_an_unapplied_migration(client, monkeypatch):
    pending = Migration("0099_add_gpu_memory", "evaluations")
    monkeypatch.setattr(MigrationExecutor, "migration_plan", lambda self, targets, **kw: [(pending, False)])
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["down"] == ["migrations"]
    assert body["checks"]["migrations"]["error"] == "1 unapplied migration(s): evaluations.0099_add_gpu_memory"
    assert "manage.py migrate" in body["checks"]["migrations"]["fix"]


def test_it_handles_the_database_down():
    """A fresh process whose DATABASE_URL points at a closed port (the test database stays untouched)."""
    probe = ("import django, json; django.setup(); from django.test import Client; "
             "r = Client().get('/readyz'); print(r.status_code); print(r.content.decode())")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test",
           "DATABASE_URL": f"postgresql://postgres:s3cret@127.0.0.1:{CLOSED_PORT}/leaderboard"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    status, body = out.stdout.strip().split("\n", 1)
    body = json.loads(body)
    assert status == "503" and body["down"] == ["database", "migrations"]
    assert "OperationalError" in body["checks"]["database"]["error"]
    assert "DATABASE_URL" in body["checks"]["database"]["fix"]
    assert body["checks"]["migrations"]["error"] == "not checked: the database is unreachable"
    assert body["checks"]["broker"] == {"ok": True} and "s3cret" not in out.stdout


def test_it_answers_probes_whatever_the_host_and_scheme(client, settings):
    """Orchestrators call the container by address over plain HTTP; production settings must not 400/301 them."""
    settings.ALLOWED_HOSTS = ["leaderboard.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    for path in ("/healthz", "/readyz", "/metrics"):
        assert client.get(path, HTTP_HOST="10.0.3.7:8000").status_code == 200, path
    assert client.get("/api/v1/benchmarks/", HTTP_HOST="10.0.3.7:8000").status_code == 400  # pages still checked
