"""The demo bank in a test's database for the price of a COPY (issue 32: the real importer took about 0.5 s, 3.5 s
cold, in each of about 160 tests; the COPY 0.04 s).

Once per test process, the real importer (demo_import) runs in a transaction that is rolled back, and the rows it
added are kept, table by table, in COPY's text form; a test that asks for the demo then gets those rows inserted into
its own database (so each test still has its own copy: its transaction, or a transactional test's flush, drops it),
the sequences moved past them, and the cached responses dropped as after an import. Where the database does not start
as the captured one did in those tables (the test imported or made something of its own there first), or the rows do
not fit, the real importer runs instead: the snapshot only ever stands for what the importer would have done.
The browser tests' site (six models scored through the real path on top of the demo bank) is captured the same way.
"""
from collections import Counter
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction


@dataclass(frozen=True)
class DemoSnapshot:
    added: dict[str, bytes]  # table -> the rows the import added, as COPY's text form
    counts: dict[str, int]  # table -> its rows before the import (the state the rows fit)
    sequences: dict[str, tuple[str, str]]  # table -> its primary key column and that column's sequence
    results: list  # what the importer returned


def _tables(cursor) -> list[str]:
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
    return [name for (name,) in cursor.fetchall()]


def _copy_out(raw, table: str) -> bytes:
    with raw.cursor() as cursor, cursor.copy(f'COPY "{table}" TO STDOUT') as copy:
        return b"".join(bytes(block) for block in copy)


def _count(cursor, table: str) -> int:
    cursor.execute(f'SELECT count(*) FROM "{table}"')
    return cursor.fetchone()[0]


def capture(import_) -> DemoSnapshot:
    """import_() in a transaction that is rolled back: the rows it added to each table (it must only add rows)."""
    connection.ensure_connection()
    raw = connection.connection
    with transaction.atomic():
        with connection.cursor() as cursor:
            tables = _tables(cursor)
        before = {table: _copy_out(raw, table) for table in tables}
        results = import_()
        added, counts, sequences = {}, {}, {}
        for table in tables:
            old = Counter(before[table].splitlines(keepends=True))
            new = Counter(_copy_out(raw, table).splitlines(keepends=True))
            if old - new:
                raise RuntimeError(f"the demo import changed or removed rows of {table}: a snapshot of added rows "
                                   "cannot stand for it (use demo_import in the fixture)")
            if new - old:
                with connection.cursor() as cursor:
                    added[table] = b"".join((new - old).elements())
                    counts[table] = sum(old.values())
                    key = connection.introspection.get_primary_key_column(cursor, table)
                    sequence = None
                    if key:
                        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [f'"{table}"', key])
                        sequence = cursor.fetchone()[0]
                    if sequence:
                        sequences[table] = (key, sequence)
        transaction.set_rollback(True)
    return DemoSnapshot(added, counts, sequences, results)


def restore(snapshot: DemoSnapshot, import_):
    """The snapshot's rows in this database (or import_() where they would not be what it gives); its results."""
    with connection.cursor() as cursor:
        if any(_count(cursor, table) != count for table, count in snapshot.counts.items()):
            return import_()
    from leaderboard.core.cache_generation import results_changed

    raw = connection.connection
    try:
        with transaction.atomic():
            with raw.cursor() as cursor:
                for table, rows in snapshot.added.items():
                    with cursor.copy(f'COPY "{table}" FROM STDIN') as copy:
                        copy.write(rows)
                cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # a reference that does not hold fails here, not later
                cursor.execute("SET CONSTRAINTS ALL DEFERRED")
                for table, (key, sequence) in snapshot.sequences.items():
                    # Past the inserted keys (sequences are not rolled back, so they usually are already).
                    cursor.execute(f'SELECT setval(%s, greatest((SELECT max("{key}") FROM "{table}"), '
                                   f'(SELECT last_value FROM {sequence})))', [sequence])
    except IntegrityError:
        return import_()
    results_changed()
    return snapshot.results
