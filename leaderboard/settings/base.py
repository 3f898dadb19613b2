"""Settings shared by every environment. Environment-specific modules import * from here."""
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from leaderboard.core.logging import build_logging
from leaderboard.core.routing import parse_gpu_queues

from .env import env_bool, env_choice, env_float, env_int, env_list, env_rate, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Runtime files of the embedded defaults (SQLite database, file broker, demo models).
VAR_DIR = Path(env_str("LEADERBOARD_VAR_DIR", str(BASE_DIR / "var"))).resolve()

SECRET_KEY = env_str("SECRET_KEY", "insecure-local-development-key-do-not-use-in-production")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "leaderboard.core.admin_site.LeaderboardAdminConfig",  # django.contrib.admin, declared list lookups only
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",  # API tokens, stored as SHA-512 digests only
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our static files (no CDN)
    "axes",  # failed sign-ins counted per user name and per client; lockout (settings AXES_* below)
    "leaderboard.core",
    "leaderboard.benchmarks",
    "leaderboard.evaluations",
    "leaderboard.submissions",
    "leaderboard.mrscore",
    "leaderboard.results",
    "leaderboard.contamination",
    "leaderboard.devices",
    "leaderboard.scoring",
    "leaderboard.demo",
    "frontend",
]

MIDDLEWARE = [
    # Outermost, so that every answer carries the security headers: the probes and the early 400s below too.
    "leaderboard.core.middleware.SecurityHeadersMiddleware",  # SecurityMiddleware's headers, Permissions-Policy
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (django-csp; CONTENT_SECURITY_POLICY below)
    "leaderboard.core.middleware.ProbeMiddleware",  # /healthz, /readyz, /metrics: before host checks
    "leaderboard.core.middleware.RequestIdMiddleware",
    "leaderboard.core.middleware.RequestMetricsMiddleware",
    "leaderboard.core.middleware.NulByteMiddleware",  # %00 in path or query: 400 before any lookup
    "leaderboard.core.middleware.QueryLimitsMiddleware",  # too many query parameters: 400 before any parsing
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "frontend.sign_in_throttle.KnownBrowserMiddleware",  # the signed cookie of a browser that signed in
    "axes.middleware.AxesMiddleware",  # turns a lockout into the 429 page (frontend.views.accounts.locked_out)
    "leaderboard.core.middleware.AtomicRequestMiddleware",  # last: one transaction, rolled back on a 4xx or 5xx
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
                "frontend.site_status.site_status",
                "frontend.seo.canonical",
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
    if engine == "django.db.backends.postgresql":
        # An unreachable server fails in seconds (and /readyz says so), not after the OS's TCP timeout.
        timeout = env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1)
        config.setdefault("OPTIONS", {}).setdefault("connect_timeout", timeout)
    return config


DATABASES = {"default": database_from_env(f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_CACHE_BACKENDS = {"redis": "django.core.cache.backends.redis.RedisCache",
                   "rediss": "django.core.cache.backends.redis.RedisCache",
                   "file": "django.core.cache.backends.filebased.FileBasedCache",
                   "locmem": "django.core.cache.backends.locmem.LocMemCache",
                   "dummy": "django.core.cache.backends.dummy.DummyCache"}


def cache_from_env(default_url):
    """CACHE_URL if set, else the default: redis[s]://host:port/db, file:///abs/folder, locmem://, dummy://."""
    url = env_str("CACHE_URL", default_url)
    if not url:
        raise ImproperlyConfigured("CACHE_URL is required here (redis://host:6379/1 or file:///folder).")
    scheme = url.split("://", 1)[0]
    if scheme not in _CACHE_BACKENDS or "://" not in url:
        raise ImproperlyConfigured(f"CACHE_URL={url!r}: use redis://, rediss://, file:///folder, locmem:// "
                                   "or dummy://.")
    config = {"BACKEND": _CACHE_BACKENDS[scheme], "KEY_PREFIX": "lb"}
    if scheme in ("redis", "rediss"):
        config["LOCATION"] = url
    elif scheme == "file":
        config.update(LOCATION=url[len("file://"):], OPTIONS={"MAX_ENTRIES": 5000})
    return {"default": config}


# Embedded default: a file cache, shared by the web and worker processes of one machine, so the
# worker's "new results" signal reaches the web process (a per-process memory cache would not).
CACHES = cache_from_env(f"file://{VAR_DIR / 'cache'}")
RESULTS_CACHE_SECONDS = env_int("RESULTS_CACHE_SECONDS", 600, minimum=0)  # backstop; changes invalidate at once
RESULTS_CACHE_LOCAL_BYTES = env_int("RESULTS_CACHE_LOCAL_BYTES", 64 * 1024 * 1024, minimum=0)  # per process
RESULTS_CACHE_MAX_BYTES = env_int("RESULTS_CACHE_MAX_BYTES", 64 * 1024 * 1024, minimum=0)  # larger bodies: not cached

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

# Submission POSTs (models and uploaded predictions, together) per user: "N/second|minute|hour|day". Refused
# requests count too: each one may ask the hub (HTTP 429 code THROTTLED, with Retry-After).
SUBMISSION_THROTTLE_RATE = env_str("SUBMISSION_THROTTLE_RATE", "10/hour")
_number, _, _period = SUBMISSION_THROTTLE_RATE.partition("/")
if not (_number.isdigit() and int(_number) > 0 and _period in ("s", "sec", "second", "m", "min", "minute", "h",
                                                                  "hour", "d", "day")):
    raise ImproperlyConfigured(f"SUBMISSION_THROTTLE_RATE={SUBMISSION_THROTTLE_RATE!r}: use N/second, N/minute, "
                               "N/hour or N/day, e.g. 10/hour.")

# Device speed reports (leaderboard/devices): POSTs per account, accepted or refused (API and upload page, one
# counter; HTTP 429 code THROTTLED), and the largest request body (a report is llama-bench's JSON: ~2 KB a test).
DEVICE_REPORT_THROTTLE_RATE = env_rate("DEVICE_REPORT_THROTTLE_RATE", "20/hour")
# Device reports per client address (all accounts behind it), and new device names an account may report a day
DEVICE_REPORT_CLIENT_THROTTLE_RATE = env_rate("DEVICE_REPORT_CLIENT_THROTTLE_RATE", "60/hour")
DEVICE_REPORT_NEW_DEVICES_PER_DAY = env_int("DEVICE_REPORT_NEW_DEVICES_PER_DAY", 3, minimum=1)
DEVICE_REPORT_MAX_BYTES = env_int("DEVICE_REPORT_MAX_BYTES", 256 * 1024, minimum=1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "knox.auth.TokenAuthentication",  # scripts: Authorization: Token <key>
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "leaderboard.core.api.exception_handler",  # a DomainError as {code, detail, hint}
    "DEFAULT_PAGINATION_CLASS": "leaderboard.core.api.Pagination",  # limit/offset, at most 500 rows a page
    "PAGE_SIZE": 50,
    "DEFAULT_PARSER_CLASSES": ["leaderboard.core.parsers.JSONParser",  # DRF's, with a bound on nesting depth
                               "rest_framework.parsers.FormParser", "rest_framework.parsers.MultiPartParser"],
    # Reverse proxies in front whose X-Forwarded-For is trusted: the client is the address the nearest one added
    # (0: REMOTE_ADDR). Every throttle and the sign-in lockout count clients by it (frontend/throttles.client_ip).
    "NUM_PROXIES": env_int("TRUSTED_PROXIES", 0, minimum=0),
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("API_THROTTLE_ANON", "120/min"),
        "user": env_str("API_THROTTLE_USER", "600/min"),
        "submissions": SUBMISSION_THROTTLE_RATE,  # submissions/apis.py reads the setting itself, per request
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Mobile-MMLU Leaderboard API",
    "DESCRIPTION": "Rankings, per-topic results, MRScores and contamination figures for the Mobile-MMLU benchmark family.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/schema/ui/ loads Swagger UI from drf-spectacular-sidecar's pinned copy (with its license) in our
    # static files: the docs work offline and never change under us, unlike a CDN's @latest.
    "SWAGGER_UI_DIST": "SIDECAR", "SWAGGER_UI_FAVICON_HREF": "SIDECAR", "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "leaderboard.api_schema.document_error_responses"],  # 400/401/403/404/429 bodies
    # What Django's path converters accept, so the documented parameters match the routes.
    "PATH_CONVERTER_OVERRIDES": {"slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
                                 "id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},  # core/converters.py
}

# Sign in with Hugging Face (frontend/hub_signin.py): on when a client id is set (an OAuth app of the hub's settings,
# redirect URL https://<this site>/accounts/hf/callback/). The account then owns its hub user name and the
# organisations where it may write.
HF_OAUTH_CLIENT_ID = env_str("HF_OAUTH_CLIENT_ID", "")
HF_OAUTH_CLIENT_SECRET = env_str("HF_OAUTH_CLIENT_SECRET", "")
HF_OAUTH_ENDPOINT = env_str("HF_OAUTH_ENDPOINT", "https://huggingface.co")

# API tokens (django-rest-knox): shown once when made (the API tokens page), kept as SHA-512 digests, expiring.
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", 90, minimum=1)
API_TOKENS_PER_USER = env_int("API_TOKENS_PER_USER", 5, minimum=1)
REST_KNOX = {"TOKEN_TTL": timedelta(days=API_TOKEN_DAYS), "AUTH_HEADER_PREFIX": "Token"}

# --- Sealed test split -------------------------------------------------------
# Fernet keys (comma-separated, newest first, for rotation) that encrypt sealed
# answers at rest. Deliberately separate from SECRET_KEY: GPU workers get neither.
SEALED_ANSWER_KEYS = env_list("SEALED_ANSWER_KEYS")
# System checks passed over on purpose, e.g. benchmarks.E001 after the sealed keys were lost, to serve the stored
# results without them (docs/operations.md, "Keeping the sealed keys").
SILENCED_SYSTEM_CHECKS = env_list("SILENCED_SYSTEM_CHECKS")

# --- Submissions and runs ----------------------------------------------------
SUBMISSION_QUOTA = env_int("SUBMISSION_QUOTA", 5, minimum=1)  # accepted per user and per namespace ...
SUBMISSION_QUOTA_DAYS = env_int("SUBMISSION_QUOTA_DAYS", 7, minimum=1)  # ... per this many days
# The Ladder rule's budget: sealed test figures published per submitting account per window (a release spends one
# bit or more of the sealed split; a new repository, precision or namespace does not reset it).
LADDER_RELEASES_PER_WINDOW = env_int("LADDER_RELEASES_PER_WINDOW", 5, minimum=1)
LADDER_WINDOW_DAYS = env_int("LADDER_WINDOW_DAYS", 30, minimum=1)
SUBMISSION_MAX_PARAMS_16BIT = env_int("SUBMISSION_MAX_PARAMS_16BIT", 100_000_000_000, minimum=1)
# The size cap of a GGUF file submitted on its own (every part of a split file together), in bytes: 16 GiB holds an
# 8B model at 16 bits, the largest of the mobile size classes; quantized files are a quarter to a half of that.
GGUF_MAX_BYTES = env_int("GGUF_MAX_BYTES", 16 << 30, minimum=1)
# What one GGUF intake may cost the web process (hub/gguf_checks.IntakeLimits): the parts of a split file (llama.cpp's
# gguf-split writes a few dozen at most), the hub requests of all of them together, and the seconds (under the web
# worker's 60 s timeout).
GGUF_MAX_PARTS = env_int("GGUF_MAX_PARTS", 64, minimum=1)
GGUF_MAX_HUB_REQUESTS = env_int("GGUF_MAX_HUB_REQUESTS", 256, minimum=8)
GGUF_INTAKE_SECONDS = env_int("GGUF_INTAKE_SECONDS", 30, minimum=1)
# On-device variants (issue 24 §2b): GGUF files the GPU workers make from a submitted 16-bit checkpoint with the plain
# community recipe (llama.cpp's converter, then its quantizer; no importance matrix) and evaluate on the open split.
# A submission asks for them or not; left unsaid, they are made for models up to this many parameters (the mobile
# size classes). The files made are kept under RUN_MADE_GGUF_DIR (a volume in compose) for retries and for the
# other benchmarks' runs of the same file.
ONDEVICE_VARIANT_QUANTS = env_list("ONDEVICE_VARIANT_QUANTS", ["q8_0", "q4_k_m", "q4_0"])
ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS = env_int("ONDEVICE_VARIANTS_DEFAULT_MAX_PARAMS", 8_000_000_000, minimum=0)
# A line shown on every page while this file exists (frontend/site_status.py): ./dev.sh serve writes there while the
# demo's on-device variants are being made; an operator may too.
SITE_STATUS_FILE = env_str("SITE_STATUS_FILE", str(VAR_DIR / "site-status.txt"))
RUN_MADE_GGUF_DIR = env_str("RUN_MADE_GGUF_DIR", str(VAR_DIR / "made-gguf"))
SUBMISSION_VALIDATION_VARIANTS = env_list("SUBMISSION_VALIDATION_VARIANTS", ["all"])
SUBMISSION_DEFAULT_BENCHMARKS = env_list("SUBMISSION_DEFAULT_BENCHMARKS", ["mobile-mmlu"])
RUN_LEASE_SECONDS = env_int("RUN_LEASE_SECONDS", 600, minimum=1)  # renewed after each chunk
RUN_MAX_ATTEMPTS = env_int("RUN_MAX_ATTEMPTS", 3, minimum=1)
# Infrastructure errors (hub 429/5xx and timeouts, database restarts, a full disk) retry with backoff on a
# budget of their own, without spending the model's attempts.
RUN_MAX_INFRA_RETRIES = env_int("RUN_MAX_INFRA_RETRIES", 6, minimum=0)
# GPU worker: the Hugging Face cache is pruned to this size before each model load, least recently used
# first (the model being loaded is kept); 0 = never pruned.
RUN_MODEL_CACHE_GB = env_int("RUN_MODEL_CACHE_GB", 0, minimum=0)
RUN_RETRY_DELAY_SECONDS = env_int("RUN_RETRY_DELAY_SECONDS", 30, minimum=0)
RECONCILE_AFTER_SECONDS = env_int("RECONCILE_AFTER_SECONDS", 300, minimum=1)
# MRScore judge jobs: the lease is renewed after each judged chunk; attempts are counted against RUN_MAX_ATTEMPTS.
MRSCORE_LEASE_SECONDS = env_int("MRSCORE_LEASE_SECONDS", 1800, minimum=1)
# Prompts per stored chunk; 0 = the backend's own (256 for transformers; 2,048 for vLLM, whose scheduler
# batches within a call and so wants large calls).
RUN_CHUNK_SIZE = env_int("RUN_CHUNK_SIZE", 0, minimum=0)
RUN_BATCH_SIZE = env_int("RUN_BATCH_SIZE", 16, minimum=1)
RUN_DEVICE = env_str("RUN_DEVICE", "cpu")
# The engine a new run is evaluated with, stored on the run when the trusted side creates it (submissions):
# set it on web, worker and beat, once per deployment; GPU workers run each run's stored backend and never
# read this. Intake refuses precisions it cannot run (evaluator/precisions.py).
RUN_BACKEND = env_choice("RUN_BACKEND", "transformers", ("transformers", "vllm"))
# vLLM only: split a model that does not fit one GPU across this many GPUs of the worker's host.
RUN_TENSOR_PARALLEL_SIZE = env_int("RUN_TENSOR_PARALLEL_SIZE", 1, minimum=1)
# vLLM only: the share of GPU memory (of host memory, on the CPU build) the engine reserves; 0 = the
# backend's default (0.85 on a GPU, 0.1 on CPU).
RUN_VLLM_MEMORY_SHARE = env_float("RUN_VLLM_MEMORY_SHARE", 0.0, minimum=0.0, maximum=1.0)
# CPU workers sharing a machine: torch's default of one thread per core stalls badly under contention.
RUN_TORCH_THREADS = env_int("RUN_TORCH_THREADS", 0, minimum=0)  # 0 = torch's default
# The same for llama.cpp (GGUF runs), whose threads wait for each other at every step: 0 = the backend's default
# (one per core, at most 4).
RUN_LLAMACPP_THREADS = env_int("RUN_LLAMACPP_THREADS", 0, minimum=0)
# A GGUF run's phone-class cost profile (evaluator/ondevice_profile.py), measured after predicting in a fresh
# CPU-only process: its threads (0: not measured), repeats, llama-bench sizes (pp512, tg128) and time limit.
ONDEVICE_PROFILE_THREADS = env_int("ONDEVICE_PROFILE_THREADS", 4, minimum=0)
ONDEVICE_PROFILE_REPEATS = env_int("ONDEVICE_PROFILE_REPEATS", 5, minimum=1)
ONDEVICE_PROFILE_PP = env_int("ONDEVICE_PROFILE_PP", 512, minimum=1)
ONDEVICE_PROFILE_TG = env_int("ONDEVICE_PROFILE_TG", 128, minimum=1)
ONDEVICE_PROFILE_TIMEOUT_SECONDS = env_int("ONDEVICE_PROFILE_TIMEOUT_SECONDS", 1800, minimum=1)
# A profile whose pp, tg or TTFT varies over its repeats by more than this coefficient of variation (sd / mean), or
# that ran at a load average above its CPUs, is measured again up to RETRIES times; still noisy, it is stored marked
# unreliable and kept off the On-device board's speed frontier (evaluator/ondevice_profile.py).
ONDEVICE_PROFILE_MAX_CV = env_float("ONDEVICE_PROFILE_MAX_CV", 0.10, minimum=0.0)
ONDEVICE_PROFILE_RETRIES = env_int("ONDEVICE_PROFILE_RETRIES", 2, minimum=0)
# GPU worker: while this file exists (docker/start-worker.sh makes it on SIGTERM), predictions stop at the
# next chunk boundary and their runs go back to the queue without spending an attempt.
RUN_DRAIN_FILE = env_str("RUN_DRAIN_FILE", str(VAR_DIR / "gpu-worker.drain"))
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "leaderboard@localhost")
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")

# --- Importers ---------------------------------------------------------------
IMPORT_MAX_FILE_BYTES = env_int("IMPORT_MAX_FILE_BYTES", 200 * 1024 * 1024, minimum=1)
# The largest predictions upload (a CSV of one split's predictions), refused before it is read.
PREDICTIONS_UPLOAD_MAX_BYTES = env_int("PREDICTIONS_UPLOAD_MAX_BYTES", 5_000_000, minimum=1)

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
    # A task is redelivered only after this; it must outlive the hard limit (ARCHITECTURE §8).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * CELERY_TASK_HARD_TIME_LIMIT}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True  # the database is the source of truth; results carry ids only
CELERY_TASK_DEFAULT_QUEUE = "default"
# GPU queues per model size (leaderboard/core/routing.py): empty = the one "gpu" queue.
GPU_QUEUE_CLASSES = parse_gpu_queues(env_str("GPU_QUEUES", ""))
# A run's queue is chosen once and stored (evaluations.lifecycle.run_enqueue); every publish names it. The
# prediction task (leaderboard.evaluations.tasks.predict_run) keeps its name "evaluator.predict_run".
CELERY_TASK_ROUTES = {"evaluator.*": {"queue": "gpu"}}
SWEEP_EVERY_SECONDS = env_int("SWEEP_EVERY_SECONDS", 60, minimum=1)  # both sweepers: runs and MRScore jobs
CELERY_BEAT_SCHEDULE = {
    "sweep-runs": {"task": "evaluations.sweep", "schedule": float(SWEEP_EVERY_SECONDS)},
    "sweep-mrscore-jobs": {"task": "mrscore.sweep", "schedule": float(SWEEP_EVERY_SECONDS)},
    "expire-unconfirmed-accounts": {"task": "accounts.expire_unconfirmed", "schedule": 3600.0},
    "reconcile-runs": {"task": "evaluations.reconcile",
                       "schedule": float(env_int("RECONCILE_EVERY_SECONDS", 120, minimum=1))},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Results of the run tasks (ids and states only, ARCHITECTURE §6) are kept a day for operators. Embedded
# default: a folder; Redis settings (test, production, GPU worker) use the broker's Redis.
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'celery-results'}")
CELERY_RESULT_EXPIRES = 24 * 3600

# --- Observability -----------------------------------------------------------
# LOG_FORMAT=json: one JSON object per line with request_id and run_id (production's default).
LOG_FORMAT = env_str("LOG_FORMAT", "plain")
LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = build_logging(fmt=LOG_FORMAT, level=LOG_LEVEL)
# Celery workers keep the formatter above instead of installing their own on the root logger.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
ACCESS_LOG = env_bool("ACCESS_LOG", False)  # a log line per request (production: on; gunicorn's is off)
METRICS_TOKEN = env_str("METRICS_TOKEN", "")  # set: /metrics needs "Authorization: Bearer <token>"
METRICS_QUEUES = env_list("METRICS_QUEUES", ["default", "gpu"])  # Celery queues whose depth /metrics reports

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Accounts and security headers: security.py.
from .security import *  # noqa: E402,F401,F403
