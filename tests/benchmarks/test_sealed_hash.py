"""The hash published for the sealed split (a run's dataset_hash, the version's content hash) is keyed with a
secret derived from SEALED_ANSWER_KEYS: it cannot confirm a guessed answer key offline. Re-importing identical
content stays a no-op (under a rotated key too), runs still pin a version, and the unkeyed hashes stored
before are replaced, labels only."""
import hashlib
import json

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command

from leaderboard.benchmarks.content_hashes import split_content_hash, stored_questions
from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.benchmarks.services import benchmark_import
from leaderboard.evaluations.models import EvaluationRun
from tests.support.questions import make_questions, write_answer_key, write_hub_folder

pytestmark = pytest.mark.django_db


def import_sealed(tmp_path, rows, name="k.csv"):
    folder = write_hub_folder(tmp_path / "hub", rows)
    key = write_answer_key(tmp_path / name, rows)
    return benchmark_import(benchmark_slug="mobile-mmlu", split="test", path=folder, answers_path=key, sealed=True)


def unkeyed_sha256(rows, answers):
    """What anyone holding the questions and a candidate key could compute offline (the old published hash)."""
    digest = hashlib.sha256()
    for row in sorted(rows, key=lambda r: r["question_id"]):
        line = [row["question_id"], row["topic"], row["question"], list(row["options"]), answers[row["question_id"]],
                None, None]
        digest.update(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
    return digest.hexdigest()


def version():
    return BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")


def test_the_sealed_hash_cannot_be_checked_against_a_guessed_key(tmp_path):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    published = version().split_hashes["test"]
    assert len(published) == 64
    true_key = {r["question_id"]: r["answer"] for r in rows}
    assert unkeyed_sha256(rows, true_key) != published  # even the right key does not reproduce it
    wrong_key = {**true_key, rows[0]["question_id"]: "B"}
    assert unkeyed_sha256(rows, wrong_key) != published


def test_the_sealed_hash_depends_on_the_server_secret(tmp_path, settings):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    questions = stored_questions(version=version(), split="test")
    assert split_content_hash(questions, sealed=True) == version().split_hashes["test"]
    settings.SEALED_ANSWER_KEYS = [Fernet.generate_key().decode()]
    assert split_content_hash(questions, sealed=True) != version().split_hashes["test"]


def test_the_open_hash_is_still_plain_sha256(tmp_path):
    rows = make_questions(prefix="v")
    folder = write_hub_folder(tmp_path / "hub", rows, with_answers=True, sub="validation")
    benchmark_import(benchmark_slug="mobile-mmlu", split="validation", path=folder)
    assert version().split_hashes["validation"] == unkeyed_sha256(rows, {r["question_id"]: r["answer"] for r in rows})


def test_a_changed_answer_key_still_changes_the_sealed_content(tmp_path):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    v1 = version()
    EvaluationRun.objects.create(benchmark_version=v1, split="test", model_ref="org/m",
                                 dataset_hash=v1.split_hashes["test"])
    rows[0]["answer"] = "D"
    result = import_sealed(tmp_path, rows, name="k2.csv")
    assert result.outcome == "new-version"  # the pinned version keeps what its runs measured
    v2 = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu", number=2)
    assert v2.split_hashes["test"] != v1.split_hashes["test"]
    assert BenchmarkVersion.objects.get(pk=v1.pk).split_hashes == v1.split_hashes


def test_an_identical_sealed_reimport_is_a_no_op_also_after_a_key_rotation(tmp_path, settings, snapshot):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    before = snapshot()
    assert import_sealed(tmp_path, rows).outcome == "unchanged"
    settings.SEALED_ANSWER_KEYS = [Fernet.generate_key().decode(), *settings.SEALED_ANSWER_KEYS]
    assert import_sealed(tmp_path, rows).outcome == "unchanged"
    assert snapshot() == before


def test_it_replaces_a_legacy_unkeyed_hash_on_reimport(tmp_path, snapshot):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    keyed = version().split_hashes["test"]
    legacy = unkeyed_sha256(rows, {r["question_id"]: r["answer"] for r in rows})
    v = version()
    BenchmarkVersion.objects.filter(pk=v.pk).update(split_hashes={**v.split_hashes, "test": legacy})
    run = EvaluationRun.objects.create(benchmark_version=v, split="test", model_ref="org/m", dataset_hash=legacy)
    result = import_sealed(tmp_path, rows)
    assert result.outcome == "rehashed" and "keyed hash" in result.message
    assert version().split_hashes["test"] == keyed and version().number == 1  # a label, not a new version
    run.refresh_from_db()
    assert run.dataset_hash == keyed
    before = snapshot()
    assert import_sealed(tmp_path, rows).outcome == "unchanged" and snapshot() == before


def test_the_command_replaces_legacy_hashes_of_every_version(tmp_path, capsys):
    rows = make_questions(prefix="s")
    import_sealed(tmp_path, rows)
    v = version()
    keyed, content = v.split_hashes["test"], v.content_hash
    legacy = unkeyed_sha256(rows, {r["question_id"]: r["answer"] for r in rows})
    BenchmarkVersion.objects.filter(pk=v.pk).update(split_hashes={**v.split_hashes, "test": legacy}, content_hash="x")
    run = EvaluationRun.objects.create(benchmark_version=v, split="test", model_ref="org/m", dataset_hash=legacy)
    call_command("rekey_sealed_hashes")
    assert "replaced by the keyed hash" in capsys.readouterr().out
    assert version().split_hashes["test"] == keyed and version().content_hash == content
    run.refresh_from_db()
    assert run.dataset_hash == keyed
    call_command("rekey_sealed_hashes")
    assert "already keyed" in capsys.readouterr().out


def test_stored_questions_hash_like_the_import(demo_loaded):
    v = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    for split in ("dev", "validation", "test"):
        questions = stored_questions(version=v, split=split)
        assert split_content_hash(questions, sealed=split == "test") == v.split_hashes[split], split
