"""A GGUF run's phone-class cost profile (evaluator/ondevice_profile.py, stored as efficiency["ondevice"]) on the model
page and in the model API, always with its label: a server CPU's figures, a proxy, not a phone. The profile itself is
measured on real llama.cpp in tests/evaluator/test_ondevice_profile.py and by the deployed worker in
tests/evaluations/test_llamacpp_worker.py; here its stored shape is shown."""
import re

import pytest
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
LABEL = "measured on a server CPU with 4 threads: a proxy, not a phone"
PROFILE = {
    "label": LABEL, "file": "tiny-Q8_0.gguf", "file_bytes": 3_500_000, "file_type": "Q8_0", "threads": 4,
    "n_gpu_layers": 0, "mmap": True, "repeats": 3,
    "pp": {"tokens": 512, "tokens_per_s": 1234.5, "sd": 12.25, "runs": [1220.0, 1240.0, 1243.5]},
    "tg": {"tokens": 128, "tokens_per_s": 45.25, "sd": 0.5, "runs": [45.0, 45.0, 45.75]},
    "ttft": {"prompt_chars": 1699, "prompt_tokens": 431, "seconds": 0.3456, "sd": 0.0042, "runs": [0.34, 0.35, 0.35]},
    "peak_rss_bytes": 80 * 2**20, "peak_rss_kind": "VmHWM of the profiling process",
    "energy": None, "energy_why": "no RAPL counters (/sys/class/powercap/intel-rapl:* absent); not estimated",
    "cpu": {"model": "AMD EPYC 9654", "flags": ["fpu", "sse4_2", "avx2", "fma", "avx512f"], "machine": "x86_64",
            "logical_cpus": 16},
    "llama_cpp": {"llama_cpp_python": "0.3.36", "llama_cpp_commit": "0c1e570"},
    "load_average": [0.31, 0.62], "cpus_available": 16,
}


def page_of(client, hub_id):
    return text(client.get(reverse("model-detail", args=[hub_id])))


def section(page):
    match = re.search(r'<h3 id="cost-profile">.*?(?=<h2>)', page, re.S)
    assert match, "no cost profile on the model page"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(0)))


def test_the_model_page_and_api_show_the_profile_with_its_label(client, make_run):
    run = make_run("org/tiny-GGUF", 300)
    EvaluationRun.objects.filter(pk=run.pk).update(efficiency={"prefill_tokens_per_s": 1000.0, "ondevice": PROFILE})
    shown = section(page_of(client, "org/tiny-GGUF"))
    assert LABEL in shown
    assert "Prompt processing (pp512) 1,234.5 ± 12.2 tokens/s (3 runs)" in shown
    assert "Generation (tg128) 45.2 ± 0.5 tokens/s (3 runs)" in shown
    assert "Time to first token 0.346 ± 0.004 s (a median Mobile-MMLU prompt: 1,699 characters, 431 tokens)" in shown
    assert "80.0 MiB (file memory-mapped)" in shown and "File size 3.3 MiB" in shown
    # the SIMD flags, not all; how busy the machine was
    assert "AMD EPYC 9654 (x86_64), 4 threads, no GPU; avx2 fma avx512f; load average 0.6 on 16 CPUs" in shown
    assert "Energy not measured: no RAPL counters" in shown
    api = client.get(reverse("api-model-detail", args=["org/tiny-GGUF"])).json()
    assert api["runs"][0]["efficiency"]["ondevice"]["label"] == LABEL


def test_a_profile_kept_from_the_files_other_run_names_it(client, make_run):
    run = make_run("org/tiny-GGUF", 300)
    EvaluationRun.objects.filter(pk=run.pk).update(efficiency={"ondevice": {**PROFILE, "measured_for_run": 41}})
    shown = section(page_of(client, "org/tiny-GGUF"))
    assert "measured for run 41 of the same file" in shown and "Generation (tg128)" in shown


def test_a_measured_energy_says_where_it_comes_from(client, make_run):
    run = make_run("org/tiny-GGUF", 300)
    energy = {"source": "RAPL", "domains": ["intel-rapl:0"], "scope": "whole CPU package(s)",
              "pp_joules_per_token": 0.0123, "tg_joules_per_token": 0.456}
    EvaluationRun.objects.filter(pk=run.pk).update(efficiency={"ondevice": {**PROFILE, "energy": energy}})
    assert "Energy 0.456 J per generated token, 0.0123 J per prompt token (RAPL, whole CPU package(s))" in section(
        page_of(client, "org/tiny-GGUF"))


def test_a_failed_profile_says_so_and_a_checkpoint_run_has_none(client, make_run):
    run = make_run("org/tiny-GGUF", 300)
    EvaluationRun.objects.filter(pk=run.pk).update(efficiency={"ondevice": {
        "label": LABEL, "threads": 4, "error": "the profile of tiny-Q8_0.gguf took over 1800 s"}})
    shown = section(page_of(client, "org/tiny-GGUF"))
    assert LABEL in shown and f"Not measured for run {run.pk}: the profile of tiny-Q8_0.gguf took over 1800 s" in shown
    make_run("org/checkpoint", 300)
    assert 'id="cost-profile"' not in page_of(client, "org/checkpoint")
