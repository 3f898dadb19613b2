"""A database whose sealed answers the configured SEALED_ANSWER_KEYS cannot open is refused at start-up (the
system check `manage.py check`, `migrate` and every process start run), naming the key's fingerprint it needs;
never later, on a scoring task."""
import os
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from leaderboard.benchmarks import checks
from leaderboard.benchmarks.crypto import _cipher, key_fingerprint
from leaderboard.benchmarks.content_hashes import split_hash_match, stored_questions
from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.evaluations.selectors import answer_key
from tests.support.backups import REPO, database_url, empty_database

OTHER = Fernet.generate_key().decode()


@pytest.fixture(autouse=True)
def clear_cache():
    _cipher.cache_clear()
    yield
    _cipher.cache_clear()


@pytest.fixture
def data_key(settings):
    return settings.SEALED_ANSWER_KEYS[0]


def test_it_refuses_another_key_than_the_datas(demo_loaded, settings, data_key):
    settings.SEALED_ANSWER_KEYS = [OTHER]
    with pytest.raises(SystemCheckError) as refused:
        call_command("check")
    message = str(refused.value)
    assert "benchmarks.E001" in message and "SEALED_ANSWER_KEYS cannot open the sealed answers of" in message
    assert f"the key with fingerprint {key_fingerprint(data_key)}" in message  # the one it needs
    assert key_fingerprint(OTHER) in message  # and the one it was given
    assert data_key not in message and OTHER not in message  # fingerprints, never keys


def test_it_passes_with_the_right_key_and_after_a_rotation(demo_loaded, settings, data_key, capsys):
    call_command("check")
    settings.SEALED_ANSWER_KEYS = [OTHER, data_key]  # a new key first, the old one kept after it
    call_command("check")
    assert "no issues" in capsys.readouterr().out


def test_an_operator_who_lost_the_keys_can_still_serve_the_stored_results(demo_loaded, settings):
    settings.SEALED_ANSWER_KEYS = [OTHER]
    settings.SILENCED_SYSTEM_CHECKS = ["benchmarks.E001"]  # SILENCED_SYSTEM_CHECKS in docker/.env
    call_command("check")


def test_it_records_the_sealing_keys_fingerprint_at_import(demo_loaded, data_key):
    sealed = BenchmarkVersion.objects.filter(questions__split="test").distinct()
    assert sealed and {v.sealed_key_fingerprint for v in sealed} == {key_fingerprint(data_key)}


def test_it_passes_without_sealed_data(db, settings):
    settings.SEALED_ANSWER_KEYS = [OTHER]
    call_command("check")


def test_it_says_when_the_needed_fingerprint_was_not_recorded(demo_loaded, settings):
    BenchmarkVersion.objects.update(sealed_key_fingerprint="")  # sealed before fingerprints were kept
    settings.SEALED_ANSWER_KEYS = [OTHER]
    (error,) = checks.sealed_keys_open_the_sealed_answers()
    assert error.id == "benchmarks.E001" and checks.UNRECORDED in error.msg


@pytest.mark.parametrize("keys, says", [(["not-a-key"], "malformed key"), ("SECRET", "must not reuse SECRET_KEY")])
def test_it_refuses_unusable_keys(demo_loaded, settings, keys, says):
    settings.SEALED_ANSWER_KEYS = [settings.SECRET_KEY] if keys == "SECRET" else keys
    (error,) = checks.sealed_keys_open_the_sealed_answers()
    assert error.id == "benchmarks.E002" and says in error.msg


def test_it_leaves_the_gpu_worker_alone(demo_loaded, settings):
    """The GPU worker's settings have no keys: it never reads sealed answers, and its start is not refused."""
    settings.SEALED_ANSWER_KEYS = []
    assert checks.sealed_keys_open_the_sealed_answers() == []


def test_it_reads_one_answer_per_version(demo_loaded, settings, django_assert_max_num_queries):
    """Cheap at every start: a fixed number of queries whatever the number of versions and questions."""
    settings.SEALED_ANSWER_KEYS = [OTHER]
    with django_assert_max_num_queries(4):  # the tables and columns there, then one query
        assert len(checks.sealed_keys_open_the_sealed_answers()) == 1


def test_it_lets_migrate_start_on_an_empty_database(db):
    """manage.py migrate runs the checks before it creates a table: on an empty database `manage.py check` passes,
    as migrate's own start does."""
    with empty_database("empty") as name:
        result = subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, capture_output=True, text=True,
                                env={**os.environ, "DATABASE_URL": database_url(name),
                                     "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test"})
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_a_rotation_with_rekey_sealed_hashes_lets_the_old_key_go(demo_loaded, settings, data_key, capsys):
    """New key first, old one kept; rekey_sealed_hashes then moves the sealed answers and hashes to the new key, after
    which the old key can leave the list (before, the start-up check refuses a list without it)."""
    version = BenchmarkVersion.objects.filter(questions__split="test").distinct().get()
    key_before = answer_key(version=version, split="test")
    run = EvaluationRun.objects.create(benchmark_version=version, split="test", model_ref="org/m",
                                       dataset_hash=version.split_hashes["test"])
    settings.SEALED_ANSWER_KEYS = [OTHER]
    with pytest.raises(SystemCheckError, match=key_fingerprint(data_key)):
        call_command("check")  # dropped too early

    settings.SEALED_ANSWER_KEYS = [OTHER, data_key]
    call_command("rekey_sealed_hashes")
    assert "answers were encrypted again with the current key" in capsys.readouterr().out
    settings.SEALED_ANSWER_KEYS = [OTHER]  # the old key retired
    call_command("check")
    version.refresh_from_db()
    run.refresh_from_db()
    assert version.sealed_key_fingerprint == key_fingerprint(OTHER)
    assert answer_key(version=version, split="test") == key_before
    questions = stored_questions(version=version, split="test")
    assert split_hash_match(version.split_hashes["test"], questions, sealed=True) == "current"
    assert run.dataset_hash == version.split_hashes["test"]  # the run's label follows
    call_command("rekey_sealed_hashes")
    assert "already keyed; nothing changed" in capsys.readouterr().out
