"""The order the suite hands tests out in (tests/conftest.py): the long ones first, within pytest-django's groups. A
transactional test ends with a flush that empties the migrated data (the benchmarks the migrations create), so a
database test after one in the same process finds none: a slow-first sort across the groups failed 60 tests."""
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _collected() -> list[tuple[int, bool]]:
    """(pytest-django group, long) of every test of the suite, in the order it is handed out."""
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-s", "-p", "no:cacheprovider",
                           "-p", "tests.support.collection_order"], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTEST_ADDOPTS": ""})
    line = next((line for line in done.stdout.splitlines() if line.startswith("ORDER ")), None)
    assert line, done.stdout[-2000:] + done.stderr[-2000:]
    return [(int(code[0]), code[1] == "1") for code in line.split()[1:]]


def test_transactional_tests_follow_the_other_database_tests_and_long_tests_lead_each_group():
    order = _collected()
    groups = [group for group, _ in order]
    assert groups == sorted(groups), "a database test comes after a transactional one"
    assert {0, 1, 2} <= set(groups) and len(order) > 1000
    assert [(group, not long) for group, long in order] == sorted((group, not long) for group, long in order)
    assert any(long for group, long in order if group == 0) and any(long for group, long in order if group == 1)
