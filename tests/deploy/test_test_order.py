"""The order the suite hands tests out in (tests/conftest.py): the long ones first, within pytest-django's groups. A
transactional test ends with a flush that empties the migrated data (the benchmarks the migrations create), so a
database test after one in the same process finds none: a slow-first sort across the groups failed 60 tests.

In a run of the whole suite the test reads the order its own process was given (every pytest-xdist process collects
and sorts the whole selection); run with fewer tests, it collects the suite in a subprocess (about 15 s, 50 s on a
busy machine)."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


WHOLE_SUITE = 1000  # more tests than this in the session: it is the suite (or a phase of it), not a selection


def _collected() -> list[tuple[int, bool]]:
    """(pytest-django group, long) of every test of the suite, in the order it is handed out."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-s", "-p", "no:cacheprovider",
                           "-p", "tests.support.collection_order"], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTEST_ADDOPTS": ""})
    line = next((line for line in done.stdout.splitlines() if line.startswith("ORDER ")), None)
    assert line, done.stdout[-2000:] + done.stderr[-2000:]
    return [(int(code[0]), code[1] == "1") for code in line.split()[1:]]


def test_transactional_tests_follow_the_other_database_tests_and_long_tests_lead_each_group(request):
    from tests.conftest import _django_group, _long

    items = request.session.items
    order = [(_django_group(item), _long(item)) for item in items] if len(items) > WHOLE_SUITE else _collected()
    groups = [group for group, _ in order]
    assert groups == sorted(groups), "a database test comes after a transactional one"
    assert {0, 1, 2} <= set(groups) and len(order) > WHOLE_SUITE
    assert [(group, not long) for group, long in order] == sorted((group, not long) for group, long in order)
    assert any(long for group, long in order if group == 0) and any(long for group, long in order if group == 1)
