"""Readiness checks: database reachable, broker reachable, cache reachable, no unapplied migrations.

Each check returns a Check saying what is wrong and how to fix it; the /readyz view turns the
list into 200 or 503. Error texts are shortened and stripped of credentials, since a probe's
answer can end up in logs or dashboards.
"""
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings
from django.db import connections

CHECK_TIMEOUT_SECONDS = 2

FIXES = {
    "database": "Check DATABASE_URL and that PostgreSQL is running and accepts connections from this host "
                "(docker compose: `docker compose ps postgres`, `docker compose logs postgres`).",
    "broker": "Check CELERY_BROKER_URL and that Redis is running and answers PING "
              "(`redis-cli -u \"$CELERY_BROKER_URL\" ping`; docker compose: `docker compose ps redis`).",
    "cache": "Check CACHE_URL and that the cache server is running (docker compose: `docker compose ps cache`).",
    "migrations": "Run `python manage.py migrate` (docker/start-web.sh runs it at start; a new release "
                  "must migrate before it serves).",
}


@dataclass
class Check:
    name: str
    ok: bool
    error: str = ""
    fix: str = ""

    def as_dict(self):
        return {k: v for k, v in asdict(self).items() if k != "name" and (v or k == "ok")}


def describe_error(exc: BaseException) -> str:
    """`Type: first line`, at most 300 characters, with any user:password@ or password=... masked."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = re.sub(r"://[^/@\s]*@", "://***@", text)
    text = re.sub(r"(?i)(password\s*=\s*)\S+", r"\1***", text)
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


def _failed(name, exc):
    return Check(name, False, describe_error(exc), FIXES[name])


def check_database(alias="default") -> Check:
    try:
        connection = connections[alias]
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 — any failure means "not ready", reported as such
        return _failed("database", exc)
    return Check("database", True)


def check_migrations(alias="default") -> Check:
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connections[alias])
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:  # noqa: BLE001
        return _failed("migrations", exc)
    if plan:
        names = [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return Check("migrations", False, f"{len(names)} unapplied migration(s): {shown}", FIXES["migrations"])
    return Check("migrations", True)


def check_broker(url=None) -> Check:
    url = url or settings.CELERY_BROKER_URL
    try:
        if url.startswith(("redis://", "rediss://")):
            import redis

            client = redis.Redis.from_url(url, socket_connect_timeout=CHECK_TIMEOUT_SECONDS,
                                          socket_timeout=CHECK_TIMEOUT_SECONDS)
            try:
                client.ping()
            finally:
                client.close()
        elif url.startswith("filesystem://"):
            # The embedded broker: messages are files; the folder must exist and be writable.
            folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", "."))
            probe = folder / ".readyz"
            probe.write_bytes(b"")
            probe.unlink()
        else:
            from kombu import Connection

            with Connection(url, connect_timeout=CHECK_TIMEOUT_SECONDS) as conn:
                conn.ensure_connection(max_retries=1)
    except Exception as exc:  # noqa: BLE001
        return _failed("broker", exc)
    return Check("broker", True)


def check_cache() -> Check:
    """Only a networked cache can be down; a local one (file, memory) always answers."""
    from django.core.cache import caches

    if not settings.CACHES["default"]["BACKEND"].endswith("RedisCache"):
        return Check("cache", True)
    try:
        caches["default"].get("readyz-probe")
    except Exception as exc:  # noqa: BLE001
        return _failed("cache", exc)
    return Check("cache", True)


def readiness() -> list[Check]:
    database = check_database()
    # Migrations can only be read from a reachable database.
    migrations = check_migrations() if database.ok else Check(
        "migrations", False, "not checked: the database is unreachable", FIXES["database"])
    return [database, migrations, check_broker(), check_cache()]
