"""The pages of device reports (issue 25): a GGUF file's model page shows its devices' speeds beside the server's cost
profile, labelled as people's own measurements, with counts and spread, never changing the profile; the upload page
(signed in, escaped, refusals with their code, throttled with the API); "what runs well on my phone" with its
filters, linked from the On-device board."""
import csv as csv_module
import json
import re
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from leaderboard.devices.models import DeviceReport
from tests.boards import ondevice_world
from tests.devices import world
from tests.frontend.conftest import text

pytestmark = pytest.mark.django_db
SECTION = re.compile(r'<h2 id="device-reports">.*?(?=<h2>Reproducibility)', re.S)


def words(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def model_page(client, hub=world.HUB):
    return text(client.get(reverse("model-detail", args=[hub])))


def upload(post, tg, bench=None, client=None, **fields):
    response = post(world.body(world.with_speeds(tg, pp=300.0, bench=bench), **fields), client=client)
    assert response.status_code == 201, response.content[:500]
    return response.json()


def device_data(page):
    return json.loads(re.search(r'<script id="device-data" type="application/json">(.*?)</script>', page, re.S)[1])


def test_the_file_page_shows_its_devices_beside_the_server_profile(client, files, post, accounts):
    b, c = accounts(2)
    upload(post, 20.0)
    upload(post, 24.0, client=b)  # a second person agrees within 3x: confirmed
    upload(post, 90.0, client=c)  # over 3x the confirmed figure: left out
    upload(post, 9.5, make="Samsung", model="Galaxy S23", chip="Snapdragon 8 Gen 2", ram_gb=8)  # one person
    page = model_page(client)
    profile = page.index('id="cost-profile"')
    assert profile < page.index('id="device-reports"')  # beside, after the server's proxy
    profile_text = words(page[profile:page.index('id="device-reports"')])
    assert "Generation (tg128) 40.0 ± 0.8 tokens/s" in profile_text  # the server's figure, untouched by the reports
    shown = words(SECTION.search(page).group(0))
    assert "people measuring on their own devices with llama-bench: not measured by this server" in shown
    assert "3 reports from 2 devices, 1 device confirmed; 1 outlier left out until reviewed" in shown
    assert "Google Pixel 8 Tensor G3 8 GB confirmed by 2 people 2 reports (+1 outlier left out) 22.0 20.0–24.0 " \
           "300.0 300.0 pp64 · tg16" in shown
    unconfirmed = shown[shown.index("Not confirmed yet"):]
    assert "Samsung Galaxy S23 Snapdragon 8 Gen 2 8 GB unconfirmed: 1 person 1 report 9.5 300.0" in unconfirmed
    assert "Generation speed on 1 device, fastest first: Google Pixel 8: median 22.0 tokens/s (confirmed by 2 " \
           "people, 20.0–24.0)." in shown
    chart = device_data(page)  # only confirmed figures are drawn
    assert [(d["name"], d["median"], d["values"], d["outliers"], d["n"]) for d in chart["devices"]] == [
        ("Google Pixel 8", 22.0, [24.0, 20.0], [90.0], 2)]
    assert f'href="/device-reports/new/?{urlencode({"hub_id": world.HUB, "sha256": world.SHA256})}"' in page
    assert "frontend/pages/devices.js" in page


def test_without_reports_the_file_says_so_and_a_checkpoint_has_no_section(client, files, make_run):
    shown = words(SECTION.search(model_page(client)).group(0))
    assert "0 reports from 0 devices, 0 devices confirmed for this file" in shown and "No confirmed figure from a " \
        "device yet" in shown
    make_run("org/checkpoint", 300)
    assert 'id="device-reports"' not in model_page(client, "org/checkpoint")


def test_typed_text_is_escaped(client, files, post, accounts):
    other, = accounts(1)
    upload(post, 20.0, model="<script>alert(1)</script>")
    upload(post, 20.0, client=other, model="<script>alert(1)</script>")
    raw = client.get(reverse("model-detail", args=[world.HUB])).content.decode()
    assert "<script>alert(1)</script>" not in raw and "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    assert device_data(raw)["devices"][0]["name"] == "Google <script>alert(1)</script>"  # json_script escapes it


@pytest.fixture
def signed_in(client, reporter):
    client.force_login(reporter)
    return client


def form(**fields):
    data = {"llama_bench": world.CAPTURED_JSON.read_text(), **{k: v for k, v in world.DEVICE.items() if k != "charging"}}
    return {**data, **fields}


def test_the_upload_page_needs_an_account_and_takes_pasted_or_file_output(client, files, reporter):
    url = reverse("device-report-upload")
    assert "needs an account" in text(client.get(url)).lower() or "sign in" in text(client.get(url)).lower()
    client.force_login(reporter)
    page = text(client.get(url, {"hub_id": world.HUB, "sha256": world.SHA256}))
    assert f'value="{world.SHA256}"' in page and f'value="{world.HUB}"' in page  # from the file's page link
    response = client.post(url, form())
    assert response.status_code == 302 and response["Location"] == reverse("model-detail", args=[world.HUB]) \
        + "#device-reports"
    upload_file = SimpleUploadedFile("bench.json", world.CAPTURED_JSON.read_bytes(), "application/json")
    assert client.post(url, form(llama_bench="", llama_bench_file=upload_file, charging="on")).status_code == 302
    assert list(DeviceReport.objects.values_list("owner__username", "charging")) == [("tester", True),
                                                                                   ("tester", False)]


def test_a_refused_upload_shows_its_code_and_stores_nothing(signed_in, files, snapshot):
    before = snapshot()
    response = signed_in.post(reverse("device-report-upload"), form(model="M" * 61))
    assert response.status_code == 400 and "at most 60 characters (it has 61)" in text(response)  # the form's bound
    bench = world.captured()
    bench[0]["cpu_info"] = "C" * 201
    response = signed_in.post(reverse("device-report-upload"), form(llama_bench=json.dumps(bench)))
    assert response.status_code == 400
    shown = words(text(response))
    assert "REPORT_FIELD_TOO_LONG: the device report was refused: test 0: cpu_info is 201 characters" in shown, shown
    response = signed_in.post(reverse("device-report-upload"), form(llama_bench="[{not json"))
    assert "REPORT_MALFORMED" in text(response) and "is not JSON" in text(response)
    assert snapshot() == before


def test_the_page_and_the_api_share_the_accounts_throttle(signed_in, files, post, settings):
    settings.DEVICE_REPORT_THROTTLE_RATE = "2/hour"
    assert post(world.body()).status_code == 201
    assert signed_in.post(reverse("device-report-upload"), form()).status_code == 302
    response = signed_in.post(reverse("device-report-upload"), form())
    assert response.status_code == 429 and "Too many device reports" in text(response) and response["Retry-After"]
    assert DeviceReport.objects.count() == 2


@pytest.fixture
def measured(files, post, reporter, accounts):
    """Reports on the captured file and on the board's Q4_K_M and Q8_0 files (by name and size), from two phones, each
    figure confirmed by two people; and one unconfirmed figure (one person) that ranks nowhere."""
    for quant, size in (("Q4_K_M", 580_000_000), ("Q8_0", 1_050_000_000)):
        world.profiled_size(files[quant], size)
    second, alone = accounts(2)

    def on(quant, tg, client=None, **device):
        bench = world.captured()
        for test in bench:
            test["model_filename"], test["model_size"] = f"tiny-{quant}.gguf", 580_000_000 if quant == "Q4_K_M" \
                else 1_050_000_000
        return upload(post, tg, bench=bench, client=client, **device)

    for who in (None, second):
        upload(post, 30.0, client=who)
        on("Q4_K_M", 25.0, client=who)
        on("Q8_0", 12.0, client=who)
        on("Q4_K_M", 8.0, client=who, make="Samsung", model="Galaxy A15", ram_gb=4)
    on("Q8_0", 40.0, client=alone, make="Samsung", model="Galaxy A15", ram_gb=4)  # unconfirmed: one person
    return files


def board_rows(client, **params):
    page = text(client.get(reverse("device-board"), params))
    return [m for m in re.findall(r'<tr data-hub-id="([^"]+)"', page)], page


def test_what_runs_well_on_my_phone(client, measured):
    rows, page = board_rows(client, device="Google Pixel 8")
    assert rows == [world.HUB, ondevice_world.hub_of("Q4_K_M"), ondevice_world.hub_of("Q8_0")]  # fastest first
    assert "3 files measured on Google Pixel 8" in words(page) and "confirmed by 2 people" in words(page)
    assert "people measuring on their own devices" in page
    right, n = ondevice_world.FILES["Q8_0"][0], 480
    assert f"{100 * right / n:.2f}" in page  # the On-device board's accuracy beside the device's speed
    rows, page = board_rows(client, device="google pixel 8", min_accuracy=59)  # Q8_0: 62.1%, Q4_K_M 58.3%
    assert rows == [world.HUB, ondevice_world.hub_of("Q8_0")]
    rows, page = board_rows(client, ram_gb=4)
    assert rows == [ondevice_world.hub_of("Q4_K_M")] and "devices with 4 GB of RAM" in words(page)
    assert client.get(reverse("device-board"), {"ram_gb": "lots"}).status_code == 404
    board = text(client.get(reverse("leaderboard-on-device")))
    assert reverse("device-board") in board and "What runs well on my phone" in board


def test_the_device_board_api_and_csv(client, measured):
    rows = client.get("/api/v1/device-reports/board/", {"device": "Google Pixel 8"}).json()["results"]
    assert [(r["hub_id"], r["tg_median"], r["reports"], r["confirmed_by"]) for r in rows] == [
        (world.HUB, 30.0, 2, 2), (ondevice_world.hub_of("Q4_K_M"), 25.0, 2, 2), (ondevice_world.hub_of("Q8_0"), 12.0, 2, 2)]
    assert [r["pareto"] for r in rows] == [True, False, True]  # Q4_K_M is slower and less accurate than the first
    csv = b"".join(client.get("/api/v1/device-reports/board/", {"ram_gb": 4, "format": "csv"}).streaming_content)
    assert next(iter(csv_module.reader(csv.decode().splitlines()[1:])))[0] == ondevice_world.hub_of("Q4_K_M")
    bad = client.get("/api/v1/device-reports/board/", {"ram_gb": "lots"})
    assert bad.status_code == 400 and "ram_gb" in bad.json()
    speeds = client.get("/api/v1/device-reports/speeds/", {"device": "SAMSUNG galaxy a15"}).json()["results"]
    assert [(s["hub_id"], s["device"], s["tg_median"], s["confirmed"]) for s in speeds] == [
        (ondevice_world.hub_of("Q4_K_M"), "Samsung Galaxy A15", 8.0, True),
        (ondevice_world.hub_of("Q8_0"), "Samsung Galaxy A15", 40.0, False)]
