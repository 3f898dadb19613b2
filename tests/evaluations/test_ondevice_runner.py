"""The worker's part in a GGUF file's cost profile (runner.ondevice_profiler): GGUF runs only, off with 0 threads,
and a profile that fails is stored with its code and the label, so the run's scores stand without it. The profile
measured for real by the deployed worker is in test_llamacpp_worker.py."""
import re
from types import SimpleNamespace

from leaderboard.evaluations import runner
from leaderboard.evaluations.models import EvaluationRun


def test_a_profile_that_fails_is_stored_with_its_code_and_label(settings, tmp_path):
    settings.ONDEVICE_PROFILE_THREADS = 3
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a gguf file")
    profile = runner.ondevice_profiler(EvaluationRun(backend="llamacpp", model_files=[]), SimpleNamespace(path=bad))()
    assert profile["label"] == "measured on a server CPU with 3 threads: a proxy, not a phone"
    # NOT_GGUF under llama.cpp; without it (the main environment) the child says so
    assert re.match(r"(NOT_GGUF|BACKEND_UNAVAILABLE): ", profile["error"]), profile["error"]


def test_only_gguf_runs_are_profiled_and_0_threads_turns_it_off(settings):
    assert runner.ondevice_profiler(EvaluationRun(backend="transformers"), object()) is None
    settings.ONDEVICE_PROFILE_THREADS = 0
    assert runner.ondevice_profiler(EvaluationRun(backend="llamacpp"), object()) is None
