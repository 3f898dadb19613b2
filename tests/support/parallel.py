"""Each test process of a run gets its own Redis databases and var folder (pytest-xdist runs the main phase on
several; pytest-django already gives each its own PostgreSQL database, test_<name>_gwN).

Loaded with `-p tests.support.parallel` (pytest.ini) so that it runs before pytest-django imports the settings: the
choice is written into the environment, where the test settings read it and where every process a test starts
(Celery workers started by the deploy scripts, `manage.py` children) inherits the same databases.

Redis has 16 databases. A process takes three consecutive ones from TEST_REDIS_BASE, worker gwN the block 3N further
on: a spare broker for tests that need one nobody else consumes (tests/core/test_worker.py, tests/mrscore/
test_tasks.py), its cache and its broker. The base is 13 for a plain `pytest` (cache 14 and broker 15, as before) and 0
under pytest-xdist.
./dev.sh test hands the main phase base 0 and the engine phases, which run one after the other, the next block
(docs/development.md).
"""
import os

import pytest

# The Redis server of the tests (TEST_REDIS_URL: another one, e.g. a private redis-server beside a busy shared one).
REDIS = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379").rstrip("/")
MAX_REDIS_DB = 15


def redis_block():
    """(cache, broker, spare) Redis database numbers of this test process."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    base = int(os.environ.get("TEST_REDIS_BASE", "0" if worker else "13"))
    spare = base + (3 * int(worker[2:]) if worker.startswith("gw") else 0)
    if spare + 2 > MAX_REDIS_DB:
        raise pytest.UsageError(f"test process {worker or 'main'} would need Redis databases {spare}-{spare + 2}; "
                                f"Redis has 0-{MAX_REDIS_DB}: lower TEST_REDIS_BASE or run fewer workers (-n)")
    return spare + 1, spare + 2, spare


def spare_broker():
    """A broker database of this process's own that no test worker of any phase consumes."""
    return f"{REDIS}/{redis_block()[2]}"


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker and "TEST_REDIS_BASE" not in os.environ and "TEST_REDIS_URL" not in os.environ:
        return  # a plain pytest: CACHE_URL and CELERY_BROKER_URL as set, else the test settings' defaults
    cache, broker, _ = redis_block()
    os.environ["CACHE_URL"] = f"{REDIS}/{cache}"
    os.environ["CELERY_BROKER_URL"] = os.environ["CELERY_RESULT_BACKEND"] = f"{REDIS}/{broker}"
    if worker:
        # Files the suite writes under VAR_DIR (screenshots, made GGUF files, site status) stay apart per process.
        var = os.path.join(os.environ.get("LEADERBOARD_VAR_DIR", os.path.join(early_config.rootpath, "var")),
                           f"pytest-{worker}")
        os.makedirs(var, exist_ok=True)
        os.environ["LEADERBOARD_VAR_DIR"] = var
