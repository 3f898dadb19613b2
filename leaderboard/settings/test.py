"""Test settings: the suite runs against PostgreSQL and Redis (never SQLite or eager Celery)."""
from .base import *  # noqa: F403
from .base import cache_from_env, database_from_env, env_str

DATABASES = {"default": database_from_env("postgresql://postgres@127.0.0.1:5432/leaderboard")}
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_HARD_TIME_LIMIT}  # noqa: F405
CACHES = cache_from_env("redis://127.0.0.1:6379/14")  # tests/conftest.py clears it around each test
SEALED_ANSWER_KEYS = ["y3JD5KDcXNRBi9eqiTzQw9KXg0n7kJB4LgUu2P3vuEE="]  # test-only key
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user fixtures
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# django-axes refuses to authenticate without a request, and Django's test Client.login sends none: off here, on in
# the tests of sign-in throttling (tests/frontend/test_accounts_hardening.py), which sign in through the pages.
AXES_ENABLED = False
# On-device variants (three more runs per benchmark for every model up to 8B) are asked for by the tests that test
# them; those set the deployed default back (tests/submissions/test_ondevice_variants.py checks it is 8B).
ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = 0
