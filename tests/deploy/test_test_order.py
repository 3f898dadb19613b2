"""The order the suite hands tests out in (tests/conftest.py): the long ones first, within pytest-django's groups. A
transactional test ends with a flush that empties the migrated data (the benchmarks the migrations create), so a
database test after one in the same process finds none: a slow-first sort across the groups failed 60 tests. A test
that waits for a shared build (the demo models) other than the first to ask comes after the other long tests of its
group, so the build is started early and found made.

In a run of the whole suite the test reads the order its own process was given (every pytest-xdist process collects
and sorts the whole selection); run with fewer tests, it collects the suite in a subprocess (about 15 s, 50 s on a
busy machine)."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


WHOLE_SUITE = 1000  # more tests than this in the session: it is the suite (or a phase of it), not a selection


def _collected() -> list[tuple[int, bool, bool]]:
    """(pytest-django group, long, waits for a shared build) of every test of the suite, in the order it is handed
    out."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-s", "-p", "no:cacheprovider",
                           "-p", "tests.support.collection_order"], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTEST_ADDOPTS": ""})
    line = next((line for line in done.stdout.splitlines() if line.startswith("ORDER ")), None)
    assert line, done.stdout[-2000:] + done.stderr[-2000:]
    return [(int(code[0]), code[1] == "1", code[2] == "1") for code in line.split()[1:]]


def test_transactional_tests_follow_the_other_database_tests_and_long_tests_lead_each_group(request):
    from tests.conftest import _build_waiters, _django_group, _long

    items = request.session.items
    if len(items) > WHOLE_SUITE:
        waits = set(_build_waiters(items))
        order = [(_django_group(item), _long(item), item in waits) for item in items]
    else:
        order = _collected()
    groups = [group for group, _, _ in order]
    assert groups == sorted(groups), "a database test comes after a transactional one"
    assert {0, 1, 2} <= set(groups) and len(order) > WHOLE_SUITE
    keys = [(group, not long, waits) for group, long, waits in order]
    assert keys == sorted(keys)
    assert any(long for group, long, _ in order if group == 0) and any(long for group, long, _ in order if group == 1)
    # the demo models' tests: the first builds them, the others (one a group at least) wait after the long tests
    assert sum(waits for _, _, waits in order) >= 2
