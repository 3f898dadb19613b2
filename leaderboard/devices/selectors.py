"""Reads of device reports: the reports (only while their file is on the board: a hidden run, submission or model
entry takes its reports off every page, table, median and API; hidden reports never), a file's device table, speeds
per file and device with filters, and the devices and RAM sizes reported.

A group's figures (``summary``) count people, not reports (consensus.py): each account's reports of one file on one
device are one vote, their median, weighed by what the account cost to make; the figure is the weighted median of the
heaviest group of votes within 3× of one another, confirmed when it holds two people and weighs at least twice what
disagrees with it (else disputed: shown with the spread of every vote, never ranked), with its spread (lowest and
highest vote). judging.py stores each report's status and weight; the reads judge again from those, so a reader's
filter never turns an outlier into a vote. An unconfirmed figure is the median of every vote, labelled so; it never
ranks the board nor enters a median over devices. Outliers wait for an admin (models.py). A report's figure is its
fastest test of each kind. Beside them, the figures a phone user feels (feel.py): time to first token, the sustained
drop, medians per llama.cpp build, and whether the file fits."""
import statistics
from functools import reduce
from operator import or_

from django.db.models import Prefetch, Q

from . import board_files, consensus, feel, llama_bench, phone_figures
from .device_fields import RAM_GB, device_key
from .models import COUNTED_STATUSES, DeviceReport, DeviceTest


def _within(field: str, low: float, high: float, *, nullable: bool = True) -> Q:
    """field between low and high; PostgreSQL sorts NaN above every number and -Infinity below, so neither passes."""
    inside = Q(**{f"{field}__gte": low, f"{field}__lte": high})
    return inside | Q(**{f"{field}__isnull": True}) if nullable else inside


# What intake accepts today (llama_bench, device_fields): a report stored before a rule with a figure outside it (a
# speed of 5e-324 or inf, RAM of 1e308, a drop of NaN) is left out of every figure rather than breaking the pages.
SANE = (_within("pp_tokens_per_s", llama_bench.MIN_TOKENS_PER_S, llama_bench.MAX_PROMPT_TOKENS_PER_S)
        & _within("tg_tokens_per_s", llama_bench.MIN_TOKENS_PER_S, llama_bench.MAX_GEN_TOKENS_PER_S)
        & _within("pp_sd", 0, 10 * llama_bench.MAX_PROMPT_TOKENS_PER_S)
        & _within("tg_sd", 0, 10 * llama_bench.MAX_GEN_TOKENS_PER_S)
        & _within("ram_gb", *RAM_GB, nullable=False)
        & _within("tg_sustained_drop", 1 - llama_bench.MAX_GEN_TOKENS_PER_S / llama_bench.MIN_TOKENS_PER_S, 1))


def visible_reports(**filters):
    """The reports pages and lists read: on the board, not hidden, with sane stored figures (SANE). Their tests are
    not read: what pages need of them is stored on the report (phone_figures.report_figures)."""
    keys = board_files.board_file_keys()
    if not keys:
        return DeviceReport.objects.none()
    on_board = reduce(or_, (Q(model_id=model_id, file_sha256=sha256) for model_id, sha256 in sorted(keys)))
    return (DeviceReport.objects.filter(on_board, SANE, hidden=False, model__hidden=False, **filters)
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


def _spread(votes: dict, weights: dict) -> dict:
    """The weighted median of account -> vote (weights: account -> weight; 1 each where absent), lowest, highest."""
    return {"median": consensus.weighted_median([(v, weights.get(a, 1.0)) for a, v in votes.items()]),
            "min": min(votes.values(), default=None), "max": max(votes.values(), default=None)}


def agreement(reports) -> tuple[consensus.Consensus, dict]:
    """The judgement of a group's reports as stored (judging.py made it; a reader's filter may narrow the group):
    every account's ballot, on generation speed or prompt speed where none has one, with its stored weight; an
    account none of whose reports counts is judged an outlier and stays in the dissent."""
    counted = {r.owner_id for r in reports if r.status in COUNTED_STATUSES}
    ballots = consensus.ballots(reports)
    return consensus.judge(ballots, excluded={a for a in ballots if a not in counted}), ballots


def summary(reports, ctx: feel.FileContext | None = None) -> dict:
    """The figures of one file on one device (a group of reports, newest first): the votes of the accounts that make
    its figure (consensus.py), whether it is confirmed and by how many people, and the felt figures (feel.py; `ctx`:
    the file's, feel.file_context). Where votes disagree the figure is disputed: not confirmed, with the people
    outside its band (dissenting) and the spread of every vote (every_tg_*)."""
    counted = [r for r in reports if r.status in COUNTED_STATUSES]
    agreed, ballots = agreement(reports)
    people = set(agreed.people)
    kept = [r for r in counted if r.owner_id in people]
    grouped = agreed.confirmed or agreed.disputed  # a group's votes are weighed; an unconfirmed figure's are not
    weights = {a: b.weight for a, b in ballots.items()} if grouped else {}
    pp = _spread(consensus.votes((r.owner_id, r.pp_tokens_per_s) for r in kept), weights)
    tg = _spread(consensus.votes((r.owner_id, r.tg_tokens_per_s) for r in kept), weights)
    every = consensus.votes((r.owner_id, r.tg_tokens_per_s) for r in reports).values()
    sizes = {f"pp{r.pp_tokens}" for r in kept if r.pp_tokens} | {f"tg{r.tg_tokens}" for r in kept if r.tg_tokens}
    return {
        "reports": len(counted), "outliers": len(reports) - len(counted),
        "people": len({r.owner_id for r in counted}), "confirmed": agreed.confirmed,
        "confirmed_by": agreed.confirmed_by, "disputed": agreed.disputed, "dissenting": len(agreed.dissent),
        "every_tg_min": min(every, default=None), "every_tg_max": max(every, default=None),
        "pp_median": pp["median"], "pp_min": pp["min"], "pp_max": pp["max"],
        "tg_median": tg["median"], "tg_min": tg["min"], "tg_max": tg["max"],
        "builds": sorted({r.build_commit for r in kept if r.build_commit}),
        "chips": sorted({r.chip for r in kept}), "ram_gb": sorted({r.ram_gb for r in kept}),
        "tests": sorted(sizes, key=lambda s: (s[:2], int(s[2:]))),
        "charging": sum(r.charging for r in kept),
        **feel.figures(kept, pp_median=pp["median"], ram_gb=sorted({r.ram_gb for r in kept}), ctx=ctx),
        "_people": people,
    }


def _median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def across_devices(figures: list[dict], ctx: feel.FileContext | None = None) -> dict:
    """One file's figures over several devices: only confirmed devices, each one value (its figure); the medians of
    those, the spread of the confirming people's votes; TTFT derived from the prompt median, the devices' median
    measured TTFT and sustained drop, and the fit on the smallest RAM among them. A disputed device is left out like
    an unconfirmed one, and counted (disputed_devices)."""
    confirmed = [f for f in figures if f["confirmed"]]
    people = set().union(*(f["_people"] for f in confirmed)) if confirmed else set()
    out = {"reports": sum(f["reports"] for f in confirmed), "outliers": sum(f["outliers"] for f in confirmed),
           "people": len(people), "confirmed": bool(confirmed), "confirmed_by": len(people),
           "unconfirmed_devices": len(figures) - len(confirmed), "charging": sum(f["charging"] for f in confirmed),
           "disputed": any(f["disputed"] for f in figures), "disputed_devices": sum(f["disputed"] for f in figures),
           "dissenting": sum(f["dissenting"] for f in figures),
           "every_tg_min": min((f["every_tg_min"] for f in figures if f["every_tg_min"] is not None), default=None),
           "every_tg_max": max((f["every_tg_max"] for f in figures if f["every_tg_max"] is not None), default=None)}
    for kind in ("pp", "tg"):
        medians = [f[f"{kind}_median"] for f in confirmed if f[f"{kind}_median"] is not None]
        out[f"{kind}_median"] = statistics.median(medians) if medians else None
        out[f"{kind}_min"] = min((f[f"{kind}_min"] for f in confirmed if f[f"{kind}_min"] is not None), default=None)
        out[f"{kind}_max"] = max((f[f"{kind}_max"] for f in confirmed if f[f"{kind}_max"] is not None), default=None)
    for name in ("builds", "chips", "ram_gb"):
        out[name] = sorted(set().union(*(f[name] for f in confirmed))) if confirmed else []
    out["tests"] = sorted(set().union(*(f["tests"] for f in confirmed)) if confirmed else [],
                          key=lambda s: (s[:2], int(s[2:])))
    felt = feel.figures([], pp_median=out["pp_median"], ram_gb=out["ram_gb"], ctx=ctx)
    felt.update(ttft_measured_s=_median(f["ttft_measured_s"] for f in confirmed),
                ttft_measured_people=sum(f["ttft_measured_people"] for f in confirmed),
                tg_sustained_drop=_median(f["tg_sustained_drop"] for f in confirmed),
                tg_sustained_people=sum(f["tg_sustained_people"] for f in confirmed), build_medians=[])
    return {**out, **felt}


def _groups(reports, key) -> dict:
    groups: dict = {}
    for report in reports:
        groups.setdefault(key(report), []).append(report)
    return groups


def _by_speed(row):
    return (row["tg_median"] is None, -(row["tg_median"] or 0), row.get("device", "").lower())


def _public(figures: dict) -> dict:
    return {k: v for k, v in figures.items() if not k.startswith("_")}


def device_table(*, model_id: int, sha256: str) -> list[dict]:
    """One file's devices, confirmed first, then fastest generation first: each device (as its newest report names
    it) with its summary, and the generation speeds of the reports its figure counts and of the others (outliers,
    and the reports of accounts that do not agree with it): the chart's points."""
    reports = list(visible_reports(model_id=model_id, file_sha256=sha256))
    ctx = feel.file_context(model_id=model_id, sha256=sha256)
    rows = []
    for key, group in _groups(reports, lambda r: r.device_key).items():
        figures = summary(group, ctx)
        kept = [r for r in group if r.status in COUNTED_STATUSES and r.owner_id in figures["_people"]]
        rows.append({"device_key": key, "device": group[0].device_name, **_public(figures),
                     "tg_values": [r.tg_tokens_per_s for r in kept if r.tg_tokens_per_s],
                     "outlier_tg_values": [r.tg_tokens_per_s for r in group if r not in kept and r.tg_tokens_per_s]})
    return sorted(rows, key=lambda row: (not row["confirmed"], *_by_speed(row)))


def speed_rows(reports, *, by_device: bool = True) -> list[dict]:
    """Speeds per file (model entry and sha256) and, by_device, per device (confirmed or not, labelled), of `reports`
    (filtered_reports). Without by_device, a file's row is over its confirmed devices only (across_devices)."""
    rows = []
    for (model_id, sha256), group in _groups(list(reports), lambda r: (r.model_id, r.file_sha256)).items():
        first, ctx = group[0], feel.file_context(model_id=model_id, sha256=sha256)
        file = {"hub_id": first.model.hub_id, "file": first.file_name, "file_sha256": sha256,
                "quantization": first.model.quantization}
        per_device = _groups(group, lambda r: r.device_key)
        if by_device:
            rows += [{**file, "device_key": key, "device": reports_of[0].device_name, "devices": 1,
                      **_public(summary(reports_of, ctx))} for key, reports_of in per_device.items()]
        else:
            rows.append({**file, "device_key": "", "device": "", "devices": 0,
                         **across_devices([summary(reports_of, ctx) for reports_of in per_device.values()], ctx)})
            rows[-1]["devices"] = len(per_device) - rows[-1]["unconfirmed_devices"]
    return sorted(rows, key=lambda r: (r["hub_id"].lower(), not r["confirmed"], *_by_speed(r)))


def devices() -> list[dict]:
    """The devices with a confirmed figure of some file (key, name as the newest report spells it, counted reports of
    those files), by name: an invented name no second person confirmed is no choice on the board."""
    rows: dict = {}
    for row in speed_rows(visible_reports()):
        if row["confirmed"]:
            entry = rows.setdefault(row["device_key"], {"key": row["device_key"], "name": row["device"], "reports": 0})
            entry["reports"] += row["reports"]
    return sorted(rows.values(), key=lambda r: r["name"].lower())


def ram_sizes() -> list[float]:
    """The RAM sizes (GB) reported, smallest first."""
    return sorted(set(visible_reports().values_list("ram_gb", flat=True)))


def with_tests(reports):
    """`reports` with their tests, as lists show them: never their repetitions (samples_ts), which only
    report_samples reads, so a list costs the same whatever was stored."""
    return reports.prefetch_related(Prefetch("tests", queryset=DeviceTest.objects.defer("samples_ts")))


def visible_report(pk: int) -> DeviceReport | None:
    """One report as the lists show it (visible_reports, with_tests); None when it is hidden, off the board or not
    stored."""
    return with_tests(visible_reports(pk=pk)).first()


def report_samples(report: DeviceReport) -> list[dict]:
    """Every repetition of a report's tests, in test order and then the order they ran: the one read of samples_ts
    (bounded per report at intake: llama_bench.MAX_REPORT_SAMPLES; older reports by MAX_TESTS tests)."""
    return [{"test": t.index, "kind": phone_figures.test_kind(t.n_prompt, t.n_gen), "n_prompt": t.n_prompt,
             "n_gen": t.n_gen, "n_threads": t.n_threads, "repetition": i, "tokens_per_s": value}
            for t in DeviceTest.objects.filter(report=report).order_by("index")
            for i, value in enumerate(t.samples_ts or [], start=1)]
