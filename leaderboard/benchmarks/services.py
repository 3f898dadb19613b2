"""Writes to the question bank: importing a split, and keeping the split hashes of a version current.

Its content hashes are computed in content_hashes.py; a benchmark with its own taxonomy is created by
creation_services.py."""
from dataclasses import dataclass, replace
from pathlib import Path

from django.conf import settings
from django.db import transaction

from leaderboard.core.cache_generation import results_changed
from leaderboard.core.errors import DomainError

from . import selectors
from .content_hashes import (BULK_BATCH, split_content_hash, split_hash_match, stored_questions,
                             version_content_hash)
from .crypto import current_key_fingerprint, encrypt_answer, rotate_answer
from .importers.errors import BenchmarkImportError, ImportProblem, ProblemCollector
from .importers.hub import download_hub_dataset
from .importers.readers import read_answer_key, read_folder, read_table_file
from .importers.validation import clean_records
from .models import Benchmark, BenchmarkVersion, Question, SEALED_SPLITS, Split


@dataclass(frozen=True)
class ImportResult:
    benchmark: str
    version: int
    split: str
    questions: int
    outcome: str  # "created", "added", "replaced", "new-version", "unchanged", "rehashed" (a legacy sealed label)
    content_hash: str
    message: str


def _no_progress(iterable, description="", total=None):
    return iterable


def _set_split_hash(version: BenchmarkVersion, split: str, new_hash: str):
    """Store a split's hash and the version's; runs that carried the old label of the same content get the new
    one (they measured exactly this content)."""
    old = version.split_hashes.get(split)
    version.split_hashes = {**version.split_hashes, split: new_hash}
    version.content_hash = version_content_hash(version.split_hashes)
    version.save(update_fields=["split_hashes", "content_hash"])
    if old and old != new_hash:
        version.runs.filter(split=split, dataset_hash=old).update(dataset_hash=new_hash)


class VersionPinned(DomainError, ValueError):
    def __init__(self, version):
        super().__init__("VERSION_PINNED", f"{version} is pinned by evaluation runs: its content and hashes never "
                         "change.", "Import the changed questions as a new version (import_benchmark).", status=409)


def split_hash_refresh(*, version: BenchmarkVersion, split: str) -> str:
    """Recompute a split's hash from the stored questions (after an edit of a version no run has used)."""
    if selectors.version_has_runs(version=version):
        raise VersionPinned(version)
    new_hash = split_content_hash(stored_questions(version=version, split=split), sealed=split in SEALED_SPLITS)
    if version.split_hashes.get(split) != new_hash:
        _set_split_hash(version, split, new_hash)
    return new_hash


@transaction.atomic
def sealed_hashes_rekey(*, benchmark_slug: str | None = None) -> list[str]:
    """Replace every legacy (unkeyed) sealed split hash by the keyed one, on versions and their runs; after a key
    rotation, key again hashes made under an older key and encrypt again answers sealed under one, with the
    current (first) key of SEALED_ANSWER_KEYS, so that the old key can then be removed.

    Only labels and ciphertext change: the stored content must hash to the old label exactly, or the split is reported
    and left alone. Idempotent. Returns one line per sealed split looked at."""
    versions = BenchmarkVersion.objects.select_for_update().select_related("benchmark").order_by("benchmark", "number")
    if benchmark_slug:
        versions = versions.filter(benchmark__slug=benchmark_slug)
    lines, changed = [], False
    for version in versions:
        for split in sorted(set(version.split_hashes) & set(SEALED_SPLITS)):
            questions = stored_questions(version=version, split=split)
            match = split_hash_match(version.split_hashes[split], questions, sealed=True)
            if match is None:
                lines.append(f"{version} {split}: the stored hash matches no hash of the stored questions; left "
                             "as it is (check SEALED_ANSWER_KEYS)")
                continue
            done = []
            if match in ("legacy", "rotated"):
                _set_split_hash(version, split, split_content_hash(questions, sealed=True))
                done.append("the unkeyed hash was replaced by the keyed hash (runs relabelled)" if match == "legacy"
                            else "its hash was keyed again with the current key (runs relabelled)")
            if _answers_reencrypt(version, split):
                done.append(f"its answers were encrypted again with the current key ({version.sealed_key_fingerprint})")
            changed = changed or bool(done)
            lines.append(f"{version} {split}: {'; '.join(done) or 'already keyed; nothing changed'}")
    if changed:
        transaction.on_commit(results_changed)  # cached API responses show dataset hashes
    return lines



def _answers_reencrypt(version: BenchmarkVersion, split: str) -> bool:
    """After a key rotation: a version sealed under an older key of SEALED_ANSWER_KEYS gets its answers encrypted
    with the current one, so the old key can leave the list. Contents and decrypted answers are unchanged."""
    current = current_key_fingerprint()
    if version.sealed_key_fingerprint == current:
        return False
    questions = list(version.questions.filter(split=split).only("pk", "answer_sealed"))
    for question in questions:
        question.answer_sealed = rotate_answer(question.answer_sealed)
    Question.objects.bulk_update(questions, ["answer_sealed"], batch_size=BULK_BATCH)
    version.sealed_key_fingerprint = current
    version.save(update_fields=["sealed_key_fingerprint"])
    return True


def _check_split_flags(split: str, sealed: bool):
    if split not in Split.values:
        raise BenchmarkImportError([ImportProblem("--split", f"unknown split {split!r}",
                                                  hint=f"use one of {', '.join(Split.values)}")])
    if (split in SEALED_SPLITS) != bool(sealed):
        hint = ("the test split is sealed: add --sealed to confirm its answers will be encrypted"
                if split in SEALED_SPLITS else "--sealed is only for the test split")
        raise BenchmarkImportError([ImportProblem("--sealed", f"--sealed does not match split {split!r}", hint=hint)])


def _read_questions(path: Path, split: str, answers_path, topics, progress, files=None):
    """(clean questions, notes on what the import changed of the files' content for the report)."""
    problems, notes = ProblemCollector(), []
    limit = settings.IMPORT_MAX_FILE_BYTES
    if files and not path.is_dir():
        problems.add("--files", "--files chooses files in a folder or a hub dataset",
                     hint="pass --path FOLDER or --hub REPO with it, or --path FILE without it")
        records = []
    elif path.is_dir():
        records = read_folder(path, split, max_bytes=limit, problems=problems, progress=progress, pattern=files)
    elif path.is_file():
        records = read_table_file(path, max_bytes=limit, problems=problems)
    else:
        problems.add(path, "no such file or folder")
        records = []
    answer_key = read_answer_key(Path(answers_path), max_bytes=limit, problems=problems) if answers_path else {}
    problems.raise_if_any()  # unreadable input: don't pile row-level noise on top
    clean = clean_records(records, topics=topics, answer_key=answer_key, answer_key_path=str(answers_path or ""),
                          problems=problems, sealed=split in SEALED_SPLITS, notes=notes)
    problems.raise_if_any()
    return clean, notes


def _question_rows(version, split, clean, progress):
    sealed = split in SEALED_SPLITS
    for position, q in enumerate(progress(clean, f"preparing {split}", len(clean))):
        yield Question(
            version=version, uid=q.uid, topic_id=q.topic_id, split=split, position=position, text=q.text,
            options=list(q.options),
            answer="" if sealed else q.answer,
            answer_sealed=encrypt_answer(q.answer) if sealed else None,
            mrscore=q.mrscore, difficulty=q.difficulty, extra=q.extra,
        )


def _copy_other_splits(source: BenchmarkVersion, target: BenchmarkVersion, split: str):
    copies = [
        Question(version=target, uid=q.uid, topic_id=q.topic_id, split=q.split, position=q.position, text=q.text,
                 options=q.options, answer=q.answer, answer_sealed=q.answer_sealed, mrscore=q.mrscore,
                 difficulty=q.difficulty, extra=q.extra)
        for q in source.questions.exclude(split=split).iterator(chunk_size=BULK_BATCH)
    ]
    Question.objects.bulk_create(copies, batch_size=BULK_BATCH)


def _refuse_uids_in_other_splits(version, split, clean):
    uids = {q.uid for q in clean}
    clashes = list(version.questions.exclude(split=split).filter(uid__in=uids).values_list("uid", "split")[:20])
    if clashes:
        raise BenchmarkImportError([
            ImportProblem("input", f"question_id {uid!r} already exists in the {other} split of {version}",
                          column="question_id", hint="question ids must be unique across a benchmark's splits")
            for uid, other in clashes
        ])


def benchmark_import(*, benchmark_slug: str, split: str, path=None, hub_repo=None, revision="",
                     answers_path=None, sealed=False, files=None, progress=_no_progress) -> ImportResult:
    """Import one split of a benchmark, all or nothing.

    Identical content is a no-op. New content for a split replaces it in place
    while no run used the version; once runs exist it becomes a new version
    (the other splits are carried over), so measured results keep their data.
    ``files`` is a glob choosing the files of a folder or hub dataset (e.g. ``data/test-*.parquet``).
    """
    _check_split_flags(split, sealed)
    if hub_repo:  # network first, outside the transaction
        path, revision = download_hub_dataset(hub_repo, revision or "main", pattern=files)
    if path is None:
        raise BenchmarkImportError([ImportProblem("--path", "no input given", hint="pass --path or --hub")])
    result = _import_locked(benchmark_slug=benchmark_slug, split=split, path=Path(path), revision=revision,
                            answers_path=answers_path, progress=progress, files=files)
    if result.outcome != "unchanged":
        results_changed()  # a new version changes which results the boards show
    return result


@transaction.atomic
def _import_locked(*, benchmark_slug, split, path, revision, answers_path, progress, files) -> ImportResult:
    # The row lock serialises concurrent imports of one benchmark.
    benchmark = Benchmark.objects.select_for_update().filter(slug=benchmark_slug).first()
    if benchmark is None:
        known = ", ".join(b.slug for b in selectors.benchmark_list()) or "none"
        raise BenchmarkImportError([ImportProblem("--benchmark", f"unknown benchmark {benchmark_slug!r}",
                                                  hint=f"known benchmarks: {known}")])
    clean, notes = _read_questions(path, split, answers_path, selectors.topic_index(benchmark=benchmark), progress,
                                   files)
    result = _store_split(benchmark, split, clean, revision, progress)
    return replace(result, message=" ".join([result.message, *notes]))  # what became of the files' content


def _store_split(benchmark, split, clean, revision, progress) -> ImportResult:
    sealed = split in SEALED_SPLITS
    new_hash = split_content_hash(clean, sealed=sealed)

    current = selectors.version_current(benchmark=benchmark)
    match = split_hash_match(current.split_hashes.get(split, ""), clean, sealed=sealed) if current else None
    if match == "legacy":  # same content; only its published label was the unkeyed (checkable) sha256
        _set_split_hash(current, split, new_hash)
        return ImportResult(benchmark.slug, current.number, split, len(clean), "rehashed", current.content_hash,
                            f"{benchmark.slug} v{current.number} {split}: identical content already imported "
                            f"({len(clean)} questions); its unkeyed sealed hash was replaced by the keyed hash "
                            "(runs relabelled), nothing else changed.")
    if match:
        return ImportResult(benchmark.slug, current.number, split, len(clean), "unchanged", current.content_hash,
                            f"{benchmark.slug} v{current.number} {split}: identical content already imported "
                            f"({len(clean)} questions); nothing changed.")

    if current is None:
        version, outcome = BenchmarkVersion.objects.create(benchmark=benchmark, number=1), "created"
    elif split not in current.split_hashes:
        version, outcome = current, "added"
    elif selectors.version_has_runs(version=current):
        version = BenchmarkVersion.objects.create(benchmark=benchmark, number=current.number + 1,
                                                  split_hashes={k: v for k, v in current.split_hashes.items() if k != split},
                                                  source_revision=current.source_revision,
                                                  sealed_key_fingerprint="" if sealed else current.sealed_key_fingerprint)
        _copy_other_splits(current, version, split)
        outcome = "new-version"
    else:
        current.questions.filter(split=split).delete()
        version, outcome = current, "replaced"

    _refuse_uids_in_other_splits(version, split, clean)
    Question.objects.bulk_create(_question_rows(version, split, clean, progress), batch_size=BULK_BATCH)
    version.split_hashes = {**version.split_hashes, split: new_hash}
    version.content_hash = version_content_hash(version.split_hashes)
    if revision:
        version.source_revision = revision
    if sealed:  # the sealed answers were encrypted with the first key just now (_question_rows)
        version.sealed_key_fingerprint = current_key_fingerprint()
    version.save(update_fields=["split_hashes", "content_hash", "source_revision", "sealed_key_fingerprint"])

    explain = {
        "created": "created version 1",
        "added": f"added the {split} split to v{version.number}",
        "replaced": f"replaced the {split} split of v{version.number} (no run had used it)",
        "new-version": f"runs used v{current.number if current else 0}, so this content became v{version.number}",
    }[outcome]
    return ImportResult(benchmark.slug, version.number, split, len(clean), outcome, version.content_hash,
                        f"{benchmark.slug}: imported {len(clean)} {split} questions; {explain}.")
