"""Reads of device reports: the reports (hidden ones and those of hidden models never), a file's device table, speeds
per file and device with filters, and the devices and RAM sizes reported.

A group's figures (``summary``) are the medians over its counted reports (outliers wait for an admin, models.py),
with the number of reports, their spread (lowest and highest), the number of outliers left out, and the llama.cpp
builds, chips, RAM sizes and test sizes seen. A report's figure is its fastest test of each kind."""
import statistics

from .device_fields import device_key
from .models import COUNTED_STATUSES, DeviceReport


def visible_reports(**filters):
    return (DeviceReport.objects.filter(hidden=False, model__hidden=False, **filters)
            .select_related("model", "owner").order_by("-created_at", "-pk"))


def filtered_reports(*, hub_id="", sha256="", device="", ram_gb=None, status=""):
    """Reports narrowed by model (its hub id, any case), file sha256, device (make and model, any case or spacing),
    RAM (GB, exactly) and status."""
    reports = visible_reports()
    if hub_id:
        reports = reports.filter(model__hub_id__iexact=hub_id)
    if sha256:
        reports = reports.filter(file_sha256=sha256.lower())
    if device:
        reports = reports.filter(device_key=device_key(device, ""))
    if ram_gb is not None:
        reports = reports.filter(ram_gb=ram_gb)
    if status:
        reports = reports.filter(status=status)
    return reports


def _spread(values) -> dict:
    return {"median": statistics.median(values) if values else None, "min": min(values, default=None),
            "max": max(values, default=None)}


def summary(reports) -> dict:
    """The figures of a group of reports (newest first)."""
    counted = [r for r in reports if r.status in COUNTED_STATUSES]
    pp = _spread([r.pp_tokens_per_s for r in counted if r.pp_tokens_per_s])
    tg = _spread([r.tg_tokens_per_s for r in counted if r.tg_tokens_per_s])
    sizes = {f"pp{r.pp_tokens}" for r in counted if r.pp_tokens} | {f"tg{r.tg_tokens}" for r in counted if r.tg_tokens}
    return {
        "reports": len(counted), "outliers": len(reports) - len(counted),
        "pp_median": pp["median"], "pp_min": pp["min"], "pp_max": pp["max"],
        "tg_median": tg["median"], "tg_min": tg["min"], "tg_max": tg["max"],
        "builds": sorted({r.build_commit for r in counted if r.build_commit}),
        "chips": sorted({r.chip for r in counted}), "ram_gb": sorted({r.ram_gb for r in counted}),
        "tests": sorted(sizes, key=lambda s: (s[:2], int(s[2:]))),
        "charging": sum(r.charging for r in counted),
    }


def _groups(reports, key) -> dict:
    groups: dict = {}
    for report in reports:
        groups.setdefault(key(report), []).append(report)
    return groups


def _by_speed(row):
    return (row["tg_median"] is None, -(row["tg_median"] or 0), row.get("device", "").lower())


def device_table(*, model_id: int, sha256: str) -> list[dict]:
    """One file's devices, fastest generation first: each device (as its newest report names it) with its summary,
    and the generation speeds of its counted reports and of its outliers (the chart's points)."""
    reports = list(visible_reports(model_id=model_id, file_sha256=sha256))
    rows = []
    for key, group in _groups(reports, lambda r: r.device_key).items():
        counted = [r for r in group if r.status in COUNTED_STATUSES]
        rows.append({"device_key": key, "device": group[0].device_name, **summary(group),
                     "tg_values": [r.tg_tokens_per_s for r in counted if r.tg_tokens_per_s],
                     "outlier_tg_values": [r.tg_tokens_per_s for r in group
                                           if r not in counted and r.tg_tokens_per_s]})
    return sorted(rows, key=_by_speed)


def speed_rows(reports, *, by_device: bool = True) -> list[dict]:
    """Speeds per file (model entry and sha256) and, by_device, per device, of `reports` (filtered_reports)."""
    def key(r):
        return (r.model_id, r.file_sha256, r.device_key if by_device else "")

    rows = []
    for (_, sha256, dkey), group in _groups(list(reports), key).items():
        first = group[0]
        rows.append({"hub_id": first.model.hub_id, "file": first.file_name, "file_sha256": sha256,
                     "quantization": first.model.quantization, "device_key": dkey,
                     "device": first.device_name if by_device else "",
                     "devices": len({r.device_key for r in group}), **summary(group)})
    return sorted(rows, key=lambda r: (r["hub_id"].lower(), *_by_speed(r)))


def devices() -> list[dict]:
    """The devices reported (key, name as the newest report spells it, counted reports), by name."""
    rows = {}
    for key, make, model, status in visible_reports().values_list("device_key", "make", "device_model", "status"):
        row = rows.setdefault(key, {"key": key, "name": f"{make} {model}", "reports": 0})
        row["reports"] += status in COUNTED_STATUSES
    return sorted(rows.values(), key=lambda r: r["name"].lower())


def ram_sizes() -> list[float]:
    """The RAM sizes (GB) reported, smallest first."""
    return sorted(set(visible_reports().values_list("ram_gb", flat=True)))
