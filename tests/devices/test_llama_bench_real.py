"""Real llama-bench JSON (issue 25): the llama-bench that dev.sh's setup_llamacpp builds from the pinned llama.cpp
sources runs on a tiny GGUF file the project's pipeline made (tests/support/gguf_fixtures.py); the server's cost
profile of the same file, measured for real, records llama.cpp's model_size; the output uploaded through the API, with
no hash, is matched to that file by name and model_size, and shows on the file's page beside the profile: one
account's reports as unconfirmed (one vote), and once a second person's report (matched by sha256) agrees, a
confirmed, charted device with the figures a phone user feels (issue 33): TTFT derived and, from llama-bench's -p of
the profile's median prompt, measured; the sustained change over its 5 repetitions; the fit with the KV cache from
the file's own header."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from evaluator.gguf_convert import file_sha256
from evaluator.ondevice_profile import measure_profile
from leaderboard.devices.phone_figures import kv_cache_bytes
from leaderboard.hub.gguf_checks import kv_facts
from leaderboard.hub.gguf_header import parse_header
from leaderboard.submissions.models import Submission
from tests.boards.ondevice_world import first_right
from tests.devices import world
from tests.frontend.conftest import text
from tests.results.quantized_runs import gguf_entry, letter_run, questions

pytestmark = [pytest.mark.llamacpp, pytest.mark.django_db]
LLAMA_BENCH = Path(sys.executable).with_name("llama-bench")


def llama_bench(path: Path, prompts: str = "32") -> list:
    assert LLAMA_BENCH.is_file(), f"no {LLAMA_BENCH}: dev.sh's setup_llamacpp builds it"
    done = subprocess.run([str(LLAMA_BENCH), "-m", str(path), "-p", prompts, "-n", "8", "-r", "5", "-t", "1", "-o",
                           "json"], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


def words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_pinned_llama_bench_output_is_matched_and_shown(client, demo_loaded, gguf_files, post, accounts):
    path = gguf_files["llama", "q4_k_m"]
    profile = measure_profile(path, threads=1, repeats=1, pp=8, tg=4, timeout=300)
    median = profile["ttft"]["prompt_tokens"]  # the median-length prompt in this file's own tokens
    bench = llama_bench(path, f"32,{median}")
    assert [(t["n_prompt"], t["n_gen"]) for t in bench] == [(32, 0), (median, 0), (0, 8)]
    assert all(len(t["samples_ts"]) == 5 for t in bench)  # -r 5: one speed per repetition, in order
    # llama-bench's model_size is llama_model_size, as the profile's: the tensors' bytes, less than the file's
    assert profile["model_size"] == bench[0]["model_size"] < path.stat().st_size
    hub = f"org/tiny-llama-GGUF/{path.name}"
    submission = gguf_entry(hub, base_model="org/tiny-llama", quantization="Q4_K_M")
    data = path.read_bytes()
    kv = kv_facts(parse_header(data, file_size=len(data)), "llama")  # what GGUF intake keeps of its header
    Submission.objects.filter(pk=submission.pk).update(gguf_facts={**submission.gguf_facts, "kv": kv})
    letter_run(hub, first_right(250, len(questions())), precision="gguf", submission=submission,
               model_files=[{"file": path.name, "size": path.stat().st_size, "sha256": file_sha256(path)}],
               efficiency={"ondevice": profile})

    response = post(world.body(bench))
    assert response.status_code == 201, response.content[:800]
    report = response.json()
    assert (report["hub_id"], report["matched_by"], report["file_sha256"]) == (hub, "name_size", file_sha256(path))
    assert report["generation"]["tokens_per_s"] == bench[2]["avg_ts"]
    assert report["tests"][2]["samples_ts"] == bench[2]["samples_ts"]
    assert report["llama_cpp"]["build_commit"] == bench[0]["build_commit"] != "unknown"
    assert post(world.body(bench, sha256=file_sha256(path))).json()["matched_by"] == "sha256"

    # one account's two reports are one vote: the device is listed apart, unconfirmed, and nothing is charted
    page = text(client.get(reverse("model-detail", args=[hub])))
    assert page.index('id="cost-profile"') < page.index('id="device-reports"')
    shown = words(page[page.index('id="device-reports"'):])
    tg, pp = bench[2]["avg_ts"], max(bench[0]["avg_ts"], bench[1]["avg_ts"])  # the report's fastest of each kind
    assert "2 reports from 1 device, 0 devices confirmed" in shown and "No confirmed figure from a device yet" in shown
    assert f"Google Pixel 8 Tensor G3 8 GB unconfirmed: 1 person 2 reports {tg:,.1f} {pp:,.1f}" in \
        shown[shown.index("Not confirmed yet"):]
    assert 'id="device-data"' not in page

    # a second person's report of the same output, matched by sha256, agrees: confirmed by 2 people, charted
    second, = accounts(1)
    response = second.post("/api/v1/device-reports/", world.body(bench, sha256=file_sha256(path)), format="json")
    assert response.status_code == 201 and response.json()["matched_by"] == "sha256", response.content[:800]
    page = text(client.get(reverse("model-detail", args=[hub])))
    shown = words(page[page.index('id="device-reports"'):])
    assert "3 reports from 1 device, 1 device confirmed" in shown
    assert f"Google Pixel 8 Tensor G3 8 GB confirmed by 2 people 3 reports {tg:,.1f}" in shown
    drop = 1 - bench[2]["samples_ts"][-1] / bench[2]["samples_ts"][0]
    kv_bytes = kv_cache_bytes(kv, 2048)
    assert kv_bytes and kv["block_count"] >= 1
    row, = client.get("/api/v1/device-reports/speeds/", {"hub_id": hub}).json()["results"]
    assert (row["confirmed_by"], row["prompt_tokens"], row["prompt_tokens_source"]) == (2, median, "file")
    assert row["ttft_derived_s"] == pytest.approx(median / pp)
    assert row["ttft_measured_s"] == pytest.approx(median / bench[1]["avg_ts"])  # llama-bench -p <median>
    assert row["tg_sustained_drop"] == pytest.approx(drop) and row["tg_sustained_people"] == 2
    assert (row["kv_cache_bytes"], row["file_bytes"], row["fit"]) == (kv_bytes, path.stat().st_size, "fits")
    assert [b["build_commit"] for b in row["build_medians"]] == [bench[0]["build_commit"]]
    feel = shown[shown.index("What a phone user feels"):shown.index("Medians per llama.cpp build")]
    assert f"Google Pixel 8 {median / pp:,.2f} s derived" in feel and f"(2 people, pp{median})" in feel
    assert "first → last repetition (2 people) fits:" in feel
    chart = json.loads(re.search(r'<script id="device-data" type="application/json">(.*?)</script>', page, re.S)[1])
    assert [(d["name"], d["n"]) for d in chart["devices"]] == [("Google Pixel 8", 2)]
