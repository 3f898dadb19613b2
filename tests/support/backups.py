"""Back up the test database with docker/backup.sh and restore it with docker/restore.sh, the commands
docs/operations.md gives an operator, and point Django at the restored copy (tests/deploy/test_backup_restore.py,
bench/backup_restore_bench.py)."""
import os
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.db import connection

REPO = Path(__file__).resolve().parents[2]


def database_url(name: str | None = None) -> str:
    """A postgresql:// URL of the default connection's server and `name` (default: its database)."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="") + (f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else "")
    return f"postgresql://{auth}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{name or s['NAME']}"


def backup(folder: Path, **env) -> Path:
    """docker/backup.sh of the default connection's database into `folder`; the new dump's path."""
    before = set(folder.glob("leaderboard-*")) if folder.exists() else set()
    subprocess.run([REPO / "docker" / "backup.sh"], check=True, capture_output=True, text=True,
                   env={**os.environ, "DATABASE_URL": database_url(), "BACKUP_DIR": str(folder), **env})
    (dump,) = {p for p in folder.glob("leaderboard-*.dump*") if not p.name.endswith(".sha256")} - before
    return dump


def restore(dump: Path, name: str, **env) -> subprocess.CompletedProcess:
    """docker/restore.sh of `dump` into database `name` (which must exist)."""
    return subprocess.run([REPO / "docker" / "restore.sh", str(dump)], capture_output=True, text=True,
                          env={**os.environ, "DATABASE_URL": database_url(name), **env})


def _admin(sql: str):
    """CREATE/DROP DATABASE: on a connection of its own (autocommit), as Django's test database creation does."""
    with connection._nodb_cursor() as cursor:
        cursor.execute(sql)


@contextmanager
def empty_database(suffix: str):
    """A new empty database beside the test database (its name), dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_{suffix}"
    quoted = connection.ops.quote_name(name)
    _admin(f"DROP DATABASE IF EXISTS {quoted}")
    _admin(f"CREATE DATABASE {quoted}")
    try:
        yield name
    finally:
        _admin(f"DROP DATABASE IF EXISTS {quoted}")


@contextmanager
def connected_to(name: str):
    """The default connection on database `name` inside the block, on its own database again after."""
    original = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = name
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["NAME"] = original


@contextmanager
def restored_database(dump: Path):
    """`dump` restored with docker/restore.sh into a new empty database beside the test database, and the default
    connection pointed at it inside the block (a transactional test: no transaction is open); yields the restore's
    seconds. Dropped afterwards."""
    with empty_database("restored") as name:
        start = time.perf_counter()
        result = restore(dump, name)
        assert result.returncode == 0, result.stderr
        seconds = time.perf_counter() - start
        with connected_to(name):
            yield seconds
