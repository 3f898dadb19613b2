"""Log records that carry the request id and run id, and a one-object-per-line JSON formatter.

The ids live in context variables: the request-id middleware sets one per request, and
run tasks bind theirs with ``log_context(run_id=...)``. A logging filter copies them onto
every record, so any logger (ours, Django's, Celery's) prints them without being passed them.
Imported by the settings module: nothing here may import Django models.
"""
import json
import logging
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timezone

from django.core.exceptions import ImproperlyConfigured

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
run_id_var: ContextVar[int | None] = ContextVar("run_id", default=None)

LOG_FORMATS = ("plain", "json")


@contextmanager
def log_context(*, run_id=None):
    """Every record logged inside carries this run id (a Celery worker process runs task after
    task, so the id is reset on the way out rather than left for the next task)."""
    token = run_id_var.set(run_id)
    try:
        yield
    finally:
        run_id_var.reset(token)


class ContextFilter(logging.Filter):
    """Adds request_id and run_id (None when unknown) to each record; never drops one."""

    def filter(self, record):
        record.request_id = request_id_var.get()
        record.run_id = run_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, run_id (+ exception)."""

    def format(self, record):
        entry = {
            "time": datetime.fromtimestamp(record.created, tz=timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "run_id": getattr(record, "run_id", None),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    """The classic line, with the ids appended only when known (local development stays readable)."""

    def __init__(self):
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record):
        line = super().format(record)
        ids = [f"{name}={value}" for name in ("request_id", "run_id")
               if (value := getattr(record, name, None)) is not None]
        if not ids:
            return line
        first, newline, rest = line.partition("\n")  # keep a traceback below the ids
        return f"{first} [{' '.join(ids)}]{newline}{rest}"


def build_logging(*, fmt: str, level: str) -> dict:
    """The LOGGING dict for `fmt` ("plain" or "json"); everything goes to stderr through the root logger."""
    if fmt not in LOG_FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT={fmt!r}: use one of {', '.join(LOG_FORMATS)}.")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "leaderboard.core.logging.ContextFilter"}},
        "formatters": {
            "plain": {"()": "leaderboard.core.logging.PlainFormatter"},
            "json": {"()": "leaderboard.core.logging.JsonFormatter"},
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": fmt, "filters": ["context"]}},
        "root": {"handlers": ["console"], "level": level},
    }
