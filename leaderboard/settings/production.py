"""Production: everything that matters is required from the environment; no insecure fallbacks."""
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from leaderboard.core.sentry import sentry_init

from .base import *  # noqa: F403
from .base import LOG_LEVEL, build_logging, cache_from_env, database_from_env, env_bool, env_int, env_list, env_str


def _redis_servers(urls: str) -> set[str]:
    """The Redis servers ("host:port") that comma-separated URLs name; other schemes are ignored."""
    servers = set()
    for url in urls.split(","):
        parts = urlsplit(url.strip())
        if parts.scheme in ("redis", "rediss") and parts.hostname:
            host = "localhost" if parts.hostname in ("localhost", "127.0.0.1", "::1") else parts.hostname
            servers.add(f"{host}:{parts.port or 6379}")
    return servers


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
# Shared by every web process and the workers (the "new results" signal must reach them all), and
# never on a Redis the GPU worker can reach: Django's Redis cache unpickles what it reads, so whoever
# can write a cache entry can run code in the web tier, and the GPU worker runs untrusted model code.
if not env_str("CACHE_URL"):
    raise ImproperlyConfigured(
        "CACHE_URL is required in production: a Redis server of its own for the page/API cache, e.g. "
        "redis://cache:6379/0 (compose's `cache` service). Not the broker's: the GPU worker can reach the "
        "broker, and a cache entry it wrote would be unpickled, i.e. run as code, by the web processes.")
CACHES = cache_from_env(None)
if CACHES["default"]["BACKEND"].endswith(("LocMemCache", "DummyCache")):
    raise ImproperlyConfigured("CACHE_URL must name a cache shared by all processes in production "
                               "(redis:// or file://).")
_shared = _redis_servers(CACHES["default"].get("LOCATION", "")) & _redis_servers(
    f"{CELERY_BROKER_URL},{CELERY_RESULT_BACKEND}")
if _shared:
    raise ImproperlyConfigured(
        f"CACHE_URL is on the Redis server of CELERY_BROKER_URL/CELERY_RESULT_BACKEND ({', '.join(sorted(_shared))}). "
        "The GPU worker, which runs untrusted model code, can reach that server, and another database number on it "
        "is just as reachable; a cache entry it wrote would be unpickled, i.e. run as code, by the web processes. "
        "Give the cache a Redis server of its own that the GPU worker cannot reach (compose's `cache` service).")

# /metrics shows run and queue figures; without a token anyone who reaches the site reads them.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
METRICS_PUBLIC = env_bool("METRICS_PUBLIC", False)
if not METRICS_TOKEN and not METRICS_PUBLIC:
    raise ImproperlyConfigured(
        "METRICS_TOKEN is required in production (Prometheus sends `Authorization: Bearer <token>` to /metrics): "
        "generate one with `python -c 'import secrets; print(secrets.token_urlsafe(32))'`, or set "
        "METRICS_PUBLIC=true to serve /metrics to anyone (e.g. when only an internal network reaches it).")
SEALED_ANSWER_KEYS = env_list("SEALED_ANSWER_KEYS")
if not SEALED_ANSWER_KEYS:
    raise ImproperlyConfigured(
        "SEALED_ANSWER_KEYS is required in production: generate one with "
        "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'`."
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# That proxy also adds the client's address to X-Forwarded-For: throttles and the sign-in lockout count clients by it,
# not by the proxy's own address, which would put every visitor in one bucket (TRUSTED_PROXIES, base.py).
REST_FRAMEWORK = {**REST_FRAMEWORK, "NUM_PROXIES": env_int("TRUSTED_PROXIES", 1, minimum=0)}  # noqa: F405
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
