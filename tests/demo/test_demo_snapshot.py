"""The tests' demo bank (tests/support/demo_snapshot.py: the rows of one real import, inserted again) is what the real
importer gives, and gives way to it where the database differs."""
from collections import Counter
from datetime import date, datetime

import pytest
from django.apps import apps
from django.db import models, transaction

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.demo import demo_import
from leaderboard.benchmarks.models import BenchmarkVersion, Question
from tests.support.demo_snapshot import restore

pytestmark = pytest.mark.django_db


def _content(tables) -> dict:
    """table -> its rows' values, but for keys, times and ciphertexts (which differ between two imports of the same
    files); the sealed answers decrypted."""
    out = {}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.db_table not in tables:
            continue
        fields = [f.attname for f in model._meta.concrete_fields
                  if not (f.primary_key or isinstance(f, (models.ForeignKey, models.DateTimeField, models.DateField,
                                                         models.BinaryField)))]
        out[model._meta.db_table] = Counter(
            tuple(repr(v) for v in row if not isinstance(v, (datetime, date)))
            for row in model.objects.values_list(*fields))
    out["sealed answers"] = Counter((uid, decrypt_answer(bytes(token))) for uid, token in Question.objects.filter(
        answer_sealed__isnull=False).values_list("uid", "answer_sealed"))
    return out


def test_the_snapshot_holds_what_the_importer_adds(_demo_snapshot):
    tables = set(_demo_snapshot.added)
    assert {"benchmarks_question", "benchmarks_benchmarkversion"} <= tables
    with transaction.atomic():
        real = demo_import()
        imported = _content(tables)
        transaction.set_rollback(True)
    assert restore(_demo_snapshot, demo_import) is _demo_snapshot.results and len(real) == len(_demo_snapshot.results)
    assert _content(tables) == imported
    assert Question.objects.filter(split="test").count() == 480
    # The next row made gets a key of its own (the sequences are past the inserted rows).
    version = BenchmarkVersion.objects.order_by("pk").last()
    assert BenchmarkVersion.objects.create(benchmark=version.benchmark, number=version.number + 1).pk > version.pk


def test_a_database_that_differs_gets_the_real_importer(_demo_snapshot):
    demo_import()
    versions = BenchmarkVersion.objects.count()
    results = restore(_demo_snapshot, demo_import)  # the importer again: identical content, nothing new
    assert results is not _demo_snapshot.results and BenchmarkVersion.objects.count() == versions

