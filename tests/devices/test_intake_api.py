"""POST /api/v1/device-reports/ (issue 25): real llama-bench output (data/README.md) is matched to the board file it
measured, by file name and llama.cpp's model_size or by sha256, and stored with its device; every refusal has its own
code, names what is wrong and stores nothing (the whole database is unchanged); uploads are owned and throttled per
account."""
import io
from csv import DictReader

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from leaderboard.devices.models import DeviceReport
from tests.devices import world
from tests.devices.conftest import URL

pytestmark = pytest.mark.django_db


def test_real_llama_bench_output_is_matched_by_file_name_and_model_size(files, post, reporter):
    response = post(world.body())
    assert response.status_code == 201, response.content[:800]
    report = response.json()
    pp, tg = world.captured()
    assert (report["hub_id"], report["file"], report["file_sha256"]) == (world.HUB, world.NAME, world.SHA256)
    assert (report["matched_by"], report["status"], report["model_size"]) == ("name_size", "counted", world.MODEL_SIZE)
    assert report["prompt"] == {"tokens_per_s": pp["avg_ts"], "sd": pp["stddev_ts"], "tokens": 64, "threads": 2}
    assert report["generation"] == {"tokens_per_s": tg["avg_ts"], "sd": tg["stddev_ts"], "tokens": 16, "threads": 2}
    assert report["device"] == {**world.DEVICE, "ram_gb": 8.0}
    assert report["llama_cpp"]["build_commit"] == pp["build_commit"] and report["llama_cpp"]["backends"] == "CPU"
    assert [(t["n_prompt"], t["n_gen"], t["samples"]) for t in report["tests"]] == [(64, 0, 3), (0, 16, 3)]
    assert DeviceReport.objects.get().owner == reporter
    listed = APIClient().get(URL, {"hub_id": world.HUB.upper()}).json()  # anyone reads; any case
    assert [r["id"] for r in listed["results"]] == [report["id"]]


def test_a_renamed_file_is_matched_by_its_sha256(files, post):
    bench = world.captured()
    for test in bench:
        test["model_filename"] = "/data/data/com.termux/files/home/renamed.gguf"
    refused = post(world.body(bench)).json()
    assert refused["code"] == "NO_MATCHING_FILE" and "no GGUF file on the board is called renamed.gguf" in \
        refused["detail"] and "sha256" in refused["hint"]
    response = post(world.body(bench, sha256=world.SHA256.upper()))
    assert response.status_code == 201, response.content[:500]
    assert (response.json()["matched_by"], response.json()["hub_id"]) == ("sha256", world.HUB)


def test_the_same_file_twice_on_the_board_is_named_by_its_model(files, post, snapshot):
    world.captured_file_run("other/tiny-GGUF/llama-q4_k_m.gguf", sha256="1" * 64)  # same name and model_size
    before = snapshot()
    refused = post(world.body())
    assert refused.status_code == 400 and refused.json()["code"] == "AMBIGUOUS_FILE"
    assert set(refused.json()["candidates"]) == {world.HUB, "other/tiny-GGUF/llama-q4_k_m.gguf"}
    assert "hub_id" in refused.json()["hint"] and snapshot() == before
    response = post(world.body(hub_id="other/tiny-GGUF/llama-q4_k_m.gguf"))
    assert response.status_code == 201 and response.json()["file_sha256"] == "1" * 64


def _edit(**test_fields):
    bench = world.captured()
    for test in bench:
        test.update(test_fields)
    return bench


def _mixed():
    bench = world.captured()
    bench[1]["model_filename"] = "other.gguf"
    return bench


# (body, code, words of the detail)
REFUSALS = {
    "not a list": (world.body({"avg_ts": 1}), "REPORT_MALFORMED", "llama_bench must be the JSON array"),
    "a field missing": (world.body([{k: v for k, v in t.items() if k != "avg_ts"} for t in world.captured()]),
                        "REPORT_MALFORMED", "test 0 has no avg_ts"),
    "a speed as text": (world.body(_edit(avg_ts="fast")), "REPORT_MALFORMED", "avg_ts must be a number"),
    "a bad time": (world.body(_edit(test_time="yesterday")), "REPORT_MALFORMED", "test_time must be an RFC 3339"),
    "an unknown body field": ({**world.body(), "extra": 1}, "REPORT_MALFORMED", "the body must be a JSON object"),
    "a formula": (world.body(make="=HYPERLINK(1)"), "REPORT_MALFORMED", "which a spreadsheet would run"),
    "charging missing": (world.body(charging=None), "REPORT_MALFORMED", "charging must be true or false"),
    "a bad sha256": (world.body(sha256="abc"), "REPORT_MALFORMED", "sha256 must be the file's 64 hexadecimal"),
    "an over-long device model": (world.body(model="X" * 61), "REPORT_FIELD_TOO_LONG",
                                  "device model is 61 characters, over the limit of 60"),
    "an over-long cpu_info": (world.body(_edit(cpu_info="Y" * 201)), "REPORT_FIELD_TOO_LONG",
                              "test 0: cpu_info is 201 characters, over the limit of 200"),
    "no thread": (world.body(_edit(n_threads=0)), "REPORT_OUT_OF_BOUNDS", "n_threads is 0, outside 1..1,024"),
    "a huge prompt": (world.body(_edit(n_prompt=1_000_000)), "REPORT_OUT_OF_BOUNDS", "n_prompt is 1,000,000"),
    "no RAM": (world.body(ram_gb=0), "REPORT_OUT_OF_BOUNDS", "device ram_gb is 0, outside 0.25..2048 GB"),
    "a negative speed": (world.body(world.with_speeds(-5.0)), "REPORT_ABSURD_SPEED", "avg_ts is negative"),
    "an absurd speed": (world.body(world.with_speeds(250_000.0)), "REPORT_ABSURD_SPEED",
                        "over 100,000 tokens/s for a tg test"),
    "two files": (world.body(_mixed()), "REPORT_MIXED_FILES", "more than one file"),
    "no such file": (world.body(_edit(model_filename="mystery.gguf")), "NO_MATCHING_FILE",
                     "no GGUF file on the board is called mystery.gguf"),
    "another size": (world.body(_edit(model_size=world.MODEL_SIZE + 32)), "NO_MATCHING_FILE",
                     "its model_size there is 1,064,912, not the report's 1,064,944 bytes"),
    "no such sha256": (world.body(sha256="0" * 64), "NO_MATCHING_FILE", "no GGUF file on the board has sha256"),
    "the hash of another file": (world.body(_edit(model_size=2_000_000), sha256=world.SHA256), "FILE_MISMATCH",
                                 "llama-bench measured another file"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_each_refusal_has_its_code_and_stores_nothing(files, post, snapshot, case):
    data, code, words = REFUSALS[case]
    before = snapshot()
    response = post(data)
    body = response.json()
    assert (response.status_code, body["code"]) == (400, code), body
    assert words in body["detail"] and body["hint"], body
    assert snapshot() == before


def test_every_problem_of_a_kind_is_listed_at_once(files, post):
    body = post(world.body(_edit(avg_ts="fast"), make="", os_version=7)).json()
    assert body["code"] == "REPORT_MALFORMED"
    assert {"device make is missing", "device os_version must be text, not int", "test 0: avg_ts must be a number, "
            "not 'fast'", "test 1: avg_ts must be a number, not 'fast'"} <= set(body["problems"])


def test_a_request_over_the_size_limit_is_refused_before_it_is_read(files, api, snapshot, settings):
    settings.DEVICE_REPORT_MAX_BYTES = 1024
    before = snapshot()
    response = api.post(URL, world.body(), format="json")  # the captured output alone is over 1 KB
    assert response.status_code == 413 and response.json()["code"] == "REPORT_TOO_LARGE"
    assert snapshot() == before


def test_only_a_signed_in_account_uploads_and_each_is_throttled(files, post, reporter, settings):
    assert APIClient().post(URL, world.body(), format="json").status_code in (401, 403)
    settings.DEVICE_REPORT_THROTTLE_RATE = "2/hour"
    assert post(world.body(ram_gb=-1)).status_code == 400  # refused reports count too
    assert post(world.body()).status_code == 201
    third = post(world.body())
    assert third.status_code == 429 and third.json()["code"] == "THROTTLED" and "2/hour" in third.json()["hint"]
    assert "Retry-After" in third
    other = APIClient()
    other.force_authenticate(User.objects.create_user("other"))
    assert post(world.body(), client=other).status_code == 201  # per account
    assert APIClient().get(URL).status_code == 200  # reads are not counted


REPORT_COLUMNS = (
    "id,hub_id,file,file_sha256,matched_by,device_make,device_model,device_chip,device_ram_gb,device_os_version,"
    "device_charging,llama_cpp_build_commit,llama_cpp_build_number,llama_cpp_backends,llama_cpp_cpu_info,"
    "llama_cpp_gpu_info,model_type,model_size,prompt_tokens_per_s,prompt_sd,prompt_tokens,prompt_threads,"
    "generation_tokens_per_s,generation_sd,generation_tokens,generation_threads,status,measured_at,created_at,"
    "samples_url,flagged,flagged_via")


def test_the_lists_as_csv_with_their_documented_columns(files, post):
    post(world.body(model="Pixel 8 -Pro"))  # a cell a spreadsheet would not run: the dash is not first
    reports = b"".join(APIClient().get(URL, {"format": "csv"}).streaming_content).decode().splitlines()
    assert reports[0] == REPORT_COLUMNS and "Pixel 8 -Pro" in reports[1]
    speeds = b"".join(APIClient().get(URL + "speeds/", {"format": "csv", "sha256": world.SHA256})
                      .streaming_content).decode().splitlines()
    assert speeds[0] == ("hub_id,file,file_sha256,quantization,device_key,device,devices,reports,outliers,people,"
                         "confirmed,confirmed_by,disputed,dissenting,every_tg_min,every_tg_max,pp_median,pp_min,pp_max,tg_median,tg_min,tg_max,builds,chips,ram_gb,"
                         "tests,charging,build_medians,prompt_tokens,prompt_tokens_source,ttft_derived_s,"
                         "ttft_measured_s,ttft_measured_people,tg_sustained_drop,tg_sustained_people,file_bytes,"
                         "kv_context,kv_cache_bytes,memory_need_bytes,fit_ram_gb,app_ram_share,app_budget_bytes,fit,flagged,flagged_via")
    assert speeds[1].startswith(f"{world.HUB},{world.NAME},{world.SHA256},Q4_K_M,google pixel 8 -pro,")


def test_the_speeds_of_a_flagged_model_s_file_are_marked(files, post):
    """Flags follow a model to its files (issue 38): its speeds are real and listed, marked as the boards mark it."""
    from leaderboard.core.cache_generation import results_changed
    from leaderboard.submissions.models import ModelEntry

    assert post(world.body()).status_code == 201
    speeds = APIClient().get(URL + "speeds/", {"sha256": world.SHA256}).json()["results"]
    assert [(r["flagged"], r["flagged_via"]) for r in speeds] == [(False, "")]
    ModelEntry.objects.filter(hub_id=world.HUB).update(flagged=True)  # as the admin's "Flag" action leaves it
    results_changed()
    speeds = APIClient().get(URL + "speeds/", {"sha256": world.SHA256}).json()["results"]
    assert [r["flagged"] for r in speeds] == [True]
    csv = b"".join(APIClient().get(URL + "speeds/", {"sha256": world.SHA256, "format": "csv"}).streaming_content)
    assert [r["flagged"] for r in DictReader(io.StringIO(csv.decode()))] == ["true"]


def test_a_flagged_model_s_reports_are_marked_in_the_list_the_detail_and_the_csv(files, post):
    """The reports list, a report's detail and the CSV mark a flagged model's reports as the boards mark its files."""
    from leaderboard.core.cache_generation import results_changed
    from leaderboard.submissions.models import ModelEntry

    created = post(world.body())
    assert created.status_code == 201 and (created.json()["flagged"], created.json()["flagged_via"]) == (False, "")
    pk = created.json()["id"]

    def marks():
        listed = APIClient().get(URL, {"hub_id": world.HUB}).json()["results"]
        detail = APIClient().get(f"{URL}{pk}/").json()
        csv = b"".join(APIClient().get(URL, {"hub_id": world.HUB, "format": "csv"}).streaming_content)
        return ([r["flagged"] for r in listed], detail["flagged"],
                [r["flagged"] for r in DictReader(io.StringIO(csv.decode()))])

    assert marks() == ([False], False, ["false"])
    ModelEntry.objects.filter(hub_id=world.HUB).update(flagged=True)  # as the admin's "Flag" action leaves it
    results_changed()
    assert marks() == ([True], True, ["true"])
