"""Cost profiles that say when they cannot be trusted (issue 33, section 4): a profile whose figures vary by more than
ONDEVICE_PROFILE_MAX_CV over its repeats, or that ran while other processes kept the cores busy, is measured again up to
ONDEVICE_PROFILE_RETRIES times; the first clean one is kept, else the least noisy, marked unreliable with its reasons.
The measurement itself is replaced by canned profiles here (real llama.cpp: test_ondevice_profile.py); the board's
side is in tests/boards/test_ondevice_noisy_profiles.py."""
from types import SimpleNamespace

import pytest

from evaluator import ondevice_profile
from evaluator.ondevice_profile import measure_reliable_profile, noise, reliability
from leaderboard.evaluations import runner
from leaderboard.evaluations.models import EvaluationRun


def canned(tg_cv=0.02, *, load=0.5, cpus=2, tg=100.0, others=None):
    """A measured profile's shape: tg `tg` tokens/s with coefficient of variation `tg_cv`, pp and TTFT steady;
    `others`: the cores other processes kept busy while it measured (None: a profile from before that was measured)."""
    return {**({} if others is None else {"other_cores": others}),"label": ondevice_profile.label(2), "threads": 2, "repeats": 5,
            "pp": {"tokens": 512, "tokens_per_s": 1000.0, "sd": 10.0, "runs": [1000.0] * 5},
            "tg": {"tokens": 128, "tokens_per_s": tg, "sd": tg * tg_cv, "runs": [tg] * 5},
            "ttft": {"prompt_chars": 1699, "prompt_tokens": 431, "seconds": 0.5, "sd": 0.005, "runs": [0.5] * 5},
            "load_average": [load, load], "cpus_available": cpus, "peak_rss_bytes": 10**8, "mmap": True}


@pytest.fixture
def measured(monkeypatch):
    """Replaces the fresh-process measurement with `queue`'s profiles, in order; `calls` counts them."""
    state = SimpleNamespace(queue=[], calls=[])

    def fake(path, **kwargs):
        state.calls.append(kwargs)
        return state.queue.pop(0)
    monkeypatch.setattr(ondevice_profile, "measure_profile", fake)
    return state


def test_the_issues_profile_is_noisy_and_a_steady_one_is_not():
    """tg 230.8 ± 321.5 tokens/s at load 8.3 on 2 CPUs (the demo's on a busy machine): both reasons named."""
    reasons = noise(canned(321.5 / 230.8, tg=230.8, load=8.3))
    assert reasons == ["tg varied 139% between repeats (over 10%)",
                       "load average 8.3 on 2 CPUs (other processes competed for the cores)"]
    assert noise(canned(0.02, load=1.9)) == []


def test_a_clean_profile_is_measured_once(measured):
    measured.queue = [canned(0.02)]
    profile = measure_reliable_profile("m.gguf", threads=2, repeats=5)
    assert profile["reliability"] == {"reliable": True, "reasons": [], "attempts": 1, "max_cv": 0.10}
    assert measured.calls == [{"threads": 2, "repeats": 5}]


def test_a_noisy_profile_is_measured_again_and_the_clean_one_kept(measured):
    measured.queue = [canned(0.5), canned(0.03, tg=95.0), canned(0.01)]
    profile = measure_reliable_profile("m.gguf", retries=2)
    assert len(measured.calls) == 2 and measured.queue  # stopped at the first clean one
    assert profile["tg"]["tokens_per_s"] == 95.0 and profile["reliability"]["reliable"] is True
    assert profile["reliability"]["attempts"] == 2


def test_a_profile_that_stays_noisy_is_kept_marked_unreliable_the_least_noisy_of_its_attempts(measured):
    measured.queue = [canned(0.9, tg=50.0), canned(0.3, tg=80.0), canned(0.6, tg=60.0, load=5.0)]
    profile = measure_reliable_profile("m.gguf", retries=2)
    assert len(measured.calls) == 3
    assert profile["tg"]["tokens_per_s"] == 80.0  # one reason, the smallest spread
    assert profile["reliability"] == {"reliable": False, "attempts": 3, "max_cv": 0.10,
                                      "reasons": ["tg varied 30% between repeats (over 10%)"]}
    assert "UNRELIABLE after 3 attempt(s): tg varied 30%" in ondevice_profile.describe(profile)


def test_a_load_above_the_cpus_alone_makes_a_profile_noisy(measured):
    measured.queue = [canned(0.01, load=3.5, cpus=2), canned(0.01, load=1.2, cpus=2)]
    profile = measure_reliable_profile("m.gguf", retries=1)
    assert len(measured.calls) == 2 and profile["reliability"]["reliable"] is True
    assert profile["load_average"] == [1.2, 1.2]


@pytest.mark.parametrize("max_cv, reliable", [(0.10, False), (0.20, True)])
def test_the_threshold_both_ways(measured, max_cv, reliable):
    measured.queue = [canned(0.15)] * 3
    profile = measure_reliable_profile("m.gguf", max_cv=max_cv, retries=2)
    assert profile["reliability"]["reliable"] is reliable
    assert len(measured.calls) == (1 if reliable else 3)


@pytest.mark.parametrize("retries", [0, 1, 3])
def test_the_retries_both_ways(measured, retries):
    measured.queue = [canned(0.5)] * 5
    profile = measure_reliable_profile("m.gguf", retries=retries)
    assert len(measured.calls) == retries + 1 == profile["reliability"]["attempts"]
    assert profile["reliability"]["reliable"] is False


def test_a_profile_stored_before_verdicts_is_judged_from_its_figures():
    assert reliability(canned(0.5))["reliable"] is False
    assert reliability(canned(0.05))["reliable"] is True and reliability(canned(0.05), max_cv=0.04)["reliable"] is False
    stored = {**canned(0.5), "reliability": {"reliable": True, "reasons": [], "attempts": 1, "max_cv": 0.6}}
    assert reliability(stored)["reliable"] is True  # the verdict made when it was measured stands
    assert reliability(None) is None and reliability({"label": "x", "error": "NOT_GGUF: no"}) is None


@pytest.mark.parametrize("max_cv, retries, attempts, reliable", [(0.10, 1, 2, False), (0.50, 1, 1, True),
                                                                 (0.10, 0, 1, False)])
def test_the_worker_measures_with_the_settings(settings, measured, max_cv, retries, attempts, reliable):
    settings.ONDEVICE_PROFILE_THREADS, settings.ONDEVICE_PROFILE_MAX_CV = 2, max_cv
    settings.ONDEVICE_PROFILE_RETRIES = retries
    measured.queue = [canned(0.3), canned(0.3)]
    profile = runner.ondevice_profiler(EvaluationRun(backend="llamacpp", model_files=[]),
                                       SimpleNamespace(path="m.gguf"))()
    assert len(measured.calls) == attempts and measured.calls[0]["threads"] == 2
    assert profile["reliability"]["reliable"] is reliable and profile["reliability"]["max_cv"] == max_cv


def test_competing_processes_are_judged_by_the_cores_they_kept_busy_not_by_a_lagging_load_average():
    """The demo's real file: load average 3.8 on 2 CPUs right after its own evaluation, yet nothing else ran while
    the profile measured; another process spinning a core beside 2 threads on 2 CPUs is competition."""
    assert noise(canned(0.02, load=3.8, others=0.1)) == []
    assert noise(canned(0.02, load=0.4, others=1.2)) == [
        "other processes kept 1.2 cores busy while it measured (2 threads on 2 CPUs)"]
    assert noise(canned(0.02, load=3.8, cpus=4, others=1.2)) == []  # 2 threads leave 2 cores free on 4


def test_the_measuring_process_own_cpu_time_is_not_counted_as_competition(monkeypatch):
    from evaluator import cpu_state

    busy = iter([103.0])  # the machine's busy CPU seconds after: 3 s more than before, 2 s of them this process's own
    monkeypatch.setattr(cpu_state, "machine_busy_seconds", lambda: next(busy))
    monkeypatch.setattr(cpu_state.time, "process_time", lambda: 12.0)
    monkeypatch.setattr(cpu_state.time, "perf_counter", lambda: 51.0)
    assert cpu_state.other_cores(100.0, 10.0, 50.0) == 1.0  # one core's worth of others over the 1 s


@pytest.mark.serial
def test_a_process_spinning_beside_the_measurement_shows_as_about_one_busy_core():
    """Against the same measurement a moment before, so whatever else the machine runs cancels out (serial: the
    suite's own processes would not)."""
    import subprocess
    import sys
    import time

    from evaluator.cpu_state import machine_busy_seconds, other_cores

    def measured(seconds=1.5):
        busy, own, wall = machine_busy_seconds(), time.process_time(), time.perf_counter()
        time.sleep(seconds)
        return other_cores(busy, own, wall)

    before = measured()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        beside = measured()
    finally:
        spinner.kill()
    assert beside - before > 0.6, (before, beside)
