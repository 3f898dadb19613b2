"""The start-up check that the configured SEALED_ANSWER_KEYS open this database's sealed answers.

A database restored on a new host, or started with a mistyped or rotated-away key, is refused when the process
starts (manage.py check, migrate and collectstatic run it, so every web start does; docker/start-worker.sh runs it
before the default worker), never later on a scoring task. Cheap: one sealed answer per benchmark version, one
query. Registered in BenchmarksConfig.ready."""
from django.conf import settings
from django.core.checks import Error, register
from django.db import DatabaseError, connection
from django.db.models import OuterRef, Subquery

from .crypto import SealedKeyError, key_fingerprint, opening_key_fingerprint

UNRECORDED = "(not recorded: sealed before fingerprints were kept)"


def _sealed_samples():
    """(version label, recorded fingerprint or "", one sealed answer) per version with a sealed split; [] where
    the tables are not there yet (migrate on an empty database) or no database can be reached."""
    from .models import BenchmarkVersion, Question

    try:
        tables = set(connection.introspection.table_names())
        if not {"benchmarks_benchmarkversion", "benchmarks_question"} <= tables:
            return []
        with connection.cursor() as cursor:
            columns = {c.name for c in connection.introspection.get_table_description(
                cursor, "benchmarks_benchmarkversion")}
        fields = ["benchmark__slug", "number", "token"]
        if "sealed_key_fingerprint" in columns:  # not before migration 0004
            fields.append("sealed_key_fingerprint")
        token = Question.objects.filter(version=OuterRef("pk"), split="test", answer_sealed__isnull=False)
        rows = (BenchmarkVersion.objects.annotate(token=Subquery(token.values("answer_sealed")[:1]))
                .filter(token__isnull=False).order_by("benchmark__slug", "number").values_list(*fields))
        return [(f"{slug} v{number}", rest[0] if rest else "", bytes(sample)) for slug, number, sample, *rest in rows]
    except DatabaseError:
        return []


@register("benchmarks")
def sealed_keys_open_the_sealed_answers(app_configs=None, **kwargs):
    keys = list(settings.SEALED_ANSWER_KEYS)
    if not keys:
        return []  # the GPU worker's settings: it never reads sealed answers
    try:
        unopened = {}
        for label, recorded, token in _sealed_samples():
            if opening_key_fingerprint(token) is None:
                unopened.setdefault(recorded or UNRECORDED, []).append(label)
    except SealedKeyError as exc:
        return [Error(str(exc), hint="Fix SEALED_ANSWER_KEYS in the environment (docker/.env).",
                      id="benchmarks.E002")]
    configured = ", ".join(key_fingerprint(key) for key in keys)
    return [Error(f"SEALED_ANSWER_KEYS cannot open the sealed answers of {', '.join(labels)}: they need the key "
                  f"with fingerprint {needed}; the configured keys' fingerprints are {configured}.",
                  hint="Set SEALED_ANSWER_KEYS to the key this database's sealed split was encrypted with (its "
                       "offline copy: docs/operations.md, \"Backups and recovery\"); after a rotation the old key "
                       "stays in the list, after the new one.",
                  id="benchmarks.E001")
            for needed, labels in unopened.items()]
