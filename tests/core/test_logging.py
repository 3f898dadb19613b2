"""JSON logs: one object per line, carrying the request id of the request and the run id of the run."""
import io
import json
import logging
import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from leaderboard.core.logging import (
    ContextFilter,
    JsonFormatter,
    PlainFormatter,
    build_logging,
    log_context,
    run_id_var,
)
from tests.core.test_settings import PRODUCTION_ENV
from tests.support.worker import REPO


@pytest.fixture
def json_lines():
    """What the root logger writes through the JSON formatter, as parsed objects."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(handler)


def test_it_works(json_lines):
    logging.getLogger("leaderboard.test").warning("run %s: %s", 7, "ünïcode \"quoted\"\nsecond line")
    (entry,) = json_lines()
    assert set(entry) == {"time", "level", "logger", "message", "request_id", "run_id"}
    assert entry["level"] == "WARNING" and entry["logger"] == "leaderboard.test"
    assert entry["message"] == "run 7: ünïcode \"quoted\"\nsecond line"
    assert entry["time"].endswith("+00:00") and entry["request_id"] is None and entry["run_id"] is None


def test_it_handles_exceptions_on_one_line(json_lines):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("leaderboard.test").exception("failed")
    (entry,) = json_lines()
    assert "ValueError: boom" in entry["exception"]


def test_it_carries_the_run_id_inside_a_run(json_lines):
    log = logging.getLogger("leaderboard.test")
    with log_context(run_id=42):
        log.info("inside")
    log.info("after")
    inside, after = json_lines()
    assert inside["run_id"] == 42 and after["run_id"] is None


def test_it_binds_the_run_id_in_the_prediction_task(json_lines, monkeypatch):
    """The GPU task sets the run id before any work, so every line of the run carries it."""
    from leaderboard.evaluations import tasks

    def fake_predict(run_id):
        logging.getLogger("leaderboard.evaluations.runner").info("predicting")
        return {"run": run_id, "bound": run_id_var.get()}

    monkeypatch.setattr(tasks, "predict", fake_predict)
    assert tasks.predict_run.run(9) == {"run": 9, "bound": 9}  # the task's function, called in this process
    assert [e["run_id"] for e in json_lines()] == [9] and run_id_var.get() is None


@pytest.mark.django_db
def test_it_carries_the_request_id(client, json_lines):
    # A request whose handling logs (Django's warning about an unknown Host), with the proxy's id.
    response = client.get("/api/v1/benchmarks/", HTTP_HOST="evil.example", HTTP_X_REQUEST_ID="req-123.abc")
    assert response.status_code == 400 and response["X-Request-ID"] == "req-123.abc"
    entries = [e for e in json_lines() if e["logger"] == "django.security.DisallowedHost"]
    assert entries and all(e["request_id"] == "req-123.abc" for e in entries)


@pytest.mark.django_db
@pytest.mark.parametrize("incoming", ["", "has space", "x" * 200, "<script>", "line\rbreak"])
def test_it_handles_unsafe_request_ids(client, incoming):
    response = client.get("/api/v1/benchmarks/", HTTP_X_REQUEST_ID=incoming)
    generated = response["X-Request-ID"]
    assert generated != incoming and len(generated) == 32 and generated.isalnum()


def test_it_keeps_plain_lines_readable():
    record = logging.LogRecord("leaderboard.test", logging.INFO, __file__, 1, "hello", None, None)
    ContextFilter().filter(record)
    assert PlainFormatter().format(record).endswith("INFO leaderboard.test hello")
    with log_context(run_id=3):
        ContextFilter().filter(record)
    assert PlainFormatter().format(record).endswith("hello [run_id=3]")


def test_it_refuses_an_unknown_format():
    with pytest.raises(ImproperlyConfigured, match="LOG_FORMAT='xml'"):
        build_logging(fmt="xml", level="INFO")


def test_it_logs_json_by_default_in_production():
    env = {**{k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV}, **PRODUCTION_ENV}
    env.pop("LOG_FORMAT", None)
    code = ("import django, logging; django.setup(); from django.conf import settings; "
            "print(settings.LOG_FORMAT, settings.ACCESS_LOG); logging.getLogger('probe').warning('hello')")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["json", "True"]
    (line,) = [json.loads(x) for x in out.stderr.splitlines() if '"probe"' in x]
    assert line["message"] == "hello" and line["level"] == "WARNING"
