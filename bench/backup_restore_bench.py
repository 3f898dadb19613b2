"""Time and size of a backup and a restore of the many-models board (docs/operations.md, "Backups and recovery").

    python bench/backup_restore_bench.py [--models 10000]

Seeds a throw-away PostgreSQL database as bench/page_weight_bench.py does (the demo bank, then N models with a
scored validation run and its aggregates each), backs it up with docker/backup.sh (pg_dump -Fc), restores it with
docker/restore.sh into a new database, and checks every table's fingerprint (tests/support/db.py) is the same.
Prints the database's size, the dump's size and both times. Needs pg_dump, pg_restore and psql on PATH.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from _django import bench_database  # noqa: E402

DB_NAME = "leaderboard_backup_bench"  # -> test_leaderboard_backup_bench


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=10_000)
    args = parser.parse_args()

    with bench_database(DB_NAME) as connection:
        from leaderboard.benchmarks.demo import demo_import
        from tests.browser.page_weight import many_models_seed
        from tests.support.db import db_snapshot
        from tests.support.backups import backup, restored_database

        start = time.perf_counter()
        demo_import()
        many_models_seed(args.models)
        print(f"seeded the demo bank and {args.models:,} scored models in {time.perf_counter() - start:.1f} s")
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_database_size(current_database())")
            size = cursor.fetchone()[0]
        before = db_snapshot()
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            dump = backup(Path(folder))
            backed_up, dump_bytes = time.perf_counter() - start, dump.stat().st_size
            with restored_database(dump) as restore_seconds:
                after = db_snapshot()
        assert after == before, "the restored database differs from the original"
        rows = sum(count for count, _ in before.values())
        print(f"database {size / 2**20:,.0f} MiB ({rows:,} rows in {len(before)} tables); "
              f"dump {dump_bytes / 2**20:,.1f} MiB; backup {backed_up:.1f} s; "
              f"restore {restore_seconds:.1f} s; every table's fingerprint identical")


if __name__ == "__main__":
    main()
