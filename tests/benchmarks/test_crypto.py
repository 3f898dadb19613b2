import pytest
from cryptography.fernet import Fernet

from leaderboard.benchmarks.crypto import SealedKeyError, _cipher, decrypt_answer, encrypt_answer


@pytest.fixture(autouse=True)
def clear_cache():
    _cipher.cache_clear()
    yield
    _cipher.cache_clear()


def test_it_round_trips_and_randomises_ciphertext():
    first, second = encrypt_answer("A,C"), encrypt_answer("A,C")
    assert first != second and b"A,C" not in first
    assert decrypt_answer(first) == decrypt_answer(second) == "A,C"


def test_it_decrypts_with_an_older_key_after_rotation(settings):
    old = encrypt_answer("B")
    settings.SEALED_ANSWER_KEYS = [Fernet.generate_key().decode(), *settings.SEALED_ANSWER_KEYS]
    assert decrypt_answer(old) == "B"


def test_it_handles_a_missing_key(settings):
    settings.SEALED_ANSWER_KEYS = []
    with pytest.raises(SealedKeyError, match="SEALED_ANSWER_KEYS is not set"):
        encrypt_answer("A")


def test_it_handles_a_key_equal_to_secret_key(settings):
    settings.SEALED_ANSWER_KEYS = [settings.SECRET_KEY]
    with pytest.raises(SealedKeyError, match="must not reuse SECRET_KEY"):
        encrypt_answer("A")


def test_it_handles_a_malformed_key(settings):
    settings.SEALED_ANSWER_KEYS = ["not-a-key"]
    with pytest.raises(SealedKeyError, match="malformed key"):
        encrypt_answer("A")


def test_it_handles_a_rotated_away_key(settings):
    token = encrypt_answer("D")
    settings.SEALED_ANSWER_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(SealedKeyError, match="could not be decrypted"):
        decrypt_answer(token)
