"""Encryption at rest for sealed (test-split) answers.

Fernet (AES-128-CBC + HMAC) with keys from SEALED_ANSWER_KEYS, never SECRET_KEY:
the GPU worker environment has neither, so untrusted model code cannot read the key.
MultiFernet lets an operator rotate keys: encrypt with the first, decrypt with any.

The same keys also key the sealed split's content hash (``sealed_hash_keys``): an HMAC with a key derived
from each, so the hash published for the sealed split (``dataset_hash``, ``content_hash``) cannot be used to
check guessed questions or a guessed answer key offline.
"""
import base64
import hashlib
import hmac
from functools import lru_cache
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class SealedKeyError(ImproperlyConfigured):
    pass


@lru_cache(maxsize=4)
def _cipher(keys: tuple[str, ...]) -> MultiFernet:
    if not keys:
        raise SealedKeyError(
            "SEALED_ANSWER_KEYS is not set in this environment, so sealed answers cannot be read or "
            "written here. Set it on the web and default-worker processes only."
        )
    if settings.SECRET_KEY in keys:
        raise SealedKeyError("SEALED_ANSWER_KEYS must not reuse SECRET_KEY.")
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except (ValueError, TypeError):
        raise SealedKeyError(
            "SEALED_ANSWER_KEYS holds a malformed key: each must be 32 url-safe base64-encoded bytes "
            "(generate with Fernet.generate_key())."
        ) from None


def _current_cipher() -> MultiFernet:
    return _cipher(tuple(settings.SEALED_ANSWER_KEYS))


def encrypt_answer(letters: str) -> bytes:
    return _current_cipher().encrypt(letters.encode("ascii"))


UNOPENED = ("A sealed answer could not be decrypted with SEALED_ANSWER_KEYS; was the key rotated without keeping "
            "the old one in the list?")


def decrypt_answer(token: bytes) -> str:
    try:
        return _current_cipher().decrypt(bytes(token)).decode("ascii")
    except InvalidToken:
        raise SealedKeyError(UNOPENED) from None


def rotate_answer(token: bytes) -> bytes:
    """``token`` encrypted again with the current (first) key, whichever configured key opens it."""
    try:
        return _current_cipher().rotate(bytes(token))
    except InvalidToken:
        raise SealedKeyError(UNOPENED) from None


SPLIT_HASH_LABEL = b"mobile-mmlu-leaderboard sealed split content hash v1"


def sealed_hash_keys() -> list[bytes]:
    """HMAC keys for the sealed split's content hash, one per SEALED_ANSWER_KEYS entry, the current one first.

    Each is derived from its Fernet key with a fixed label (never the encryption key itself); like the
    answers, the hash can be computed only where the sealed key is (web and default worker)."""
    keys = tuple(settings.SEALED_ANSWER_KEYS)
    _cipher(keys)  # the same checks and messages: unset, reusing SECRET_KEY, malformed
    return [hmac.new(base64.urlsafe_b64decode(key.encode()), SPLIT_HASH_LABEL, hashlib.sha256).digest()
            for key in keys]


FINGERPRINT_LABEL = b"mobile-mmlu-leaderboard sealed key fingerprint v1"


def key_fingerprint(key: str) -> str:
    """A short public name for one SEALED_ANSWER_KEYS entry: 16 hex digits of an HMAC keyed with it. Recorded on
    each version whose sealed answers it encrypted, so a start-up with the wrong keys can say which key it needs
    (checks.py); it reveals nothing of the key."""
    raw = base64.urlsafe_b64decode(key.encode())
    return hmac.new(raw, FINGERPRINT_LABEL, hashlib.sha256).hexdigest()[:16]


def current_key_fingerprint() -> str:
    """The fingerprint of the key new sealed answers are encrypted with (the first)."""
    keys = tuple(settings.SEALED_ANSWER_KEYS)
    _cipher(keys)  # the same checks and messages: unset, reusing SECRET_KEY, malformed
    return key_fingerprint(keys[0])


def opening_key_fingerprint(token: bytes) -> str | None:
    """The fingerprint of the configured key that opens ``token``, or None if none of them does."""
    keys = tuple(settings.SEALED_ANSWER_KEYS)
    _cipher(keys)
    for key in keys:
        try:
            Fernet(key.encode()).decrypt(bytes(token))
        except InvalidToken:
            continue
        return key_fingerprint(key)
    return None


def load_or_create_key_file(path: Path) -> str:
    """Local development only: a generated key kept next to the SQLite database."""
    path = Path(path)
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = Fernet.generate_key().decode()
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key
