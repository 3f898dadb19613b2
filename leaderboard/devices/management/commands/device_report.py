from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from leaderboard.core.cli import refusal_of, refused
from leaderboard.core.errors import DomainError
from leaderboard.devices import services
from leaderboard.devices.device_fields import device_key
from leaderboard.devices.llama_bench import loads
from leaderboard.devices.models import DeviceReport


class Command(BaseCommand):
    help = ("Load a device speed report: llama-bench's JSON (-o json) of a GGUF file on the board, with the device it "
            "ran on, owned by --user. The same intake as POST /api/v1/device-reports/: checked, matched to one board "
            "file (by --sha256, else by file name and llama-bench's model_size), stored whole or not at all.")

    def add_arguments(self, parser):
        parser.add_argument("json_file", help="the file llama-bench -o json wrote")
        parser.add_argument("--user", required=True, help="the account that owns the report")
        parser.add_argument("--create-user", action="store_true",
                            help="create --user (without a usable password) if it does not exist: the demo's")
        parser.add_argument("--make", required=True, help="the device's make, e.g. Google")
        parser.add_argument("--model", required=True, help="the device's model, e.g. Pixel 8")
        parser.add_argument("--chip", required=True, help="e.g. Tensor G3")
        parser.add_argument("--ram-gb", required=True, type=float, help="the device's RAM, GB")
        parser.add_argument("--os-version", required=True, help="e.g. Android 14")
        parser.add_argument("--charging", action="store_true", help="it was plugged in while measuring")
        parser.add_argument("--sha256", default="", help="the file's sha256 (sha256sum FILE.gguf)")
        parser.add_argument("--hub-id", default="", help="the model's id on the board, when the file is on it twice")
        parser.add_argument("--skip-if-reported", action="store_true",
                            help="do nothing when --user already reported the file of --sha256 on this device")

    def handle(self, *args, **o):
        users = get_user_model().objects
        user = users.filter(username=o["user"]).first()
        if user is None and o["create_user"]:
            user = users.create_user(o["user"])
        if user is None:
            raise refused("NO_USER", f"no account {o['user']!r}.", "name an existing account, or add --create-user")
        path = Path(o["json_file"])
        if not path.is_file():
            raise refused("NO_FILE", f"{path} is not a file.", "give the file llama-bench -o json wrote")
        if path.stat().st_size > settings.DEVICE_REPORT_MAX_BYTES:
            raise refused("REPORT_TOO_LARGE", f"{path} is {path.stat().st_size:,} bytes, over the limit of "
                          f"{settings.DEVICE_REPORT_MAX_BYTES:,}", "a report is one llama-bench run of one file")
        device = {"make": o["make"], "model": o["model"], "chip": o["chip"], "ram_gb": o["ram_gb"],
                  "os_version": o["os_version"], "charging": o["charging"]}
        if o["skip_if_reported"] and o["sha256"] and DeviceReport.objects.filter(
                owner=user, file_sha256=o["sha256"].lower(), device_key=device_key(o["make"], o["model"])).exists():
            self.stdout.write(f"{user} already reported this file on {o['make']} {o['model']}: skipped")
            return
        try:
            report = services.report_create(user=user, llama_bench=loads(path.read_bytes()), device=device,
                                            sha256=o["sha256"], hub_id=o["hub_id"])
        except DomainError as exc:
            raise refusal_of(exc) from exc
        self.stdout.write(f"device report {report.pk}: {report.file_name} matched to {report.model.hub_id} (by "
                          f"{report.get_matched_by_display()}), {report.device_name}, {report.get_status_display()}")
