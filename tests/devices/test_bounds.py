"""Every value the device intake accepts fits its column on PostgreSQL and reads back (issue 31, findings 2, 7 and 9):
times outside 2023..tomorrow (UTC), a file name longer than its column once cut to its last part, a device key longer
than its column once NFKC-folded and casefolded, a formula lead that appears once the path is cut, NUL. Each intake
(API, upload page, manage.py device_report) answers with a code and stores nothing; and a report already stored at an
extreme time that PostgreSQL and Python can both hold leaves every device page, API and admin list answering 200."""
import importlib
import json
from datetime import datetime, timezone

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.devices.models import DeviceReport, DeviceTest
from tests.devices import world
from tests.devices.conftest import URL
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db
ISSUE_TIMES = ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"]  # before year 1 / after 9999 in UTC
EDGE_TIMES = [*ISSUE_TIMES, "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2022-12-31T23:59:59Z",
              "2100-01-01T00:00:00Z", "1969-12-31T23:59:59-00:00"]


def timed(when: str) -> list:
    bench = world.captured()
    bench[1]["test_time"] = when
    return bench


@pytest.mark.parametrize("when", EDGE_TIMES)
def test_a_test_time_outside_2023_to_tomorrow_is_refused_and_nothing_stored(files, post, snapshot, when):
    before = snapshot()
    response = post(world.body(timed(when)))
    body = response.json()
    assert (response.status_code, body["code"]) == (400, "REPORT_OUT_OF_BOUNDS"), body
    assert f"test 1: test_time {when} is outside 2023-01-01.." in body["detail"], body["detail"]
    assert snapshot() == before
    assert APIClient().get(URL).status_code == 200 and APIClient().get(URL + "speeds/").status_code == 200


def _path_of(name: str) -> list:
    bench = world.captured()
    for test in bench:
        test["model_filename"] = name
    return bench


# (body, code, words): values that pass each field's own check and overflow or misread once transformed
TRANSFORMED = {
    "a file name of 250 characters": (world.body(_path_of("/sdcard/" + "m" * 245 + ".gguf")), "REPORT_FIELD_TOO_LONG",
                                      "model_filename's file name (its last part) is 250 characters, over the limit "
                                      "of 200"),
    "a device key past its column after casefold": (world.body(make="ﬃ" * 40, model="Phone"), "REPORT_FIELD_TOO_LONG",
                                                    "device make and model, folded (NFKC, then casefold: 'ﬃ' becomes "
                                                    "'ffi') is 126 characters, over the limit of 110"),
    "a formula once the path is cut": (world.body(_path_of("C:\\models\\=2+5")), "REPORT_MALFORMED",
                                       "model_filename's file name '=2+5' starts with '='"),
    "a formula after an Android path": (world.body(_path_of("/sdcard/@SUM(A1).gguf")), "REPORT_MALFORMED",
                                        "starts with '@'"),
    "a NUL in the device": (world.body(make="Goo\x00gle"), "REPORT_MALFORMED", "device make contains control"),
    "a bidi override in the device": (world.body(model="Pixel \u202e8 orP"), "REPORT_MALFORMED",
                                      "device model contains control characters"),
    "a NUL in the file name": (world.body(_path_of("llama\x00-q4_k_m.gguf")), "REPORT_MALFORMED",
                               "model_filename contains control characters"),
}


@pytest.mark.parametrize("case", list(TRANSFORMED))
def test_values_that_overflow_once_transformed_are_refused_and_nothing_stored(files, post, snapshot, case):
    data, code, words = TRANSFORMED[case]
    before = snapshot()
    response = post(data)
    body = response.json()
    assert (response.status_code, body["code"]) == (400, code), body
    assert words in body["detail"], body["detail"]
    assert snapshot() == before


def test_every_parsers_limit_fits_its_column():
    from leaderboard.devices import device_fields, llama_bench

    column = {"make": "make", "model": "device_model", "chip": "chip", "os_version": "os_version"}
    for name, limit in device_fields.TEXT_LIMITS.items():
        assert limit <= DeviceReport._meta.get_field(column[name]).max_length, name
    for name, limit in llama_bench.TEXT_LIMITS.items():
        if name != "model_filename":  # a path: its last part is checked against file_name's column
            assert limit <= DeviceReport._meta.get_field(name).max_length, name


def test_the_upload_page_and_the_command_refuse_the_issues_times(client, files, reporter, snapshot, tmp_path):
    client.force_login(reporter)
    before = snapshot()
    for when in ISSUE_TIMES:
        data = {"llama_bench": json.dumps(timed(when)), **{k: v for k, v in world.DEVICE.items() if k != "charging"}}
        response = client.post(reverse("device-report-upload"), data)
        assert response.status_code == 400 and "REPORT_OUT_OF_BOUNDS" in response.content.decode()
        path = tmp_path / "bench.json"
        path.write_text(json.dumps(timed(when)), encoding="utf-8")
        with pytest.raises(CommandError) as refused:
            call_command("device_report", str(path), "--user", "tester", "--make", "Google", "--model", "Pixel 8",
                         "--chip", "Tensor G3", "--ram-gb", "8", "--os-version", "Android 14")
        assert refusal_of(refused.value).code == "REPORT_OUT_OF_BOUNDS"
    assert snapshot() == before


def test_a_report_stored_at_extreme_readable_times_leaves_every_page_answering(client, files, post, accounts):
    """Year 1 and year 9999 in UTC: PostgreSQL and Python both hold them (an older intake could store them)."""
    other, = accounts(1)
    for who in (None, other):
        assert post(world.body(), client=who).status_code == 201
    first = datetime(1, 1, 1, tzinfo=timezone.utc)
    last = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
    DeviceReport.objects.update(measured_at=first)
    DeviceTest.objects.update(test_time=last)
    report = DeviceReport.objects.first()
    staff = User.objects.create_superuser("admin", "a@example.com", "pw")
    client.force_login(staff)
    for url in (URL, URL + "?format=csv", URL + "speeds/", URL + "speeds/?format=csv", URL + "board/",
                URL + "board/?format=csv", reverse("device-board"), reverse("model-detail", args=[world.HUB]),
                reverse("admin:devices_devicereport_changelist"),
                reverse("admin:devices_devicereport_change", args=[report.pk])):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    listed = APIClient().get(URL).json()["results"]
    assert listed[0]["measured_at"].startswith("0001-01-01") and listed[0]["tests"][0]["test_time"].startswith("9999")
    hide = client.post(reverse("admin:devices_devicereport_changelist"),
                       {"action": "hide_device_report", "_selected_action": [report.pk], "apply": "1",
                        "reason": "a clock far off"})
    assert hide.status_code == 302 and DeviceReport.objects.get(pk=report.pk).hidden


def test_the_migration_removes_reports_no_one_can_read_back(files, post):
    kept = post(world.body()).json()["id"]
    broken = post(world.body()).json()["id"]
    with connection.cursor() as cursor:  # what the old intake stored for 0001-01-01T00:00:00+01:00
        cursor.execute("UPDATE devices_devicetest SET test_time = '0001-01-01 00:00:00+01' WHERE report_id = %s",
                       [broken])
    migration = importlib.import_module("leaderboard.devices.migrations.0002_device_key_nfkc_unreadable_times")
    with connection.schema_editor() as editor:
        migration.forwards(django_apps, editor)
    assert list(DeviceReport.objects.values_list("pk", flat=True)) == [kept]
    assert APIClient().get(URL).status_code == 200
