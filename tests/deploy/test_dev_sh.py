"""./dev.sh test runs the suite in phases (main on several processes, the engines' tests in their environments, the
`serial` tests alone) and `--fast` runs the inner loop: every test lands in exactly one phase, none is dropped, and
the fast tier leaves out what needs the database, a worker, a browser or an engine. Offline: it reads dev.sh and pytest.ini."""
import itertools
import re
import subprocess
from configparser import ConfigParser
from pathlib import Path

from _pytest.mark.expression import Expression

REPO = Path(__file__).resolve().parents[2]
DEV_SH = (REPO / "dev.sh").read_text()


def _markers():
    ini = ConfigParser()
    ini.read(REPO / "pytest.ini")
    return [line.split(":")[0].strip() for line in ini["pytest"]["markers"].strip().splitlines()]


def _main_expressions():
    """The -m expressions of the main and serial phases and of the fast tier, in the order dev.sh runs them."""
    return [e for e in re.findall(r'-m "([^"]+)"', DEV_SH) if not e.startswith("$")]


def _engine_phases():
    """(phase name, environment, marker) of the engine phases."""
    return re.findall(r'^\s*phase (\w+) "\$(\w+)" (\w+) "\$engine_base" \w+;', DEV_SH, flags=re.M)


def _matches(expression, markers):
    return Expression.compile(expression).evaluate(lambda name: name in markers)


def test_every_test_runs_in_exactly_one_phase():
    fast, main, serial = _main_expressions()
    engines = _engine_phases()
    assert [(name, marker) for name, _, marker in engines] == [("vllm", "vllm"), ("llamacpp", "llamacpp")]
    assert {venv for _, venv, _ in engines} == {"VLLM_VENV", "LLAMACPP_VENV"}
    markers = _markers()
    assert {"slow", "browser", "vllm", "llamacpp", "serial"} <= set(markers)
    for n in range(len(markers) + 1):
        for combination in itertools.combinations(markers, n):
            chosen = set(combination)
            if {"vllm", "llamacpp"} <= chosen:
                continue  # no test needs both engines: each lives in one environment
            phases = [name for name, expression in (("main", main), ("serial", serial)) if _matches(expression,
                                                                                                     chosen)]
            phases += [name for name, _, marker in engines if marker in chosen]
            assert len(phases) == 1, (chosen, phases)


def test_the_fast_tier_is_main_without_databases_workers_browsers_or_engines():
    fast, main, _ = _main_expressions()
    for markers in ({"slow"}, {"browser"}, {"vllm"}, {"llamacpp"}, {"serial"}, {"postgres"}):
        assert not _matches(fast, markers), markers
    assert _matches(fast, set()) and _matches(main, set())
    assert "--fast" in DEV_SH and "./dev.sh test --fast" in (REPO / "docs" / "development.md").read_text()


def test_the_phases_report_their_times_and_slowest_tests():
    assert "--durations=15" in DEV_SH
    for phase in ("main", "serial", "fast tier", "the whole suite"):
        assert re.search(rf"==> (phase )?{phase}\S*.*s wall", DEV_SH), phase
    assert re.search(r'echo "==> phase \$1: .* s wall', DEV_SH)  # the engine phases


def test_the_main_phase_runs_on_several_processes_with_their_own_redis():
    """tests/support/parallel.py gives each process three Redis databases from TEST_REDIS_BASE: the main phase's from
    0, the engine phases' (one after the other) from 3 x TEST_WORKERS, refused where that passes database 15."""
    assert re.search(r'pytest -n "\$TEST_WORKERS" --dist "\$TEST_DIST" \\\n\s*--maxschedchunk "\$TEST_SCHED_CHUNK"', DEV_SH)
    # One test at a time: in chunks, one process took the long transactional tests together and ran on alone.
    assert re.search(r"TEST_SCHED_CHUNK=\$\{TEST_SCHED_CHUNK:-1\}", DEV_SH)
    assert set(re.findall(r"TEST_REDIS_BASE=(\S+)", DEV_SH)) == {"0", "$4"}  # main and serial; the phase's own
    assert "engine_base=$(( 3 * TEST_WORKERS ))" in DEV_SH and '[ "$engine_base" -gt 13 ]' in DEV_SH
    assert int(re.search(r"TEST_WORKERS=\$\{TEST_WORKERS:-(\d+)\}", DEV_SH).group(1)) * 3 <= 13


def test_dev_sh_passes_shellcheck():
    result = subprocess.run(["shellcheck", "-S", "warning", str(REPO / "dev.sh")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
