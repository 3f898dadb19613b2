"""Production: everything that matters is required from the environment; no insecure fallbacks."""
from django.core.exceptions import ImproperlyConfigured

from leaderboard.core.sentry import sentry_init

from .base import *  # noqa: F403
from .base import LOG_LEVEL, build_logging, cache_from_env, database_from_env, env_bool, env_int, env_list, env_str

DEBUG = False
SECRET_KEY = env_str("SECRET_KEY", required=True)
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("insecure"):
    raise ImproperlyConfigured("SECRET_KEY must be a random string of at least 50 characters.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS is required in production (comma-separated host names).")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

DATABASES = {"default": database_from_env(env_str("DATABASE_URL", required=True))}
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", required=True)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", CELERY_BROKER_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_HARD_TIME_LIMIT}  # noqa: F405
# Shared by every web process and the workers (the "new results" signal must reach them all).
# Default: the broker's Redis server; our keys carry their own prefix and nothing here flushes it.
CACHES = cache_from_env(CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None)
if CACHES["default"]["BACKEND"].endswith(("LocMemCache", "DummyCache")):
    raise ImproperlyConfigured("CACHE_URL must name a cache shared by all processes in production "
                               "(redis:// or file://).")
SEALED_ANSWER_KEYS = env_list("SEALED_ANSWER_KEYS")
if not SEALED_ANSWER_KEYS:
    raise ImproperlyConfigured(
        "SEALED_ANSWER_KEYS is required in production: generate one with "
        "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# Observability: JSON log lines for the log shipper; Sentry only when its DSN is set (the GPU worker,
# whose settings do not import these, never reports: its errors may quote sealed question text).
LOG_FORMAT = env_str("LOG_FORMAT", "json")
LOGGING = build_logging(fmt=LOG_FORMAT, level=LOG_LEVEL)
ACCESS_LOG = env_bool("ACCESS_LOG", True)
SENTRY_DSN = env_str("SENTRY_DSN", "")
sentry_init(dsn=SENTRY_DSN, environment=env_str("SENTRY_ENVIRONMENT", "production"),
            release=env_str("SENTRY_RELEASE", ""), traces_sample_rate=env_str("SENTRY_TRACES_SAMPLE_RATE", "0"))
