"""Shared set-up for benchmarks: Django on PostgreSQL in a throw-away database."""
import os
import sys
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def bench_database(name="leaderboard_bench"):
    """Create test_<name>, migrate it, yield, drop it. Uses DATABASE_URL or the test settings' default."""
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings.test")
    import django

    django.setup()
    from django.db import connection

    connection.settings_dict["TEST"]["NAME"] = f"test_{name}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield connection
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
