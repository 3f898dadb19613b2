"""The demo's real model (manage.py load_real_gguf, run by `./dev.sh serve`): a published GGUF file enters the board as
a submitted file does, by GGUF intake's own checks and the worker's own download, and gets its run, cost profile and
llama-bench device report. Needs the llama.cpp environment (.venv-llamacpp).

The real file (Gemma 3 270M Q4_K_M, 253 MB) is read, checked, registered and downloaded for real; its full run (480
questions, minutes on 2 cores) is left to the demo, and the same command runs in full on a tiny Gemma file the
project's pipeline made (tests/support/gguf_fixtures.py), standing in for it.
"""
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from evaluator.gguf_convert import file_sha256
from evaluator.real_gguf import GEMMA3_270M_Q4_K_M as GEMMA
from evaluator.real_gguf import RealGGUF
from leaderboard.demo import real_model
from leaderboard.demo.local_hub import demo_revision
from leaderboard.demo.management.commands import load_real_gguf
from leaderboard.evaluations.gguf_fetch import fetch_gguf
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import text

pytestmark = [pytest.mark.llamacpp, pytest.mark.django_db]
LLAMA_BENCH = Path(sys.executable).with_name("llama-bench")


def test_the_real_file_is_read_by_gguf_intake_and_found_by_the_workers_download(fake_hub, demo_loaded):
    out = io.StringIO()
    call_command("load_real_gguf", "--register-only", stdout=out)
    entry = ModelEntry.objects.get(hub_id=GEMMA.hub_id)
    # intake's facts: the quantization from the tensors' mix of types (Q4_K, Q6_K, ...), not only the header's claim
    assert (entry.gguf_file, entry.quantization, entry.architecture, entry.license, entry.params) == (
        GEMMA.file_name, "Q4_K_M", "gemma3", "gemma", 268_098_176)
    assert "vocabulary 262,144" in out.getvalue() and not EvaluationRun.objects.exists()
    # where the GPU worker's download (hf_hub_download at the pinned commit, then the sha256) finds it: no hub asked
    parts = [{"file": GEMMA.file_name, "size": GEMMA.size, "sha256": GEMMA.sha256}]
    path = fetch_gguf(model_ref=entry.hub_id, revision=demo_revision(GEMMA), parts=parts)
    assert path.stat().st_size == GEMMA.size and fake_hub.requests == []
    call_command("load_real_gguf", "--register-only", stdout=io.StringIO())  # again: the same entry, nothing new
    assert ModelEntry.objects.filter(hub_id__iexact=GEMMA.hub_id).count() == 1


@pytest.fixture
def tiny_real_file(gguf_files, monkeypatch, settings):
    """A tiny Gemma Q4_K_M file standing in for the real one (its record as evaluator/real_gguf.py keeps one), with a
    short cost profile."""
    path = gguf_files["gemma", "q4_k_m"]
    tiny = RealGGUF(package="-", file_name=path.name, size=path.stat().st_size, sha256=file_sha256(path),
                    hub_repo="demo-test/tiny-gemma-GGUF", base_model="org/tiny-gemma", quantization="Q4_K_M",
                    license="mit")
    monkeypatch.setattr(real_model, "DEMO_REAL_MODELS", (tiny,))
    monkeypatch.setattr(load_real_gguf, "DEMO_REAL_MODELS", (tiny,))
    monkeypatch.setattr(load_real_gguf, "real_gguf_file", lambda model: path)
    settings.ONDEVICE_PROFILE_THREADS, settings.ONDEVICE_PROFILE_REPEATS = 1, 2
    settings.ONDEVICE_PROFILE_PP, settings.ONDEVICE_PROFILE_TG, settings.ONDEVICE_PROFILE_RETRIES = 16, 4, 0
    # The run's lease is renewed from a thread of its own, on a connection that cannot see this test's transaction:
    # no renewal falls within the run (480 questions take minutes on a loaded machine).
    settings.RUN_LEASE_SECONDS = 3600
    return tiny, path


@pytest.mark.slow
def test_the_command_gives_the_file_its_run_profile_and_device_report(client, fake_hub, demo_loaded, tiny_real_file,
                                                                      tmp_path):
    tiny, path = tiny_real_file
    out = io.StringIO()
    call_command("load_real_gguf", "--skip-if-done", stdout=out)
    assert f"file: {path}" in out.getvalue()
    run = EvaluationRun.objects.get(model_ref=tiny.hub_id)
    assert (run.status, run.split, run.progress_done, run.model_revision) == (
        "succeeded", "validation", 480, demo_revision(tiny))
    assert run.model_files == [{"file": path.name, "size": tiny.size, "sha256": tiny.sha256}]
    call_command("load_real_gguf", "--skip-if-done", stdout=io.StringIO())  # done: printed, not run again
    assert EvaluationRun.objects.filter(model_ref=tiny.hub_id).count() == 1 and fake_hub.requests == []

    # dev.sh's ondevice_demo_report: the pinned llama-bench on this machine, loaded by manage.py device_report
    bench = subprocess.run([str(LLAMA_BENCH), "-m", str(path), "-p", "32", "-n", "8", "-r", "2", "-t", "1", "-o",
                            "json"], capture_output=True, text=True, timeout=300, check=True).stdout
    (tmp_path / "bench.json").write_text(bench)
    call_command("device_report", str(tmp_path / "bench.json"), "--user", "demo", "--create-user", "--make",
                 "Demo server", "--model", "this machine's CPU, not a phone", "--chip", "a server CPU", "--ram-gb",
                 "8", "--os-version", "Linux", "--charging", "--sha256", tiny.sha256, stdout=io.StringIO())

    rows = {r["hub_id"]: r for r in client.get(reverse("api-leaderboard-on-device")).json()["results"]}
    row = rows[tiny.hub_id]
    assert (row["quantization"], row["revision"], row["file_sha256"], row["n"]) == (
        "Q4_K_M", demo_revision(tiny), tiny.sha256, 480)
    assert row["gen_tokens_per_s"] > 0 and "server CPU" in row["profile_label"]
    reports = client.get(reverse("api-device-reports"), {"hub_id": tiny.hub_id}).json()["results"]
    assert [(r["device"]["make"], r["file_sha256"]) for r in reports] == [("Demo server", tiny.sha256)]
    assert reports[0]["generation"]["tokens_per_s"] == json.loads(bench)[1]["avg_ts"]

    board = text(client.get(reverse("leaderboard-on-device")))
    board_row = re.search(rf'<tr data-hub-id="{re.escape(tiny.hub_id)}".*?</tr>', board, re.S).group(0)
    assert f">{real_model.LABEL}</span>" in board_row
    page = text(client.get(reverse("model-detail", args=[tiny.hub_id])))
    assert page.index('id="demo-real-note"') < page.index('id="cost-profile"') < page.index('id="device-reports"')
    assert "Demo server" in page[page.index('id="device-reports"'):]
