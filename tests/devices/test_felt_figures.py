"""The figures a phone user feels on the device pages (issue 33, section 5): intake keeps llama-bench's samples_ts
(bounded, refused whole when bad); a file's page shows, per confirmed device, time to first token at the benchmark's
median prompt (derived, and measured where a report ran that length), the sustained drop over at least five
repetitions, whether the file with its KV cache fits an app's share of the device's RAM, and medians per llama.cpp
build, newest first; the speeds API and CSV and "what runs well on my phone" carry the same figures, labelled."""
import copy
import csv as csv_module
import io
import re

import pytest
from django.urls import reverse

from leaderboard.devices.models import DeviceReport, DeviceTest
from leaderboard.submissions.models import Submission
from tests.devices import world
from tests.devices.test_pages import SECTION, model_page, words
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
URL = "/api/v1/device-reports/"
OLD, NEW = ("aaaaaaa", 4000), ("bbbbbbb", 5000)
DECLINING = [25.0, 24.8, 24.0, 23.1, 22.0, 21.5, 20.9, 20.2, 19.6, 19.0]  # 24% slower at the end
# the captured file's header facts as GGUF intake keeps them: KV cache 2 x 4 x (16 + 16) x 2 bytes a token
KV = {"block_count": 2, "embedding_length": 64, "head_count": 4}
KV_AT_2048 = 2 * 4 * (16 + 16) * 2 * 2048


def bench(tg, pp, *, build=OLD, samples=None, prompt_test=None):
    """The captured output as another run: tests' speeds, build, the generation test's samples_ts, and optionally
    a pp test of `prompt_test` = (n_prompt, avg_ts)."""
    out = copy.deepcopy(world.captured())
    for test in out:
        rate = tg if test["n_gen"] else pp
        test.update(avg_ts=rate, stddev_ts=rate / 50, samples_ts=[rate] * 3, build_commit=build[0],
                    build_number=build[1])
        if test["n_gen"] and samples:
            test["samples_ts"] = samples
    if prompt_test:
        extra = copy.deepcopy(out[0])
        extra.update(n_prompt=prompt_test[0], avg_ts=prompt_test[1], stddev_ts=1.0, samples_ts=[prompt_test[1]] * 3)
        out.append(extra)
    return out


def send(client, data, **fields):
    response = client.post(URL, world.body(data, **fields), format="json")
    assert response.status_code == 201, response.content[:600]
    return response.json()


def header_facts(hub=world.HUB, kv=KV):
    submission = Submission.objects.get(model__hub_id=hub)
    submission.gguf_facts = {**submission.gguf_facts, "kv": kv}
    submission.save(update_fields=["gguf_facts"])


@pytest.fixture
def felt(files, api, accounts):
    """Pixel 8 confirmed by two people: one on an old build, ten declining repetitions; one on a newer build, ten
    repetitions 10% slower at the end and a pp test of the file's median prompt (431 tokens: its profile's)."""
    header_facts()
    second, = accounts(1)
    send(api, bench(20.0, 300.0, build=OLD, samples=DECLINING))
    send(second, bench(24.0, 400.0, build=NEW, samples=[24.0] * 9 + [21.6], prompt_test=(431, 287.4)))
    return second


def test_intake_keeps_samples_ts(files, api):
    report = send(api, bench(20.0, 300.0, samples=DECLINING))
    assert report["tests"][1]["samples_ts"] == DECLINING and report["tests"][1]["samples"] == 10
    assert list(DeviceTest.objects.order_by("index").values_list("samples_ts", flat=True)) == [[300.0] * 3, DECLINING]


@pytest.mark.parametrize("samples, code, words_", [
    (["fast"] * 10, "REPORT_MALFORMED", "samples_ts must hold numbers"),
    ("25.0", "REPORT_MALFORMED", "samples_ts must be a list"),
    ([20.0] * 101, "REPORT_OUT_OF_BOUNDS", "samples_ts has 101 repetitions, over the limit of 100"),
    ([20.0, -1.0, 20.0], "REPORT_ABSURD_SPEED", "samples_ts holds a negative speed"),
])
def test_bad_samples_are_refused_and_nothing_is_stored(files, api, samples, code, words_):
    data = bench(20.0, 300.0)
    data[1]["samples_ts"] = samples
    response = api.post(URL, world.body(data), format="json")
    assert response.status_code == 400 and response.json()["code"] == code, response.content[:400]
    assert any(words_ in p for p in response.json()["problems"]), response.json()["problems"]
    assert not DeviceReport.objects.exists() and not DeviceTest.objects.exists()


def test_the_column_bounds_the_samples_as_stored(files):
    """columns.check reads the bound from the field (its MaxLengthValidator), as it reads max_length."""
    from leaderboard.devices import columns

    problems = {}
    columns.check(DeviceTest, {"samples_ts": [1.0] * 101}, problems)
    assert problems == {"REPORT_OUT_OF_BOUNDS": ["samples_ts has 101 items, over the limit of 100"]}
    problems = {}
    columns.check(DeviceTest, {"samples_ts": [1.0, float("nan")]}, problems)
    assert problems == {"REPORT_MALFORMED": ["samples_ts must hold finite numbers"]}


def test_the_file_page_shows_what_a_phone_user_feels(client, felt):
    shown = words(SECTION.search(model_page(client)).group(0))
    feel = shown[shown.index("What a phone user feels"):shown.index("Medians per llama.cpp build")]
    assert "Time to first token at the benchmark's median prompt, 431 tokens (the median-length Mobile-MMLU prompt " \
           "in this file's own tokens (its server cost profile)): derived" in feel
    assert "measured where a report ran llama-bench -p with exactly that length" in feel
    assert "at least 5 repetitions" in feel
    assert f"({2048:,} tokens: 1 MiB, layers × KV heads × (key + value length) × 2 bytes, f16, from the GGUF " \
           "header)" in feel and "assumed: a phone leaves one app about half its RAM" in feel
    # pp median 350 (300 and 400): 431 / 350 = 1.23 s derived; the second person's pp431 test: 431 / 287.4 = 1.50 s
    assert "Google Pixel 8 1.23 s derived (from prompt 350.0 tokens/s); 1.50 s measured (1 person, pp431) " \
           "−17% first → last repetition (2 people) fits: 2 MiB of 4.00 GiB (50% of 8 GB)" in feel
    builds = shown[shown.index("Medians per llama.cpp build"):]
    assert "Google Pixel 8 bbbbbbb b5000 1 person 1 report 24.0 400.0 1.08 s Google Pixel 8 aaaaaaa b4000 1 person " \
           "1 report 20.0 300.0 1.44 s" in builds  # newest build first, never blended


def test_a_sustained_figure_needs_five_repetitions(client, files, api, accounts):
    second, = accounts(1)
    send(api, bench(20.0, 300.0))  # three repetitions each
    send(second, bench(24.0, 300.0, samples=DECLINING[:4]))
    feel = words(SECTION.search(model_page(client)).group(0))
    assert "– (no report with -r 5 or more)" in feel
    assert "(file only: KV cache not known)" in feel and "whose size is not known: the file's GGUF header facts " \
                                                          "were not stored" in feel


def test_the_speeds_api_and_csv_carry_the_felt_figures(client, felt):
    row, = client.get("/api/v1/device-reports/speeds/", {"hub_id": world.HUB}).json()["results"]
    assert (row["prompt_tokens"], row["prompt_tokens_source"]) == (431, "file")
    assert row["ttft_derived_s"] == pytest.approx(431 / 350) and row["ttft_measured_s"] == pytest.approx(431 / 287.4)
    assert row["tg_sustained_drop"] == pytest.approx(0.17) and row["tg_sustained_people"] == 2
    assert (row["file_bytes"], row["kv_context"], row["kv_cache_bytes"]) == (world.BYTES, 2048, KV_AT_2048)
    assert row["memory_need_bytes"] == world.BYTES + KV_AT_2048 and row["fit"] == "fits" and row["fit_ram_gb"] == 8
    assert [(b["build_commit"], b["build_number"], b["tg_median"], b["pp_median"]) for b in row["build_medians"]] \
        == [("bbbbbbb", 5000, 24.0, 400.0), ("aaaaaaa", 4000, 20.0, 300.0)]
    body = b"".join(client.get("/api/v1/device-reports/speeds/", {"format": "csv"}).streaming_content).decode()
    cells = next(csv_module.DictReader(io.StringIO(body)))
    assert cells["build_medians"] == "bbbbbbb (b5000): tg 24.0, pp 400.0 tokens/s, 1 person; aaaaaaa (b4000): " \
                                     "tg 20.0, pp 300.0 tokens/s, 1 person"
    assert (cells["fit"], cells["prompt_tokens_source"], float(cells["tg_sustained_drop"])) == ("fits", "file",
                                                                                                pytest.approx(0.17))


def test_a_file_without_a_profile_uses_the_published_median(client, files, api):
    hub = "org/unprofiled-GGUF/llama-q4_k_m.gguf"
    world.captured_file_run(hub, profiled=False)
    send(api, bench(20.0, 300.0), sha256=world.SHA256, hub_id=hub)
    row, = client.get("/api/v1/device-reports/speeds/", {"hub_id": hub}).json()["results"]
    assert (row["prompt_tokens"], row["prompt_tokens_source"]) == (424, "published")
    assert row["ttft_derived_s"] == pytest.approx(424 / 300) and row["kv_cache_bytes"] is None
    assert row["fit"] == "fits" and row["memory_need_bytes"] == world.BYTES  # the file alone: a lower bound


def test_what_runs_well_shows_ttft_sustained_and_fit(client, felt):
    page = words(text(client.get(reverse("device-board"), {"device": "Google Pixel 8"})))
    assert re.search(r"llama-q4_k_m\.gguf .*? 1\.23 s derived · 1\.50 s measured −17% fits \(2 MiB of 8 GB\)", page)
    assert "Time to first token at the benchmark's median prompt, in each file's own tokens" in page
    assert "assumed: a phone leaves one app about half its RAM" in page
    row, = [r for r in client.get("/api/v1/device-reports/board/", {"device": "Google Pixel 8"}).json()["results"]
            if r["hub_id"] == world.HUB]
    assert row["ttft_derived_s"] == pytest.approx(431 / 350) and row["fit"] == "fits"
    assert row["tg_sustained_drop"] == pytest.approx(0.17)
