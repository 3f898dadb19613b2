"""Settings read the environment and fail loudly; production passes `check --deploy` cleanly."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from leaderboard.settings.env import env_bool, env_choice, env_float, env_int, env_list

REPO = Path(__file__).resolve().parents[2]
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "leaderboard.settings.production",
    "SECRET_KEY": "k3Y-Tq9!vZ2pW8rL0sN5bX7mC4hJ6gF1dA8eR3tU5yI0oP2qS9wE",
    "ALLOWED_HOSTS": "leaderboard.example.org",
    "DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/leaderboard",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "CACHE_URL": "redis://cache.internal:6379/0",  # never reached by `check`
    "METRICS_TOKEN": "Zq3-scrape-token-for-prometheus-7Hd9",
    "SEALED_ANSWER_KEYS": "y3JD5KDcXNRBi9eqiTzQw9KXg0n7kJB4LgUu2P3vuEE=",
}


def manage(*args, env):
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION_ENV}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_it_reads_typed_values(monkeypatch):
    monkeypatch.setenv("X_BOOL", "yes")
    monkeypatch.setenv("X_INT", "42")
    monkeypatch.setenv("X_LIST", "a, b,,c")
    assert env_bool("X_BOOL") is True and env_int("X_INT", 1) == 42 and env_list("X_LIST") == ["a", "b", "c"]


@pytest.mark.parametrize("reader,value,message", [
    (lambda: env_bool("X"), "maybe", "X='maybe' is not a boolean"),
    (lambda: env_int("X", 1), "ten", "X='ten' is not an integer"),
    (lambda: env_int("X", 1, minimum=5), "2", "X=2 must be at least 5"),
    (lambda: env_choice("X", "a", ("a", "b")), "c", "X='c' is not supported; use one of a, b"),
    (lambda: env_float("X", 0.0, minimum=0.0, maximum=1.0), "half", "X='half' is not a number"),
    (lambda: env_float("X", 0.0, minimum=0.0, maximum=1.0), "1.5", "X=1.5 must be between 0.0 and 1.0"),
])
def test_it_handles_malformed_values(monkeypatch, reader, value, message):
    monkeypatch.setenv("X", value)
    with pytest.raises(ImproperlyConfigured, match=message):
        reader()


def test_it_reads_a_choice(monkeypatch):
    assert env_choice("X_CHOICE", "transformers", ("transformers", "vllm")) == "transformers"
    monkeypatch.setenv("X_CHOICE", "vllm")
    assert env_choice("X_CHOICE", "transformers", ("transformers", "vllm")) == "vllm"


@pytest.mark.slow
def test_it_refuses_an_unknown_run_backend():
    """RUN_BACKEND is stored on every new run: a typo would queue runs no GPU worker can load."""
    result = manage("check", env={**PRODUCTION_ENV, "RUN_BACKEND": "vLLM"})
    assert result.returncode != 0
    assert "Environment variable RUN_BACKEND='vLLM' is not supported; use one of transformers, vllm" in result.stderr
    result = manage("shell", "-c", "from django.conf import settings as s; print(s.RUN_BACKEND)",
                    env={**PRODUCTION_ENV, "RUN_BACKEND": "vllm"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "vllm"


@pytest.mark.slow
def test_it_passes_check_deploy_with_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout and "WARNING" not in result.stderr


@pytest.mark.parametrize("missing", ["SECRET_KEY", "DATABASE_URL", "SEALED_ANSWER_KEYS", "ALLOWED_HOSTS", "CACHE_URL",
                                     "METRICS_TOKEN"])
def test_it_refuses_production_without_required_settings(missing):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}
    result = manage("check", env=env)
    assert result.returncode != 0 and missing in result.stderr


@pytest.mark.parametrize("cache_url", ["redis://127.0.0.1:6379/0", "redis://localhost:6379/3"])
def test_it_refuses_a_cache_on_the_brokers_redis(cache_url):
    """The GPU worker reaches the broker's Redis (any db on it); the web tier unpickles cache entries."""
    result = manage("check", env={**PRODUCTION_ENV, "CACHE_URL": cache_url})
    assert result.returncode != 0 and "CACHE_URL is on the Redis server of CELERY_BROKER_URL" in result.stderr
    assert "localhost:6379" in result.stderr and "GPU worker" in result.stderr


@pytest.mark.slow
def test_it_serves_metrics_without_a_token_only_when_told_to():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "METRICS_TOKEN"}
    result = manage("shell", "-c", "from django.conf import settings as s; print(repr(s.METRICS_TOKEN))",
                    env={**env, "METRICS_PUBLIC": "true"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "''"


def test_it_refuses_an_unsupported_database():
    result = manage("check", env={**PRODUCTION_ENV, "DATABASE_URL": "mysql://root@localhost/db"})
    assert result.returncode != 0 and "supports postgresql://" in result.stderr


def test_it_runs_on_embedded_defaults_without_any_server(tmp_path):
    """No DATABASE_URL, no broker: SQLite file and file-system broker under LEADERBOARD_VAR_DIR."""
    env = {"DJANGO_SETTINGS_MODULE": "leaderboard.settings.local", "LEADERBOARD_VAR_DIR": str(tmp_path)}
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "SEALED_ANSWER_KEYS"):
        env[name] = ""
    result = manage("shell", "-c", "from django.conf import settings as s; "
                    "print(s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL, len(s.SEALED_ANSWER_KEYS))", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-3:] == ["django.db.backends.sqlite3", "filesystem://", "1"]
    assert (tmp_path / "sealed-answer.key").exists()
