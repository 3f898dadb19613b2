"""The published content hashes of a split and of a version, and the stored questions they are computed from."""
import hashlib
import hmac
import json
from dataclasses import dataclass

from .crypto import decrypt_answer, sealed_hash_keys
from .models import SEALED_SPLITS, BenchmarkVersion

BULK_BATCH = 2000


def _canonical_lines(questions) -> list[bytes]:
    return [json.dumps(question.canonical(), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
            for question in sorted(questions, key=lambda q: q.uid)]


def _digest(lines, key: bytes | None = None) -> str:
    digest = hmac.new(key, digestmod=hashlib.sha256) if key is not None else hashlib.sha256()
    for line in lines:
        digest.update(line)
    return digest.hexdigest()


def split_content_hash(questions, *, sealed: bool = False) -> str:
    """The split's published content hash, independent of file order and encryption.

    Open split: sha256 of its canonical content (uid, topic, text, options, answer set, MRScore, difficulty),
    which anyone holding the open questions can recompute. Sealed split: HMAC-SHA256 of the same content with
    a key derived from SEALED_ANSWER_KEYS (``crypto.sealed_hash_keys``), held by the web and the default
    worker only: it still changes with any change of content, answers included, but cannot be used to check
    a guessed answer key (or guessed questions) offline.
    """
    return _digest(_canonical_lines(questions), sealed_hash_keys()[0] if sealed else None)


def split_hash_match(stored: str, questions, *, sealed: bool = False) -> str | None:
    """Whether ``stored`` is a hash of exactly this content: "current"; "rotated" (a sealed hash under an older
    key of SEALED_ANSWER_KEYS, still secret: as good as current); "legacy" (the unkeyed sha256 sealed splits
    had before, which lets a guessed key be checked: to be replaced); or None (other content)."""
    if not stored:
        return None
    lines = _canonical_lines(questions)
    if not sealed:
        return "current" if hmac.compare_digest(_digest(lines), stored) else None
    for index, key in enumerate(sealed_hash_keys()):
        if hmac.compare_digest(_digest(lines, key), stored):
            return "current" if index == 0 else "rotated"
    return "legacy" if hmac.compare_digest(_digest(lines), stored) else None


def version_content_hash(split_hashes: dict) -> str:
    return hashlib.sha256(json.dumps(split_hashes, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class StoredQuestion:
    """A stored question in the importer's canonical form (sealed answers decrypted: trusted side only)."""

    uid: str
    topic_key: str
    text: str
    options: tuple
    answer: str
    mrscore: float | None
    difficulty: float | None
    extra: dict

    def canonical(self):
        return canonical_question(self)


def canonical_question(question) -> list:
    """What a question's content hash covers (an imported question's or a stored one's). ``extra`` only where
    it holds something, so the hashes of questions without it stay what they always were."""
    canonical = [question.uid, question.topic_key, question.text, list(question.options), question.answer,
                 question.mrscore, question.difficulty]
    return canonical + [sorted(question.extra.items())] if question.extra else canonical


def stored_questions(*, version: BenchmarkVersion, split: str) -> list[StoredQuestion]:
    sealed = split in SEALED_SPLITS
    rows = version.questions.filter(split=split).select_related("topic").order_by("uid")
    return [StoredQuestion(q.uid, q.topic.hub_field, q.text, tuple(q.options),
                           decrypt_answer(q.answer_sealed) if sealed else q.answer, q.mrscore, q.difficulty, q.extra)
            for q in rows.iterator(chunk_size=BULK_BATCH)]
