"""The suite's waits on workers, engines and pages stretch with the machine's load (tests/support/busy.py), so a run
beside another CPU-bound process does not fail on a limit written for a quiet machine; a hang still fails."""
import os
import time

import pytest

from tests.support import busy
from tests.support.lifecycle import wait_until


def ready_after(seconds):
    started = time.monotonic()
    return lambda: time.monotonic() - started > seconds


def test_a_wait_stretches_while_the_cores_are_oversubscribed(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (3 * (os.cpu_count() or 1), 0.0, 0.0))  # three times the cores
    assert wait_until(ready_after(0.4), timeout=0.2, interval=0.02)


def test_on_a_quiet_machine_the_limit_is_as_written(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    with pytest.raises(AssertionError, match=r"timed out after 0s \(0.2s unloaded\)"):
        wait_until(ready_after(5), timeout=0.2, interval=0.02)


def test_the_stretch_has_a_ceiling(monkeypatch):
    monkeypatch.setattr(os, "getloadavg", lambda: (1000.0, 0.0, 0.0))
    assert busy.stretch() == busy.MAX_STRETCH
    started = time.monotonic()
    with pytest.raises(AssertionError):
        wait_until(ready_after(5), timeout=0.1, interval=0.02)
    assert time.monotonic() - started < 0.1 * busy.MAX_STRETCH + 0.5
