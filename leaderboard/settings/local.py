"""Embedded defaults for one machine: SQLite file, file-system Celery broker, a generated sealed key."""
from pathlib import Path

from .base import *  # noqa: F403
from .base import VAR_DIR, env_bool

DEBUG = env_bool("DEBUG", True)
VAR_DIR.mkdir(parents=True, exist_ok=True)
for _folder in {v for k, v in CELERY_BROKER_TRANSPORT_OPTIONS.items() if k.endswith("folder") or "_folder_" in k}:  # noqa: F405
    Path(_folder).mkdir(parents=True, exist_ok=True)  # the file broker needs its folders to exist
if CELERY_RESULT_BACKEND.startswith("file://"):  # noqa: F405
    Path(CELERY_RESULT_BACKEND[len("file://"):]).mkdir(parents=True, exist_ok=True)  # noqa: F405

if not SEALED_ANSWER_KEYS:  # noqa: F405
    # Local runs keep a generated key beside the SQLite file so sealed demo
    # answers stay readable across restarts. Production must set the variable.
    from leaderboard.benchmarks.crypto import load_or_create_key_file

    SEALED_ANSWER_KEYS = [load_or_create_key_file(VAR_DIR / "sealed-answer.key")]
