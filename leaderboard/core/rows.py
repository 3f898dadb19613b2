"""The first row of each key: the one rule behind every "latest per model" read (a model revision's latest result,
Δ point or upload). Done in Python rather than SQL (DISTINCT ON) so it runs on SQLite too; callers read the rows
anyway."""
from collections.abc import Iterable
from typing import TypeVar

Row = TypeVar("Row")


def field(row, name: str):
    """A row's value of `name`, whether the row is a model object or a dict (`.values()`)."""
    return row[name] if isinstance(row, dict) else getattr(row, name)


def first_per_key(rows: Iterable[Row], *fields: str) -> list[Row]:
    """The first row of each distinct (fields...) value, in the given order: newest first in, the latest of each
    key out (best first in: the best of each)."""
    seen, out = set(), []
    for row in rows:
        key = tuple(field(row, name) for name in fields)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out
