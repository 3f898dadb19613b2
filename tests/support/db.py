"""A fingerprint of every table: row counts plus a hash of every column value."""
import hashlib

from django.apps import apps


def _canonical(value):
    if isinstance(value, memoryview):
        return bytes(value).hex()
    return repr(value)


def db_snapshot() -> dict[str, tuple[int, str]]:
    result = {}
    for model in apps.get_models(include_auto_created=True):
        digest = hashlib.sha256()
        count = 0
        for row in model._default_manager.order_by("pk").values_list():
            digest.update("|".join(_canonical(v) for v in row).encode())
            count += 1
        result[model._meta.db_table] = (count, digest.hexdigest())
    return result
