"""Bounded cost per request (issue 38, finding 3): no device page or list reads the tests' repetitions (samples_ts);
what they need of them is derived at intake and stored on the report, and the repetitions are served by one report's
samples endpoint, paginated. A page's and a list's queries are the same with 2 reports and with 16 big ones, no SQL but
the samples endpoint's names samples_ts, and the device pages and APIs are cached per results generation: a repeat
costs no query, and an intake, a hide or an accept shows at once."""
import importlib
from datetime import datetime, timezone

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.core.cache_generation import generation, results_changed
from leaderboard.devices import services
from leaderboard.devices.models import DeviceReport, DeviceTest, ReportStatus
from leaderboard.submissions.models import ModelEntry
from tests.devices import world
from tests.devices.conftest import URL
from tests.devices.test_felt_figures import DECLINING, bench

pytestmark = pytest.mark.django_db
WHEN = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _big_report(owner, tg, *, tests=16, samples=1000):
    """A report as an older intake could store it: `tests` tests of `samples` repetitions each (the issue's reports
    had 64 x 1,000), with the figures intake derives stored on it."""
    report = DeviceReport.objects.create(
        owner=owner, model=ModelEntry.objects.get(hub_id=world.HUB), file_sha256=world.SHA256, file_name=world.NAME,
        matched_by="sha256", device_key="google pixel 8", make="Google", device_model="Pixel 8", chip="Tensor G3",
        ram_gb=8.0, os_version="Android 14", charging=False, model_size=world.MODEL_SIZE, build_commit="0c1e570",
        pp_tokens_per_s=300.0, pp_sd=1.0, pp_tokens=424, pp_threads=2, tg_tokens_per_s=tg, tg_sd=0.5, tg_tokens=16,
        tg_threads=2, measured_at=WHEN, prompt_rates={"424": 300.0}, tg_sustained_drop=0.1)
    DeviceTest.objects.bulk_create(
        DeviceTest(report=report, index=i, n_prompt=0 if i % 2 else 424, n_gen=16 if i % 2 else 0, n_threads=2,
                   avg_ts=tg if i % 2 else 300.0, stddev_ts=0.5, samples=samples,
                   samples_ts=[tg if i % 2 else 300.0] * samples, test_time=WHEN) for i in range(tests))
    return report


def _reports(n, **sizes):
    people = [User.objects.create_user(f"big{DeviceReport.objects.count()}-{i}") for i in range(n)]
    return [_big_report(person, 20.0 + i % 3, **sizes) for i, person in enumerate(people)]


READS = {  # every page and list that shows device reports or their figures (URL, query)
    "reports": (URL, {"limit": 500}), "reports csv": (URL, {"format": "csv"}),
    "speeds": (URL + "speeds/", {}), "speeds csv": (URL + "speeds/", {"format": "csv"}),
    "board": (URL + "board/", {}), "board csv": (URL + "board/", {"format": "csv"}),
    "file page": (reverse("model-detail", args=[world.HUB]), {}),
    "what runs well": (reverse("device-board"), {}), "what runs well, one device": (reverse("device-board"),
                                                                                    {"device": "Google Pixel 8"}),
}


def _read(client, url, query):
    response = client.get(url, query)
    assert response.status_code == 200, (url, response.status_code)
    if response.streaming:
        b"".join(response.streaming_content)
    return response


def _queries(client) -> dict:
    """name -> the SQL each read ran, uncached (a new results generation first)."""
    out = {}
    for name, (url, query) in READS.items():
        results_changed()
        connection.queries_log.clear()  # a full log (9,000 queries) would make every capture look empty
        with CaptureQueriesContext(connection) as captured:
            _read(client, url, query)
        out[name] = [q["sql"] for q in captured.captured_queries]
    assert all(out.values()), out  # each read was uncached
    return out


def test_pages_and_lists_cost_the_same_with_2_and_16_big_reports_and_never_read_samples(client, files):
    _reports(2)  # two people agree: the figure is confirmed, and every page shows it
    _queries(client)  # the board's own figures (not the devices') are computed once, then kept
    two = _queries(client)
    _reports(14)
    sixteen = _queries(client)
    assert {name: len(sql) for name, sql in sixteen.items()} == {name: len(sql) for name, sql in two.items()}
    assert not [(name, q[:200]) for name, sql in sixteen.items() for q in sql if "samples_ts" in q]
    rows = client.get(URL, {"limit": 500}).json()["results"]
    assert len(rows) == 16 and all("samples_ts" not in t for r in rows for t in r["tests"])
    assert rows[0]["samples_url"] == f"/api/v1/device-reports/{rows[0]['id']}/samples/"


def test_the_samples_endpoint_serves_one_reports_repetitions_paginated(client, files):
    report = _big_report(User.objects.create_user("one"), 20.0, tests=2, samples=3)
    with CaptureQueriesContext(connection) as captured:
        page = client.get(f"{URL}{report.pk}/samples/", {"limit": 4}).json()
    assert any("samples_ts" in q["sql"] for q in captured.captured_queries)  # the check above would see a read
    assert page["count"] == 6 and page["next"] and [(r["test"], r["kind"], r["repetition"], r["tokens_per_s"])
                                                    for r in page["results"]] == [
        (0, "pp", 1, 300.0), (0, "pp", 2, 300.0), (0, "pp", 3, 300.0), (1, "tg", 1, 20.0)]
    assert client.get(page["next"]).json()["results"][-1] == {"test": 1, "kind": "tg", "n_prompt": 0, "n_gen": 16,
                                                              "n_threads": 2, "repetition": 3, "tokens_per_s": 20.0}
    detail = client.get(f"{URL}{report.pk}/").json()
    assert detail["id"] == report.pk and detail["generation"]["tokens_per_s"] == 20.0 and len(detail["tests"]) == 2
    DeviceReport.objects.filter(pk=report.pk).update(hidden=True)
    results_changed()
    assert client.get(f"{URL}{report.pk}/").status_code == 404
    assert client.get(f"{URL}{report.pk}/samples/").status_code == 404
    assert client.get(f"{URL}{report.pk + 1000}/samples/").status_code == 404


def test_intake_stores_what_pages_need_of_the_tests(files, api):
    data = bench(20.0, 300.0, samples=DECLINING, prompt_test=(431, 287.4))
    response = api.post(URL, world.body(data), format="json")
    assert response.status_code == 201, response.content[:400]
    report = DeviceReport.objects.get()
    assert report.prompt_rates == {"64": 300.0, "431": 287.4}
    assert report.tg_sustained_drop == pytest.approx(1 - DECLINING[-1] / DECLINING[0])
    assert response.json()["tests"][1]["samples_ts"] == DECLINING  # the uploader sees what was kept


def test_the_migration_derives_them_for_reports_stored_before(files):
    report = _big_report(User.objects.create_user("old"), 20.0, tests=2, samples=10)
    DeviceTest.objects.filter(report=report, index=1).update(samples_ts=DECLINING)
    DeviceReport.objects.filter(pk=report.pk).update(prompt_rates={}, tg_sustained_drop=None)  # as before it
    migration = importlib.import_module("leaderboard.devices.migrations.0004_report_derived_figures_sample_caps")
    with connection.schema_editor() as editor:
        migration.forwards(django_apps, editor)
    report.refresh_from_db()
    assert report.prompt_rates == {"424": 300.0}
    assert report.tg_sustained_drop == pytest.approx(1 - DECLINING[-1] / DECLINING[0])


def test_device_reads_are_cached_per_generation_and_a_write_shows_at_once(client, files, post, accounts):
    admin = User.objects.create_superuser("admin", "admin@example.com", "pw")
    other, third = accounts(2)
    for who, tg in ((None, 20.0), (other, 22.0)):
        assert post(world.body(world.with_speeds(tg)), client=who).status_code == 201
    for name, (url, query) in READS.items():  # a repeat reads no device report: an API reads nothing at all
        _read(client, url, query)
        connection.queries_log.clear()
        with CaptureQueriesContext(connection) as captured:
            _read(client, url, query)
        again = [q["sql"] for q in captured.captured_queries]
        assert not (again if url.startswith("/api/") else [q for q in again if "devices_" in q]), (name, again)

    def listed():
        return len(APIClient().get(URL).json()["results"])

    def moves(write) -> bool:
        before = generation()["token"]
        write()
        return generation()["token"] != before

    assert listed() == 2
    report = {}
    assert moves(lambda: report.update(post(world.body(world.with_speeds(21.0)), client=third).json())) and \
        listed() == 3  # intake
    stored = DeviceReport.objects.get(pk=report["id"])
    assert moves(lambda: services.report_hide(stored, actor=admin, reason="a typo")) and listed() == 2  # hide
    DeviceReport.objects.filter(pk=stored.pk).update(status=ReportStatus.OUTLIER)
    stored.refresh_from_db()
    assert moves(lambda: services.report_accept(stored, actor=admin, reason="a fast phone"))  # accept
