"""Derived figures stay finite and true (issue 38, finding 1): intake refuses speeds no device makes in either
direction (under MIN_TOKENS_PER_S as well as over the ceilings), samples that disagree with the average they come
with, and non-finite numbers, with a code, storing nothing; and no device API, CSV or page answers 500 or shows
"inf" or "nan", whatever is in the database (a row stored before these rules, written here straight into it)."""
import copy
import math
import re
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.devices import phone_figures
from leaderboard.devices.llama_bench import parse_report
from leaderboard.devices.refusals import ReportRefused
from leaderboard.devices.models import DeviceReport, DeviceTest
from leaderboard.submissions.models import ModelEntry
from tests.devices import world
from tests.devices.conftest import URL

pytestmark = pytest.mark.django_db
NOT_FINITE = re.compile(r"(?<![\w.-])-?(inf|nan|infinity)(?![\w-])", re.I)  # as Python, JSON or CSV would print one


def steady(bench, index, rate, n=5):
    """Test `index` of `bench` at `rate` tokens/s: n equal repetitions, so the samples agree with the average."""
    bench[index].update(avg_ts=rate, stddev_ts=0.0, samples_ts=[rate] * n)
    return bench


def edited(index=0, **fields):
    bench = world.captured()
    bench[index].update(fields)
    return bench


# what intake refuses, and the words that say why (each a 400 REPORT_ABSURD_SPEED unless said)
REFUSED = {
    "the issue's prompt speed, 5e-324": (steady(world.captured(), 0, 5e-324), "REPORT_ABSURD_SPEED",
                                         "test 0: avg_ts is 5e-324 tokens/s, under 0.01 tokens/s"),
    "the issue's samples": (edited(1, samples_ts=[5e-324, 1, 1, 1, 1e308]), "REPORT_ABSURD_SPEED",
                            "test 1: samples_ts holds 5e-324 tokens/s, under 0.01 tokens/s"),
    "zero": (steady(world.captured(), 1, 0.0), "REPORT_ABSURD_SPEED", "test 1: avg_ts is 0 tokens/s"),
    "a denormal": (steady(world.captured(), 1, 1e-310), "REPORT_ABSURD_SPEED", "under 0.01 tokens/s"),
    "just under the floor": (steady(world.captured(), 1, 0.0099), "REPORT_ABSURD_SPEED", "under 0.01 tokens/s"),
    "1e308": (steady(world.captured(), 0, 1e308), "REPORT_ABSURD_SPEED", "over 1,000,000 tokens/s for a pp test"),
    "a sample over the ceiling": (edited(1, samples_ts=[5765.8, 5765.8, 1e308]), "REPORT_ABSURD_SPEED",
                                  "test 1: samples_ts holds 1e+308 tokens/s, over 100,000 tokens/s for a tg test"),
    "samples whose mean is not avg_ts": (edited(1, samples_ts=[100.0, 100.0, 100.0]), "REPORT_ABSURD_SPEED",
                                         "test 1: samples_ts average 100.0 tokens/s, but avg_ts is 5,765.8"),
    "samples whose spread is not stddev_ts": (edited(1, stddev_ts=0.0), "REPORT_ABSURD_SPEED",
                                              "test 1: samples_ts spread 6,970.8 tokens/s (standard deviation), but "
                                              "stddev_ts is 0.0"),
    "a spread the samples do not have": (edited(1, avg_ts=50.0, stddev_ts=0.0,
                                                      samples_ts=[1, 1, 1, 1, 246]), "REPORT_ABSURD_SPEED",
                                               "test 1: samples_ts spread 109.6 tokens/s (standard deviation)"),
    "101 repetitions": (steady(world.captured(), 1, 20.0, n=101), "REPORT_OUT_OF_BOUNDS",
                        "test 1: samples_ts has 101 repetitions, over the limit of 100"),
    "65 tests": ([copy.deepcopy(world.captured()[1]) for _ in range(65)], "REPORT_OUT_OF_BOUNDS",
                 "the report has 65 tests, over the limit of 64"),
    "too many repetitions in all": ([steady(world.captured(), 1, 20.0, n=100)[1] for _ in range(11)],
                                    "REPORT_OUT_OF_BOUNDS", "the report's tests hold 1,100 repetitions (samples_ts) "
                                                            "in all, over the limit of 1,000"),
}


def test_the_issues_example_is_refused_and_the_speeds_api_stays_up(files, post, snapshot):
    before = snapshot()
    response = post(world.body(steady(world.captured(), 0, 5e-324)))
    assert (response.status_code, response.json()["code"]) == (400, "REPORT_ABSURD_SPEED"), response.content[:400]
    assert "avg_ts is 5e-324 tokens/s, under 0.01 tokens/s" in response.json()["detail"]
    assert snapshot() == before
    assert APIClient().get(URL + "speeds/").status_code == 200


@pytest.mark.parametrize("case", list(REFUSED))
def test_impossible_speeds_and_inconsistent_samples_are_refused(case):
    """The class, through the parser every intake calls before it stores anything (the API's 400 and the empty
    database are the example's test above)."""
    bench, code, words = REFUSED[case]
    with pytest.raises(ReportRefused) as refused:
        parse_report(bench)
    assert refused.value.code == code, refused.value.problems
    assert any(words in problem for problem in refused.value.problems), refused.value.problems


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity", "NaN", "1e400"])
def test_json_literals_no_number_holds_are_refused(api, literal):
    """Python's json reads Infinity and NaN (and 1e400 as inf); the API's parser is strict, the checks are too."""
    text = world.body()
    raw = __import__("json").dumps(text).replace('"avg_ts": 25063.801275', f'"avg_ts": {literal}', 1)
    assert literal in raw
    response = api.generic("POST", URL, raw, content_type="application/json")
    assert response.status_code == 400 and not DeviceReport.objects.exists(), response.content[:400]


@pytest.mark.parametrize("literal", ["Infinity", "NaN", "1e400"])
def test_the_upload_page_refuses_them_too(client, reporter, literal):
    client.force_login(reporter)
    pasted = __import__("json").dumps(world.captured()).replace("25063.801275", literal, 1)
    response = client.post(reverse("device-report-upload"), {"llama_bench": pasted, **world.DEVICE})
    assert response.status_code == 400 and b"REPORT_MALFORMED" in response.content
    assert not DeviceReport.objects.exists()


def test_each_derived_figure_is_finite_or_none():
    assert phone_figures.ttft_derived(5e-324, 424) is None and phone_figures.ttft_derived(float("nan"), 424) is None
    assert phone_figures.ttft_measured({"424": 5e-324}, 424) is None
    assert phone_figures.sustained([5e-324, 1, 1, 1, 1e308]) is None
    assert phone_figures.sustained([1e-300, 1, 1, 1, 1e300]) is None
    assert phone_figures.finite(float("inf")) is None and phone_figures.finite(2.5) == 2.5
    tests = [SimpleNamespace(n_prompt=424, n_gen=0, avg_ts=1e-320, samples_ts=[]),
             SimpleNamespace(n_prompt=0, n_gen=16, avg_ts=20.0, samples_ts=[1e-300, 1, 1, 1, 1e300])]
    figures = phone_figures.report_figures(tests)
    assert all(v is None or math.isfinite(v) for v in [figures["tg_sustained_drop"],
                                                      *figures["prompt_rates"].values()]), figures


# Rows as an older intake could have stored them: written straight into the database.
EXTREMES = [0.0, 5e-324, 1e-310, 1e308, float("inf"), float("-inf"), float("nan")]


def _old_row(owner, value, **fields):
    report = DeviceReport.objects.create(
        owner=owner, model=ModelEntry.objects.get(hub_id=world.HUB), file_sha256=world.SHA256, file_name=world.NAME,
        matched_by="sha256", device_key=fields.pop("device_key", "google pixel 8"), make="Google",
        device_model=fields.pop("device_model", "Pixel 8"), chip="Tensor G3",
        ram_gb=fields.pop("ram_gb", 8.0), os_version="Android 14", charging=False, model_size=world.MODEL_SIZE,
        build_commit="0c1e570", pp_tokens_per_s=value, pp_sd=value, pp_tokens=424, pp_threads=2,
        tg_tokens_per_s=value, tg_sd=value, tg_tokens=16, tg_threads=2,
        measured_at=datetime(2025, 1, 1, tzinfo=timezone.utc), **fields)
    when = datetime(2025, 1, 1, tzinfo=timezone.utc)
    samples = [v for v in (value, 1.0, 1e308) if math.isfinite(v)]  # JSON holds no inf or NaN
    DeviceTest.objects.bulk_create([
        DeviceTest(report=report, index=0, n_prompt=424, n_gen=0, n_threads=2, avg_ts=value, stddev_ts=value,
                   samples=len(samples), samples_ts=samples, test_time=when),
        DeviceTest(report=report, index=1, n_prompt=0, n_gen=16, n_threads=2, avg_ts=value, stddev_ts=value,
                   samples=5, samples_ts=[5e-324, 1.0, 1.0, 1.0, 1e308], test_time=when)])
    return report


def _routes(report_id):
    """(url, query) of every device API (JSON and CSV), page and the On-device board, each kind of filter once."""
    filters = [{}, {"device": "Google Pixel 8"}]  # a filter narrows the same rows: one of each kind of route is read
    routes = [("/api/v1/device-reports/", [*filters, {"hub_id": world.HUB}]), ("/api/v1/device-reports/speeds/",
              [*filters, {"sha256": world.SHA256}]), ("/api/v1/device-reports/board/", [{}, {"ram_gb": 8}]),
              (f"/api/v1/device-reports/{report_id}/", [{}]), (f"/api/v1/device-reports/{report_id}/samples/", [{}]),
              ("/api/v1/leaderboard/on-device/", [{}])]
    for url, queries in routes:
        for query in queries:
            yield url, query
            yield url, {**query, "format": "csv"}
    for query in filters:
        yield reverse("device-board"), query
    yield reverse("leaderboard-on-device"), {}
    yield reverse("model-detail", args=[world.HUB]), {}


def _body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode()


def test_no_route_answers_500_or_shows_inf_whatever_is_stored(client, files):
    """For each extreme value, two accounts agree on it on a device of its own (the issue's two-account case), its
    derived figures stored extreme too; an honest pair beside them. Every device API, CSV and page reads them all."""
    people = iter(User.objects.create_user(f"old{i}") for i in range(2 * len(EXTREMES) + 2))
    first = None
    for n, value in enumerate(EXTREMES):
        for _ in range(2):
            report = _old_row(next(people), value, device_key=f"phone {n}", device_model=f"Phone {n}",
                              tg_sustained_drop=value, prompt_rates={"424": value if math.isfinite(value) else 5e-324},
                              ram_gb=value if value > 0 else 8.0)
            first = first or report
    for rate in (20.0, 21.0):  # honest speeds; a prompt rate whose TTFT overflows
        _old_row(next(people), rate, prompt_rates={"424": 5e-324})
    for url, params in _routes(first.pk):
        response = client.get(url, params)
        assert response.status_code in (200, 404), (url, params, response.status_code)
        body = _body(response)
        found = NOT_FINITE.search(body)
        assert not found, (url, params, found and body[max(0, found.start() - 200):][:400])
    row, = client.get("/api/v1/device-reports/speeds/").json()["results"]  # the rows intake would refuse left out
    assert (row["device"], row["tg_median"], row["confirmed_by"], row["ttft_measured_s"]) == \
        ("Google Pixel 8", 20.5, 2, None)
