"""A process started with the GPU worker settings cannot decrypt sealed answers, even if the keys leak into its environment."""
import os
import subprocess
import sys

import pytest
from django.db import connection

from leaderboard.benchmarks.crypto import encrypt_answer
from tests.support.lifecycle import BROKER
from tests.support.worker import REPO

pytestmark = pytest.mark.django_db
PROBE = """
import django, sys
django.setup()
from django.conf import settings
from leaderboard.benchmarks.crypto import SealedKeyError, decrypt_answer
print("secret", settings.SECRET_KEY == sys.argv[2])
print("keys", settings.SEALED_ANSWER_KEYS)
try:
    decrypt_answer(bytes.fromhex(sys.argv[1]))
    print("decrypted")
except SealedKeyError as exc:
    print("refused:", exc)
"""


def test_it_has_no_sealed_key_and_not_the_site_secret(settings):
    token = encrypt_answer("B")
    site_secret = "k3Y-Tq9!vZ2pW8rL0sN5bX7mC4hJ6gF1dA8eR3tU5yI0oP2qS9wE"
    s = connection.settings_dict
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings.gpu_worker",
           "DATABASE_URL": f"postgresql://{s['USER']}@{s['HOST'] or 'localhost'}:{s['PORT'] or 5432}/{s['NAME']}",
           "CELERY_BROKER_URL": BROKER,
           # As if an operator leaked both into the worker's environment:
           "SECRET_KEY": site_secret, "SEALED_ANSWER_KEYS": ",".join(settings.SEALED_ANSWER_KEYS)}
    out = subprocess.run([sys.executable, "-c", PROBE, token.hex(), site_secret], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "secret False" in out.stdout and "keys []" in out.stdout
    assert "refused: SEALED_ANSWER_KEYS is not set" in out.stdout and "decrypted" not in out.stdout
