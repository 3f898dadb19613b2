"""Trust (issues 25, 31, 38): one vote per account, weighed by what it cost to make; a device's figure is confirmed when
two accounts agree within 3x; a report more than 3x away from the figure other accounts confirmed is an outlier, left out until an admin accepts it; an admin hides a report; both through the admin with a reason, audited. Every
table says how many reports it counts and their spread."""
import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.core.models import AuditRecord
from leaderboard.devices.models import DeviceReport
from tests.devices import world

pytestmark = pytest.mark.django_db
SPEEDS = "/api/v1/device-reports/speeds/"
CHANGELIST = "admin:devices_devicereport_changelist"


@pytest.fixture
def staff(client):
    user = User.objects.create_user("moderator", "m@example.com", "pw", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="devices"))
    client.force_login(user)
    return user


def speeds(**params):
    return APIClient().get(SPEEDS, {"hub_id": world.HUB, **params}).json()["results"]


def upload(post, tg, client=None, **device):
    response = post(world.body(world.with_speeds(tg, pp=300.0), **device), client=client)
    assert response.status_code == 201, response.content[:500]
    return response.json()


def act(client, action, report_id, reason=None):
    data = {"action": action, "_selected_action": [report_id]}
    if reason is not None:
        data.update(apply="1", reason=reason)
    return client.post(reverse(CHANGELIST), data)


def test_an_outlier_is_judged_against_what_others_confirmed_and_left_out_until_an_admin_accepts_it(
        files, post, client, staff, accounts):
    b, c, d, e, f = accounts(5)
    assert upload(post, 20.0)["status"] == "counted"
    assert upload(post, 22.0, b)["status"] == "counted"  # two people agree within 3x: confirmed, median 21
    assert upload(post, 24.0, c)["status"] == "counted"
    assert upload(post, 7.0, d, make="google", model=" pixel  8")["status"] == "outlier"  # the same device, under 1/3
    fast = upload(post, 73.0, e)  # over 3x the confirmed figure (22)
    assert fast["status"] == "outlier"
    assert upload(post, 60.0, f)["status"] == "counted"  # within 3x
    assert upload(post, 5.0, model="Pixel 6a")["status"] == "counted"  # another device: nothing confirmed there
    rows = speeds()
    pixel8 = next(r for r in rows if r["device"] == "Google Pixel 8")
    assert (pixel8["reports"], pixel8["outliers"], pixel8["confirmed"], pixel8["confirmed_by"]) == (4, 2, True, 4)
    assert (pixel8["tg_median"], pixel8["tg_min"], pixel8["tg_max"]) == (23.0, 20.0, 60.0)
    pixel6a = next(r for r in rows if r["device"] == "Google Pixel 6a")
    assert (pixel6a["confirmed"], pixel6a["confirmed_by"], pixel6a["people"], pixel6a["tg_median"]) == (False, 0, 1, 5.0)

    assert act(client, "accept_device_report", fast["id"]).status_code == 200  # asks why first
    assert DeviceReport.objects.get(pk=fast["id"]).status == "outlier"
    assert act(client, "accept_device_report", fast["id"], reason="a newer chip revision").status_code == 302
    pixel8 = next(r for r in speeds() if r["device"] == "Google Pixel 8")
    # accepted, it is a vote again: 73 is within 3x of 24, 60 (and 22, 24 of 60): the largest agreeing group grows
    assert (pixel8["reports"], pixel8["outliers"], pixel8["people"]) == (5, 1, 5)
    record = AuditRecord.objects.get(action="accept_device_report")
    assert (record.actor, record.reason, record.target_id) == (staff, "a newer chip revision", str(fast["id"]))


def test_an_admin_hides_a_report_everywhere_with_an_audit_record(files, post, client, staff, accounts):
    other, = accounts(1)
    kept, hidden = upload(post, 20.0), upload(post, 21.0, other)
    assert act(client, "hide_device_report", hidden["id"], reason="measured while thermally throttled").status_code \
        == 302
    listed = APIClient().get("/api/v1/device-reports/").json()["results"]
    assert [r["id"] for r in listed] == [kept["id"]]
    assert speeds()[0]["reports"] == 1 and speeds()[0]["tg_median"] == 20.0
    record = AuditRecord.objects.get(action="hide_device_report")
    assert (record.actor, record.target_id, record.details["file_sha256"]) == (staff, str(hidden["id"]), world.SHA256)
    page = client.get(reverse("model-detail", args=[world.HUB])).content.decode()
    assert "1 report" in page and "21.0" not in page and "unconfirmed: 1 person" in page


def test_reports_cannot_be_added_or_edited_in_the_admin(client, staff, files, post):
    report = upload(post, 20.0)
    assert client.get(reverse("admin:devices_devicereport_add")).status_code == 403
    change = client.post(reverse("admin:devices_devicereport_change", args=[report["id"]]), {"make": "Apple"})
    assert DeviceReport.objects.get(pk=report["id"]).make == "Google" and change.status_code in (200, 403)
