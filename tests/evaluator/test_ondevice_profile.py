"""A GGUF file's phone-class cost profile (evaluator/ondevice_profile.py) on real llama.cpp (.venv-llamacpp), with a
tiny file the project's own pipeline made: measured in a fresh process on the CPU with the threads asked for, every
figure present and sane, labelled a server CPU's proxy, energy only from readable RAPL counters."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from evaluator import ondevice_profile
from evaluator.ondevice_profile import ProfileError, measure_profile

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]
SMALL = {"repeats": 3, "pp": 64, "tg": 16}  # llama-bench's method at tiny-model sizes


@pytest.fixture(scope="module")
def profiles(gguf_files, tmp_path_factory):
    path = gguf_files["llama", "q8_0"]
    no_rapl = tmp_path_factory.mktemp("no-rapl")  # a machine without powercap
    return path, {mmap: measure_profile(path, threads=2, mmap=mmap, rapl_root=no_rapl, **SMALL)
                  for mmap in (True, False)}


def test_the_profile_has_every_figure_measured_in_a_fresh_process(profiles):
    path, by_mmap = profiles
    for mmap, p in by_mmap.items():
        assert p["pid"] != os.getpid()
        assert p["label"] == "measured on a server CPU with 2 threads: a proxy, not a phone"
        assert (p["threads"], p["n_gpu_layers"], p["mmap"], p["repeats"]) == (2, 0, mmap, 3)
        assert p["cuda_visible_devices"] == ""  # every GPU hidden from the profile, whatever llama.cpp was built with
        assert (p["file"], p["file_bytes"], p["file_type"]) == (path.name, path.stat().st_size, "Q8_0")
        for phase, tokens in (("pp", 64), ("tg", 16)):
            figures = p[phase]
            assert figures["tokens"] == tokens and len(figures["runs"]) == 3
            assert figures["tokens_per_s"] > 0 and figures["sd"] >= 0
            assert min(figures["runs"]) <= figures["tokens_per_s"] <= max(figures["runs"])
        ttft = p["ttft"]
        assert 1500 <= ttft["prompt_chars"] <= 2100 and ttft["prompt_tokens"] > 100  # a median Mobile-MMLU prompt
        assert 0 < ttft["seconds"] < 60 and ttft["sd"] >= 0
        assert p["peak_rss_bytes"] > p["file_bytes"]  # the weights are resident, mapped or read
        assert p["cpu"]["model"] and p["cpu"]["flags"] and p["cpu"]["logical_cpus"] >= 1
        assert p["llama_cpp"]["llama_cpp_commit"] != "unknown"
        assert len(p["load_average"]) == 2 and p["cpus_available"] >= 1
    assert "memory-mapped" in by_mmap[True]["peak_rss_kind"] and "memory-mapped" not in by_mmap[False]["peak_rss_kind"]


def test_without_rapl_counters_energy_is_null_with_a_reason(profiles, tmp_path):
    _, by_mmap = profiles
    assert by_mmap[True]["energy"] is None
    assert "no RAPL counters" in by_mmap[True]["energy_why"] and "not estimated" in by_mmap[True]["energy_why"]
    (tmp_path / "intel-rapl:0" / "energy_uj").mkdir(parents=True)  # present but unreadable as a number
    energy, why = ondevice_profile._Rapl(tmp_path).result(1.0, 1, 1.0, 1)
    assert energy is None and "not readable" in why


def test_readable_rapl_counters_give_joules_per_token(tmp_path):
    domain = tmp_path / "intel-rapl:0"
    domain.mkdir()
    (domain / "energy_uj").write_text("1000\n")
    (domain / "max_energy_range_uj").write_text("262143328850\n")
    rapl = ondevice_profile._Rapl(tmp_path)
    before = rapl.read()
    (domain / "energy_uj").write_text("3001000\n")  # 3 J later
    energy, why = rapl.result(rapl.delta(before, rapl.read()), 512, 0.5, 128)
    assert why is None and energy["source"] == "RAPL" and energy["domains"] == ["intel-rapl:0"]
    assert energy["pp_joules_per_token"] == pytest.approx(3 / 512) and "every process" in energy["scope"]


def test_the_cli_prints_the_profile_and_the_label(gguf_files):
    path = gguf_files["llama", "q8_0"]
    proc = subprocess.run([sys.executable, "-m", "evaluator", "profile", "--model", str(path), "--threads", "1",
                           "--repeats", "2", "--pp", "32", "--tg", "8"], capture_output=True, text=True, check=True)
    text, line = proc.stdout.rsplit("\n}\n", 1)
    profile = json.loads(text + "\n}")
    assert profile["threads"] == 1 and profile["pp"]["tokens"] == 32 and profile["other_cores"] >= 0
    # A busy machine may make it noisy: then the line says so after the label (tests/evaluator/test_noisy_profiles.py)
    label, _, verdict = line.strip().partition("; UNRELIABLE")
    assert "pp32 " in line and label.endswith("measured on a server CPU with 1 threads: a proxy, not a phone")
    assert not verdict or verdict.startswith(" after 1 attempt(s): "), verdict


def test_a_split_files_size_is_every_parts(tmp_path):
    for i, size in enumerate((300, 200, 100), start=1):
        (tmp_path / f"model-{i:05d}-of-00003.gguf").write_bytes(b"x" * size)
    assert ondevice_profile.file_bytes(tmp_path / "model-00001-of-00003.gguf") == 600
    assert ondevice_profile.file_bytes(tmp_path / "model-00002-of-00003.gguf") == 600


def test_a_file_llama_cpp_cannot_load_is_refused_with_a_code(tmp_path, gguf_files):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(ProfileError, match="model.gguf") as refused:
        measure_profile(bad, threads=1, **SMALL)
    assert refused.value.code == "NOT_GGUF"  # the child's own code
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(gguf_files["llama", "q8_0"].read_bytes()[:4096])  # a GGUF header, no tensors
    with pytest.raises(ProfileError, match="llama.cpp cannot load truncated.gguf") as refused:
        measure_profile(truncated, threads=1, **SMALL)
    assert refused.value.code == "MODEL_LOAD_ERROR"
