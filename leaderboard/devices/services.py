"""Writes of device reports: intake (checked completely, every value against its column as stored, matched to one
board file, stored in one transaction: a refused report stores nothing), every report of the file on that device
judged again with it (judging.py, consensus.py), the physical limit of the device class (bandwidth.py), an account's
daily new device names, and an admin's hide and accept (audited).

The API, the upload page and `manage.py device_report` all call ``report_create``."""
import re
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from leaderboard.core.audit import audit_record
from leaderboard.core.cache_generation import results_changed
from leaderboard.core.errors import DomainError
from leaderboard.submissions.models import ModelEntry

from . import bandwidth, board_files, columns, judging, phone_figures
from .device_fields import Device, parse_device
from .llama_bench import BenchReport, parse_report
from .models import DeviceReport, DeviceTest, MatchedBy, ReportStatus
from .refusals import ABSURD_SPEED, MALFORMED, NEW_DEVICE_QUOTA, ReportRefused, clean_text, raise_first

SHA256 = re.compile(r"[0-9a-fA-F]{64}")
HUB_ID_LIMIT = 300
NO_MATCH, AMBIGUOUS, MISMATCH = "NO_MATCHING_FILE", "AMBIGUOUS_FILE", "FILE_MISMATCH"


def request_too_large(content_length) -> DomainError | None:
    """A request body over DEVICE_REPORT_MAX_BYTES, refused from its Content-Length before it is read."""
    try:
        length = int(content_length or 0)
    except (TypeError, ValueError):
        return None
    limit = settings.DEVICE_REPORT_MAX_BYTES
    if length <= limit:
        return None
    return DomainError("REPORT_TOO_LARGE", f"the request is {length:,} bytes, over the limit of {limit:,} bytes for "
                       "a device report", "a report is one llama-bench run of one file (about 2 KB a test); nothing "
                       "was stored", 413, max_bytes=limit)


def _sha256(value, problems: dict) -> str:
    if value in (None, ""):
        return ""
    if not isinstance(value, str) or not SHA256.fullmatch(value.strip()):
        problems.setdefault(MALFORMED, []).append(f"sha256 must be the file's 64 hexadecimal digits (sha256sum "
                                                  f"FILE.gguf), not {str(value)[:80]!r}")
        return ""
    return value.strip().lower()


def _file_names(files) -> str:
    return "; ".join(f"{f.hub_id} (sha256 {f.sha256[:12]}…)" for f in files[:5])


def _no_match(bench: BenchReport, sha256: str, hub_id: str, named) -> DomainError:
    where = f" of {hub_id}" if hub_id else ""
    if sha256:
        what = f"no GGUF file{where} on the board has sha256 {sha256}"
    elif named:  # the name is on the board, its tensors' size is not (or unknown)
        sizes = ", ".join(f"{f.model_size:,}" if f.model_size else "not known yet" for f in named[:5])
        what = (f"{bench.file_name} is on the board{where}, but its model_size there is {sizes}, not the report's "
                f"{bench.model_size:,} bytes")
    else:
        what = f"no GGUF file{where} on the board is called {bench.file_name}"
    return DomainError(NO_MATCH, f"the device report matches no file on the board: {what}",
                       "measure a file the board lists (the On-device board), unrenamed, or give its sha256 (sha256sum "
                       "FILE.gguf); nothing was stored", 400, file_name=bench.file_name, model_size=bench.model_size)


def match_file(bench: BenchReport, *, sha256: str = "", hub_id: str = "") -> tuple[board_files.BoardFile, str]:
    """The one board file the report names, and how it was matched; NO_MATCHING_FILE, AMBIGUOUS_FILE or FILE_MISMATCH
    otherwise. By sha256 when given (the report's model_size must then be the file's, where known), else by file name
    and exact model_size."""
    if sha256:
        files, how = board_files.files_with_sha256(sha256, hub_id=hub_id), MatchedBy.SHA256
        named = []
    else:
        named = board_files.files_named(bench.file_name, hub_id=hub_id)
        files, how = [f for f in named if f.model_size == bench.model_size], MatchedBy.NAME_SIZE
    if not files:
        raise _no_match(bench, sha256, hub_id, named)
    if len(files) > 1:
        raise DomainError(AMBIGUOUS, f"the device report matches {len(files)} files on the board: "
                          f"{_file_names(files)}", "name the model with hub_id (its id on the board)"
                          + ("" if sha256 else " or give the file's sha256") + "; nothing was stored", 400,
                          candidates=[f.hub_id for f in files[:10]])
    file = files[0]
    if file.model_size and file.model_size != bench.model_size:
        raise DomainError(MISMATCH, f"the report's model_size is {bench.model_size:,} bytes, but the tensors of "
                          f"{file.hub_id} (sha256 {file.sha256[:12]}…) are {file.model_size:,} bytes: llama-bench "
                          "measured another file", "upload the report of the file with this sha256, or give the "
                          "sha256 of the file you measured; nothing was stored", 400)
    return file, how


def _figures(bench: BenchReport) -> dict:
    out = {}
    for kind in ("pp", "tg"):
        test = bench.fastest(kind)
        out.update({f"{kind}_tokens_per_s": test and test.avg_ts, f"{kind}_sd": test and test.stddev_ts,
                    f"{kind}_tokens": test and (test.n_prompt if kind == "pp" else test.n_gen),
                    f"{kind}_threads": test and test.n_threads})
    return out


def _report_fields(bench: BenchReport, device: Device) -> dict:
    """What a report stores of the report and the device, as stored (columns.check reads exactly this)."""
    return dict(file_name=bench.file_name, device_key=device.key, make=device.make, device_model=device.model,
                chip=device.chip, ram_gb=device.ram_gb, os_version=device.os_version, charging=device.charging,
                model_size=bench.model_size, model_type=bench.model_type, build_commit=bench.build_commit,
                build_number=bench.build_number, backends=bench.backends, cpu_info=bench.cpu_info,
                gpu_info=bench.gpu_info, measured_at=min(t.test_time for t in bench.tests), **_figures(bench),
                **phone_figures.report_figures(bench.tests))  # what pages need of the tests: they never read samples


def _physical(bench: BenchReport, device: Device, problems: dict) -> None:
    test = bench.fastest("tg")
    why = bandwidth.too_fast(test and test.avg_ts, bench.model_size, device.os_version)
    if why:
        problems.setdefault(ABSURD_SPEED, []).append(why)


def _new_device_quota(user, device: Device) -> None:
    """An account may report DEVICE_REPORT_NEW_DEVICES_PER_DAY device names it never reported before, a day: invented
    names are how one account spreads its votes."""
    mine = DeviceReport.objects.filter(owner=user)
    if mine.filter(device_key=device.key).exists():
        return
    limit = settings.DEVICE_REPORT_NEW_DEVICES_PER_DAY
    since = timezone.now() - timedelta(days=1)
    new = mine.values("device_key").annotate(first=Min("created_at")).filter(first__gte=since).count()
    if new >= limit:
        raise ReportRefused(NEW_DEVICE_QUOTA, [f"this account reported {new} device names new to it in the last 24 "
                                               f"hours, the limit is {limit}"],
                            hint="report the devices you already named, or come back tomorrow; nothing was stored",
                            limit=limit)


def _store(*, user, file, how, fields: dict) -> DeviceReport:
    _lock_file(file.model_id)
    report = DeviceReport.objects.create(owner=user, model_id=file.model_id, file_sha256=file.sha256, matched_by=how,
                                         **fields)
    judging.rejudge(model_id=file.model_id, sha256=file.sha256, device_key=fields["device_key"])
    report.refresh_from_db(fields=["status", "weight"])
    return report


def _lock_file(model_id: int) -> None:
    """One judgement of a file's reports at a time: intakes and an admin's hide and accept take the file's entry."""
    ModelEntry.objects.select_for_update().filter(pk=model_id).first()


def _rejudge_after_admin(report: DeviceReport) -> None:
    _lock_file(report.model_id)
    judging.rejudge(model_id=report.model_id, sha256=report.file_sha256, device_key=report.device_key)


def _store_tests(report: DeviceReport, bench: BenchReport) -> None:
    DeviceTest.objects.bulk_create([
        DeviceTest(report=report, index=i, n_prompt=t.n_prompt, n_gen=t.n_gen, n_depth=t.n_depth,
                   n_threads=t.n_threads, n_gpu_layers=t.n_gpu_layers, avg_ts=t.avg_ts, stddev_ts=t.stddev_ts,
                   samples=t.samples, samples_ts=list(t.samples_ts), test_time=t.test_time)
        for i, t in enumerate(bench.tests)])


def report_create(*, user, llama_bench, device, sha256=None, hub_id=None) -> DeviceReport:
    """Store `user`'s report: `llama_bench` (llama-bench's parsed JSON), `device` (device_fields.FIELDS), the file's
    sha256 and model id on the board when known. Every problem of the first kind found is refused at once
    (refusals.py), then every value is checked against its column as it will be stored (columns.py), the speed
    against the device class's memory (bandwidth.py), the account's daily new device names, and the file is
    matched; nothing is stored unless all of it passes."""
    problems: dict = {}
    dev = parse_device(device, problems)
    sha = _sha256(sha256, problems)
    hub = clean_text(hub_id, "hub_id", HUB_ID_LIMIT, problems, required=False)
    bench = parse_report(llama_bench, problems)
    raise_first(problems)
    fields = _report_fields(bench, dev)
    columns.check(DeviceReport, fields, problems)
    for test in bench.tests:
        columns.check(DeviceTest, {"samples_ts": list(test.samples_ts)}, problems)
    _physical(bench, dev, problems)
    raise_first(problems)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # an account's intakes in turn
        _new_device_quota(user, dev)
        file, how = match_file(bench, sha256=sha, hub_id=hub)
        report = _store(user=user, file=file, how=how, fields=fields)
        _store_tests(report, bench)
        results_changed()  # the device pages and APIs are cached per results generation: the report shows at once
        return report


@transaction.atomic
def report_hide(report: DeviceReport, *, actor, reason: str) -> None:
    """An admin hides a report: gone from every page, table, median and API, and its group judged again without it;
    audited."""
    DeviceReport.objects.filter(pk=report.pk).update(hidden=True)
    _rejudge_after_admin(report)
    results_changed()
    audit_record(actor=actor, action="hide_device_report", target=report, reason=reason,
                 file_sha256=report.file_sha256, device=report.device_key)


@transaction.atomic
def report_accept(report: DeviceReport, *, actor, reason: str) -> None:
    """An admin accepts an outlier: its account's vote is in the figure from now on, whatever later votes say (the
    group is judged again); audited."""
    if report.status != ReportStatus.OUTLIER:
        return
    DeviceReport.objects.filter(pk=report.pk).update(status=ReportStatus.ACCEPTED)
    _rejudge_after_admin(report)
    results_changed()
    audit_record(actor=actor, action="accept_device_report", target=report, reason=reason,
                 file_sha256=report.file_sha256, device=report.device_key)

