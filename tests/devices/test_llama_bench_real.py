"""Real llama-bench JSON (issue 25): the llama-bench that dev.sh's setup_llamacpp builds from the pinned llama.cpp
sources runs on a tiny GGUF file the project's pipeline made (tests/support/gguf_fixtures.py); the server's cost
profile of the same file, measured for real, records llama.cpp's model_size; the output uploaded through the API, with
no hash, is matched to that file by name and model_size, and shows on the file's page beside the profile."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from evaluator.gguf_convert import file_sha256
from evaluator.ondevice_profile import measure_profile
from tests.boards.ondevice_world import first_right
from tests.devices import world
from tests.frontend.conftest import text
from tests.results.quantized_runs import gguf_entry, letter_run, questions

pytestmark = [pytest.mark.llamacpp, pytest.mark.django_db]
LLAMA_BENCH = Path(sys.executable).with_name("llama-bench")


def llama_bench(path: Path) -> list:
    assert LLAMA_BENCH.is_file(), f"no {LLAMA_BENCH}: dev.sh's setup_llamacpp builds it"
    done = subprocess.run([str(LLAMA_BENCH), "-m", str(path), "-p", "32", "-n", "8", "-r", "2", "-t", "1", "-o",
                           "json"], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def test_the_pinned_llama_bench_output_is_matched_and_shown(client, demo_loaded, gguf_files, post):
    path = gguf_files["llama", "q4_k_m"]
    bench = llama_bench(path)
    assert [(t["n_prompt"], t["n_gen"]) for t in bench] == [(32, 0), (0, 8)]
    profile = measure_profile(path, threads=1, repeats=1, pp=8, tg=4, timeout=300)
    # llama-bench's model_size is llama_model_size, as the profile's: the tensors' bytes, less than the file's
    assert profile["model_size"] == bench[0]["model_size"] < path.stat().st_size
    hub = f"org/tiny-llama-GGUF/{path.name}"
    letter_run(hub, first_right(250, len(questions())), precision="gguf",
               submission=gguf_entry(hub, base_model="org/tiny-llama", quantization="Q4_K_M"),
               model_files=[{"file": path.name, "size": path.stat().st_size, "sha256": file_sha256(path)}],
               efficiency={"ondevice": profile})

    response = post(world.body(bench))
    assert response.status_code == 201, response.content[:800]
    report = response.json()
    assert (report["hub_id"], report["matched_by"], report["file_sha256"]) == (hub, "name_size", file_sha256(path))
    assert report["generation"]["tokens_per_s"] == bench[1]["avg_ts"]
    assert report["llama_cpp"]["build_commit"] == bench[0]["build_commit"] != "unknown"
    assert post(world.body(bench, sha256=file_sha256(path))).json()["matched_by"] == "sha256"

    page = text(client.get(reverse("model-detail", args=[hub])))
    assert page.index('id="cost-profile"') < page.index('id="device-reports"')
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page[page.index('id="device-reports"'):]))
    tg = bench[1]["avg_ts"]  # both reports are of this run: their median
    assert "2 reports from 1 device" in shown and f"Google Pixel 8 Tensor G3 8 GB 2 {tg:,.1f}" in shown
