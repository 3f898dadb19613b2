"""Device speeds that a few accounts cannot move (issue 31, finding 3): one vote per account, figures confirmed by two
people, outliers judged against what others confirmed, the physical limit of a phone's memory, and throttles per
account, per client address and on new device names."""
import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from leaderboard.devices.models import DeviceReport
from tests.devices import world
from tests.devices.conftest import URL

pytestmark = pytest.mark.django_db
BOARD = URL + "board/"


def send(post, tg, client=None, **device):
    response = post(world.body(world.with_speeds(tg, pp=30_000.0), **device), client=client)
    assert response.status_code == 201, response.content[:500]
    return response.json()


def board_row():
    rows = APIClient().get(BOARD).json()["results"]
    return next((r for r in rows if r["hub_id"] == world.HUB), None)


def speeds(**params):
    return APIClient().get(URL + "speeds/", {"hub_id": world.HUB, **params}).json()["results"]


def test_ten_reports_under_invented_names_from_three_accounts_do_not_move_the_board(files, post, accounts, settings):
    """The issue's attack: 90,000 tokens/s under "Acme Phone 0..9" from 3 accounts moved the board from 5,766."""
    settings.DEVICE_REPORT_NEW_DEVICES_PER_DAY = 10  # the trust rule alone, without the daily cap
    honest, = accounts(1)
    send(post, 5_700.0)
    send(post, 5_832.0, honest)
    assert board_row()["tg_median"] == 5_766.0
    puppets = accounts(3)
    for i in range(10):
        send(post, 90_000.0, puppets[i % 3], make="Acme", model=f"Phone {i}")
    row = board_row()
    assert (row["tg_median"], row["devices"], row["confirmed_by"], row["unconfirmed_devices"]) == (5_766.0, 1, 2, 10)
    acme = [r for r in speeds() if r["device"].startswith("Acme")]
    assert len(acme) == 10 and not any(r["confirmed"] for r in acme)
    assert "Acme" not in APIClient().get("/leaderboard/on-device/devices/").content.decode()  # no choice either


def test_one_accounts_reports_are_one_vote(files, post, accounts):
    """Ten reports from one account weigh what one does: alone, they confirm nothing and rank nowhere."""
    for _ in range(10):
        send(post, 90_000.0)
    send(post, 5_766.0, accounts(1)[0])
    row, = speeds()
    assert (row["reports"], row["people"], row["confirmed"], row["tg_median"]) == (11, 2, False, 47_883.0)
    assert board_row() is None


def test_a_walk_up_by_one_account_does_not_make_an_honest_report_an_outlier(files, post, accounts):
    """The issue's walk: each report within 3x of the running median; an honest 11 tokens/s then came back an
    outlier with the median at 43.5."""
    honest, attacker, second = accounts(3)
    xperia = {"make": "Sony", "model": "Xperia 1"}
    send(post, 11.0, honest, **xperia)
    for tg in (30.0, 80.0, 200.0, 500.0):
        send(post, tg, attacker, **xperia)
    assert send(post, 11.0, second, **xperia)["status"] == "counted"
    row, = speeds()
    assert (row["confirmed"], row["confirmed_by"], row["tg_median"]) == (True, 2, 11.0)


def test_a_few_accounts_cannot_walk_a_confirmed_figure(files, post, accounts):
    honest, second, third, a1, a2 = accounts(5)
    send(post, 11.0, honest)
    send(post, 12.0, second)  # confirmed: 11.5
    assert send(post, 30.0, a1)["status"] == "counted"  # within 3x
    assert send(post, 30.0, a2)["status"] == "counted"
    assert send(post, 80.0, a1)["status"] == "outlier"  # judged against what the others confirmed, not its own
    assert send(post, 80.0, a2)["status"] == "outlier"
    assert send(post, 11.0, third)["status"] == "counted"
    row, = speeds()
    # Each attacker's vote (the median of 30 and 80) is out of the band, with both its reports; two people outside
    # weighing more than half the three honest ones: disputed, the honest figure shown, never ranked.
    assert row["tg_median"] <= 12.0 and row["outliers"] == 4 and row["disputed"] and not row["confirmed"]


def _board_file(files, tg):
    """A report of the board's Q4_K_M file: 580 MB of tensors."""
    world.profiled_size(files["Q4_K_M"], 580_000_000)
    bench = world.captured()
    for test in bench:
        test["model_filename"], test["model_size"] = "tiny-Q4_K_M.gguf", 580_000_000
    return world.with_speeds(tg, pp=300.0, bench=bench)


def test_a_generation_speed_a_phones_memory_cannot_move_is_refused(files, post, snapshot):
    fast = _board_file(files, 300.0)
    before = snapshot()
    refused = post(world.body(fast, os_version="Android 14")).json()  # 174 GB/s
    assert refused["code"] == "REPORT_ABSURD_SPEED" and "174 GB/s, more than a phone or tablet's memory moves " \
        "(150 GB/s)" in refused["detail"], refused
    assert snapshot() == before
    assert post(world.body(_board_file(files, 100.0), os_version="Android 14")).status_code == 201  # 58 GB/s
    assert post(world.body(_board_file(files, 300.0), os_version="Linux 6.1", model="Workstation")).status_code == 201


def test_uploads_are_throttled_per_client_address_across_accounts(files, post, accounts, settings):
    settings.DEVICE_REPORT_CLIENT_THROTTLE_RATE = "2/hour"
    first, second, third = accounts(3)
    assert post(world.body(), client=first).status_code == 201
    assert post(world.body(), client=second).status_code == 201
    refused = post(world.body(), client=third)
    assert refused.status_code == 429 and refused.json()["code"] == "THROTTLED"
    assert "each client address 2/hour" in refused.json()["hint"]
    elsewhere = APIClient(REMOTE_ADDR="198.51.100.7")
    elsewhere.force_authenticate(User.objects.get(username="person2"))
    assert post(world.body(), client=elsewhere).status_code == 201
    assert DeviceReport.objects.count() == 3


def test_new_device_names_are_capped_per_account_a_day(files, post, snapshot, settings):
    settings.DEVICE_REPORT_NEW_DEVICES_PER_DAY = 2
    assert post(world.body(model="Pixel 8")).status_code == 201
    assert post(world.body(model="Pixel 9")).status_code == 201
    before = snapshot()
    refused = post(world.body(model="Pixel 10"))
    assert refused.status_code == 429 and refused.json()["code"] == "REPORT_NEW_DEVICE_QUOTA"
    assert "2 device names new to it in the last 24 hours, the limit is 2" in refused.json()["detail"]
    assert snapshot() == before
    assert post(world.body(model="pixel  8")).status_code == 201  # a device it named before
