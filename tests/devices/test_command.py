"""manage.py device_report: the API's intake from a file (the demo loads the pinned llama-bench's report with it)."""
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from leaderboard.devices.models import DeviceReport
from tests.devices import world
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db
DEVICE = ["--make", "Demo server", "--model", "this machine's CPU, not a phone", "--chip", "Intel(R) Xeon(R) Processor",
          "--ram-gb", "16", "--os-version", "Linux 6.1", "--charging"]


def test_it_loads_the_real_output_for_a_new_account_once(files, capsys):
    args = [str(world.CAPTURED_JSON), "--user", "demo", "--create-user", "--sha256", world.SHA256, *DEVICE]
    call_command("device_report", *args, "--skip-if-reported")
    assert f"matched to {world.HUB} (by the file's sha256), Demo server this machine's CPU, not a phone, counted" in \
        capsys.readouterr().out
    report = DeviceReport.objects.get()
    assert (report.owner.username, report.charging, report.ram_gb, report.build_commit) == ("demo", True, 16.0,
                                                                                          "0c1e570")
    assert not User.objects.get(username="demo").has_usable_password()
    call_command("device_report", *args, "--skip-if-reported")
    assert "already reported" in capsys.readouterr().out and DeviceReport.objects.count() == 1


def test_its_refusals_carry_the_apis_codes_and_store_nothing(files, tmp_path, snapshot):
    User.objects.create_user("demo")
    before = snapshot()
    with pytest.raises(CommandError) as refused:
        call_command("device_report", str(world.CAPTURED_JSON), "--user", "demo", "--sha256", "0" * 64, *DEVICE)
    assert refusal_of(refused.value).code == "NO_MATCHING_FILE" and "NO_MATCHING_FILE" in str(refused.value)
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    with pytest.raises(CommandError) as refused:
        call_command("device_report", str(broken), "--user", "demo", *DEVICE)
    assert refusal_of(refused.value).code == "REPORT_MALFORMED"
    with pytest.raises(CommandError, match="NO_USER"):
        call_command("device_report", str(world.CAPTURED_JSON), "--user", "nobody", *DEVICE)
    assert snapshot() == before
