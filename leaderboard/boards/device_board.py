"""What runs well on my phone (issue 25): the On-device board's files (ondevice.py: open validation split, accuracy as
the board publishes it) with the speeds people measured with llama-bench on one device, or on devices with a given
RAM (devices.selectors: confirmed figures, the people confirming them and their spread), fastest first. "At a given
accuracy": min_accuracy keeps the files at least that accurate, and the Pareto frontier of accuracy against the
device's generation speed (pareto.py) marks the files no other is both faster and more accurate than.

Only confirmed figures rank here (devices/consensus.py: at least two accounts agree within 3×): a file whose speeds
on the chosen devices are unconfirmed, or not measured, is not listed, and over several devices a file's median is
over its confirmed devices' figures, one each. The server's cost profile is never mixed in: its figures stay on the
On-device board, labelled as a server CPU's.

Flagged files (flags.py: a file carries its base model's flag) are left out unless asked for, as on the On-device
board; shown, they are marked and never placed on the frontier."""
from dataclasses import dataclass

from leaderboard.devices import selectors as device_selectors

from . import ondevice, pareto

_FILE = ("hub_id", "run_id", "file", "file_sha256", "file_bytes", "quantization", "accuracy", "ci95_low", "ci95_high",
         "flagged", "possible_contamination", "flagged_via")
_SPEED = ("reports", "devices", "outliers", "confirmed_by", "unconfirmed_devices", "disputed_devices", "tg_median",
          "tg_min", "tg_max",
          "pp_median", "pp_min", "pp_max", "builds", "chips", "ram_gb", "tests",
          # the felt figures (devices/feel.py): TTFT derived and measured, the sustained drop, the fit
          "prompt_tokens", "prompt_tokens_source", "ttft_derived_s", "ttft_measured_s", "ttft_measured_people",
          "tg_sustained_drop", "tg_sustained_people", "kv_context", "kv_cache_bytes", "memory_need_bytes", "fit_ram_gb",
          "app_ram_share", "app_budget_bytes", "fit")
COLUMNS = [*_FILE, *_SPEED, "pareto"]
FRONTIER_NOTE = "Pareto frontier: no file is both faster on these devices and more accurate"


@dataclass
class DeviceBoard:
    rows: list[dict]  # the files kept, fastest generation first, each with `pareto`
    measured: int  # board files with a confirmed figure under the device filters (before min_accuracy)
    frontier: list  # run ids on the frontier, fastest first
    flagged_hidden: int = 0  # measured files left out for being flagged


def board(*, benchmark, shots=0, version=None, device="", ram_gb=None, min_accuracy=None,
          include_flagged=False) -> DeviceBoard:
    """The board's files measured on `device` (make and model, any case) and/or devices with `ram_gb` GB of RAM;
    with neither, on every device reported. Flagged files only when `include_flagged`."""
    files = ondevice.ondevice_rows(benchmark=benchmark, shots=shots, version=version)
    reports = device_selectors.filtered_reports(device=device, ram_gb=ram_gb)
    speeds = {(s["hub_id"].lower(), s["file_sha256"]): s
              for s in device_selectors.speed_rows(reports, by_device=False)}
    rows = []
    for row in files:
        speed = speeds.get((row["hub_id"].lower(), row["file_sha256"]))
        if speed and speed["confirmed"] and speed["tg_median"] is not None:
            rows.append({**{name: row[name] for name in _FILE}, **{name: speed[name] for name in _SPEED}})
    hidden = 0 if include_flagged else sum(r["flagged"] for r in rows)
    kept = [r for r in rows if (include_flagged or not r["flagged"])
            and (min_accuracy is None or (r["accuracy"] is not None and r["accuracy"] >= min_accuracy))]
    frontier = pareto.frontier([(r["run_id"], r["tg_median"], r["accuracy"]) for r in ondevice.placed(kept)],
                               lower_is_better=False)
    on = set(frontier)
    kept = sorted(({**r, "pareto": r["run_id"] in on} for r in kept),
                  key=lambda r: (-r["tg_median"], -(r["accuracy"] or 0), r["hub_id"].lower()))
    return DeviceBoard(rows=kept, measured=len(rows), frontier=frontier, flagged_hidden=hidden)
