"""Database ids in URLs, one rule for paths and query strings: ASCII digits, 0..2**63-1 (a signed 64-bit column).

`<id:...>` is the path converter of every route that takes an id (registered when core's apps.py imports this
module): a longer or larger number matches no route, so it is a 404 before any lookup. Django's `<int:...>` takes any number of
digits, and SQLite raises OverflowError (a 500) for an int past 64 bits in a foreign-key lookup; PostgreSQL
compares it as numeric. `parse_id` is the same rule for ids in query strings (`?run=`, `?page=`): `"²".isdigit()` is
true, and int() refuses more than 4,300 digits, each of which made a page answer 500.
"""
from django.urls import register_converter

MAX_ID = 2**63 - 1
MAX_ID_DIGITS = len(str(MAX_ID))


def parse_id(text) -> int | None:
    """`text` as an id (ASCII digits, at most MAX_ID), else None."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > MAX_ID_DIGITS:
        return None
    value = int(text)
    return value if value <= MAX_ID else None


class IdConverter:
    regex = f"[0-9]{{1,{MAX_ID_DIGITS}}}"

    def to_python(self, value):
        number = parse_id(value)
        if number is None:
            raise ValueError(f"{value} is past the largest id, {MAX_ID}")  # Django: no match (404)
        return number

    def to_url(self, value):
        if parse_id(str(value)) is None:
            raise ValueError(f"{value!r} is not an id")  # reverse() finds no URL
        return str(value)


register_converter(IdConverter, "id")
