"""GPU worker: runs model code from the internet, so it holds no secrets (ARCHITECTURE §2, §6).

It reads questions (text and options) and writes predictions; it never decrypts a
sealed answer and never signs anything. Whatever the environment says, the sealed
keys are empty and SECRET_KEY is a throw-away random value, so a leaked worker
environment or a malicious model cannot read the sealed answer key.
"""
import secrets

from .base import *  # noqa: F403
from .base import LOG_LEVEL, build_logging, database_from_env, env_str

DEBUG = False
SECRET_KEY = "gpu-worker-" + secrets.token_urlsafe(48)  # never the site's key; nothing here is signed
SEALED_ANSWER_KEYS = []  # deliberately ignores the environment
DATABASES = {"default": database_from_env(env_str("DATABASE_URL", required=True))}
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", required=True)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_HARD_TIME_LIMIT}  # noqa: F405
LOG_FORMAT = env_str("LOG_FORMAT", "json")  # production-only settings: JSON lines, like the web's
LOGGING = build_logging(fmt=LOG_FORMAT, level=LOG_LEVEL)
# No Sentry here: an error report could quote sealed question text the worker holds.
