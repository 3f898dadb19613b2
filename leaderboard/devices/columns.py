"""Every value a device report stores fits its column on PostgreSQL and reads back. The one place that says so: the
model fields themselves (``max_length``, the database's integer ranges), checked on the values exactly as they will be
stored, after every transformation (a path cut to its last part, a device key NFKC-folded and casefolded); a list
(a test's samples_ts, JSON) by its field's MaxLengthValidator and finite numbers (JSON holds no NaN). The
parsers' own limits (llama_bench.TEXT_LIMITS, device_fields.TEXT_LIMITS) are the friendly first check of what was
typed; this is the last one, and what it refuses is named as the person typed it."""
import math

from django.core.validators import MaxLengthValidator
from django.db import connection

from leaderboard.core.csv import formula_lead

from .refusals import MALFORMED, OUT_OF_BOUNDS, TOO_LONG, has_controls

# A stored field, as the person typed it (the refusal's words)
TYPED = {"file_name": "model_filename's file name (its last part)", "device_key": "device make and model, folded "
         "(NFKC, then casefold: 'ﬃ' becomes 'ffi')", "device_model": "device model", "make": "device make",
         "chip": "device chip", "os_version": "device os_version"}


def column_limit(model, name: str) -> int | None:
    return model._meta.get_field(name).max_length


def _text(model, name: str, value: str, problems: dict) -> None:
    what = TYPED.get(name, name)
    if has_controls(value):
        problems.setdefault(MALFORMED, []).append(f"{what} contains control characters")
    elif formula_lead(value):
        problems.setdefault(MALFORMED, []).append(f"{what} starts with {value[0]!r}, which a spreadsheet would run "
                                                  "as a formula")
    limit = column_limit(model, name)
    if limit is not None and len(value) > limit:
        problems.setdefault(TOO_LONG, []).append(f"{what} is {len(value):,} characters, over the limit of {limit}")


def _number(model, name: str, value, problems: dict) -> None:
    field = model._meta.get_field(name)
    if isinstance(value, float):
        if not math.isfinite(value):
            problems.setdefault(MALFORMED, []).append(f"{TYPED.get(name, name)} must be a finite number")
        return
    if field.get_internal_type() not in connection.ops.integer_field_ranges:
        return
    low, high = connection.ops.integer_field_range(field.get_internal_type())
    if (low is not None and value < low) or (high is not None and value > high):
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"{TYPED.get(name, name)} is {value:,}, outside {low:,}..{high:,}")


def _list(model, name: str, value, problems: dict) -> None:
    field = model._meta.get_field(name)
    limit = min((v.limit_value for v in field.validators if isinstance(v, MaxLengthValidator)), default=None)
    if limit is not None and len(value) > limit:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"{TYPED.get(name, name)} has {len(value):,} items, over the "
                                                      f"limit of {limit:,}")
    if any(isinstance(v, float) and not math.isfinite(v) for v in value):
        problems.setdefault(MALFORMED, []).append(f"{TYPED.get(name, name)} must hold finite numbers")


def check(model, values: dict, problems: dict) -> None:
    """Add to `problems` (refusals' codes) every value of `values` (field name -> value to store) that its column of
    `model` cannot hold or read back."""
    for name, value in values.items():
        if isinstance(value, str):
            _text(model, name, value, problems)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            _number(model, name, value, problems)
        elif isinstance(value, (list, tuple)):
            _list(model, name, value, problems)
