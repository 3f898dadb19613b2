"""Settings shared by every environment. Environment-specific modules import * from here."""
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Runtime files of the embedded defaults (SQLite database, file broker, demo models).
VAR_DIR = Path(env_str("LEADERBOARD_VAR_DIR", str(BASE_DIR / "var"))).resolve()

SECRET_KEY = env_str("SECRET_KEY", "insecure-local-development-key-do-not-use-in-production")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "leaderboard.core",
    "leaderboard.benchmarks",
    "leaderboard.evaluations",
    "leaderboard.submissions",
    "leaderboard.mrscore",
    "leaderboard.results",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "leaderboard.urls"
WSGI_APPLICATION = "leaderboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_from_env(default_url):
    """DATABASE_URL if set, else the given default. Only PostgreSQL and SQLite are supported."""
    url = env_str("DATABASE_URL", default_url)
    config = dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0))
    engine = config["ENGINE"]
    if engine not in ("django.db.backends.postgresql", "django.db.backends.sqlite3"):
        raise ImproperlyConfigured(
            f"DATABASE_URL uses {engine}; this service supports postgresql:// (production, tests) "
            "and sqlite:/// (embedded default) only."
        )
    return config


DATABASES = {"default": database_from_env(f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",  # scripts: Authorization: Token <key>
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "120/min"),
        "user": env_str("API_THROTTLE_USER", "600/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Mobile-MMLU Leaderboard API",
    "DESCRIPTION": "Rankings, per-topic results, MRScores and contamination figures for the Mobile-MMLU benchmark family.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

# --- Sealed test split -------------------------------------------------------
# Fernet keys (comma-separated, newest first, for rotation) that encrypt sealed
# answers at rest. Deliberately separate from SECRET_KEY: GPU workers get neither.
SEALED_ANSWER_KEYS = env_list("SEALED_ANSWER_KEYS")

# --- Submissions and runs ----------------------------------------------------
SUBMISSION_QUOTA = env_int("SUBMISSION_QUOTA", 5, minimum=1)  # accepted per user and per namespace ...
SUBMISSION_QUOTA_DAYS = env_int("SUBMISSION_QUOTA_DAYS", 7, minimum=1)  # ... per this many days
SUBMISSION_MAX_PARAMS_16BIT = env_int("SUBMISSION_MAX_PARAMS_16BIT", 100_000_000_000, minimum=1)
SUBMISSION_VALIDATION_VARIANTS = env_list("SUBMISSION_VALIDATION_VARIANTS", ["all"])
SUBMISSION_DEFAULT_BENCHMARKS = env_list("SUBMISSION_DEFAULT_BENCHMARKS", ["mobile-mmlu"])
RUN_LEASE_SECONDS = env_int("RUN_LEASE_SECONDS", 600, minimum=1)  # renewed after each chunk
RUN_MAX_ATTEMPTS = env_int("RUN_MAX_ATTEMPTS", 3, minimum=1)
RUN_RETRY_DELAY_SECONDS = env_int("RUN_RETRY_DELAY_SECONDS", 30, minimum=0)
RECONCILE_AFTER_SECONDS = env_int("RECONCILE_AFTER_SECONDS", 300, minimum=1)
RUN_CHUNK_SIZE = env_int("RUN_CHUNK_SIZE", 256, minimum=1)
RUN_BATCH_SIZE = env_int("RUN_BATCH_SIZE", 16, minimum=1)
RUN_DEVICE = env_str("RUN_DEVICE", "cpu")
RUN_BACKEND = env_str("RUN_BACKEND", "transformers")
# CPU workers sharing a machine: torch's default of one thread per core stalls badly under contention.
RUN_TORCH_THREADS = env_int("RUN_TORCH_THREADS", 0, minimum=0)  # 0 = torch's default
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "leaderboard@localhost")
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")

# --- Importers ---------------------------------------------------------------
IMPORT_MAX_FILE_BYTES = env_int("IMPORT_MAX_FILE_BYTES", 200 * 1024 * 1024, minimum=1)

# --- Celery ------------------------------------------------------------------
# Embedded default: a file-system transport needs no server yet is consumed by
# a real worker process. Production and tests set CELERY_BROKER_URL to Redis.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_CELERY_QUEUE_DIR = VAR_DIR / "celery-queue"
CELERY_TASK_HARD_TIME_LIMIT = env_int("CELERY_TASK_HARD_TIME_LIMIT", 6 * 3600, minimum=60)
CELERY_TASK_TIME_LIMIT = CELERY_TASK_HARD_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_HARD_TIME_LIMIT - 300 if CELERY_TASK_HARD_TIME_LIMIT > 600 else CELERY_TASK_HARD_TIME_LIMIT - 30
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_CELERY_QUEUE_DIR / "messages"),
        "data_folder_out": str(_CELERY_QUEUE_DIR / "messages"),
        "processed_folder": str(_CELERY_QUEUE_DIR / "processed"),
        "control_folder": str(_CELERY_QUEUE_DIR / "control"),
        "store_processed": False,
    }
else:
    # A task is redelivered only after this; it must outlive the hard limit (DESIGN §8).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_HARD_TIME_LIMIT}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True  # the database is the source of truth; results carry ids only
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_IMPORTS = ["evaluator.tasks"]  # not a Django app, so autodiscovery would miss it
CELERY_TASK_ROUTES = {"evaluator.*": {"queue": "gpu"}}
CELERY_BEAT_SCHEDULE = {
    "sweep-runs": {"task": "evaluations.sweep", "schedule": 60.0},
    "reconcile-runs": {"task": "evaluations.reconcile", "schedule": 120.0},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
