"""Shared set-up for benchmarks: Django on PostgreSQL in a throw-away database, and gunicorn serving it."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def bench_database(name="leaderboard_bench", *, keep=False):
    """Create test_<name>, migrate it, yield, drop it. Uses DATABASE_URL or the test settings' default.

    keep: an existing test_<name> is reused (migrated, its rows kept) and not dropped after, so a bench seeded once
    (10,000 models take minutes) can be run again on it."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings.test")
    import django

    django.setup()
    from django.db import connection

    connection.settings_dict["TEST"]["NAME"] = f"test_{name}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=keep, serialize=False)
    try:
        yield connection
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0, keepdb=keep)


def database_url(db_name) -> str:
    """DATABASE_URL of database `db_name` on the current connection's server (for another process)."""
    from django.db import connection

    s = connection.settings_dict
    return f"postgresql://{s['USER']}:{s['PASSWORD']}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{db_name}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def gunicorn_server(db_name, *, settings="leaderboard.settings.test", env=None, args=("-w", "1"), port=None):
    """gunicorn serving this checkout on 127.0.0.1 (`port`, else a free one; nothing outside the machine reaches it)
    against database `db_name` on the current connection's server, with `settings` and `env` added to the
    environment; yields its base URL once /healthz answers, and stops it after the block."""
    port = port or free_port()
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "DATABASE_URL": database_url(db_name), **(env or {})}
    # -b after the other arguments: it wins over a config file's bind (docker/gunicorn.conf.py binds 0.0.0.0).
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "leaderboard.wsgi", *args, "-b", f"127.0.0.1:{port}",
                             "--log-level", "warning"], cwd=REPO, env=environ)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {proc.returncode} before answering (see its log above)")
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
