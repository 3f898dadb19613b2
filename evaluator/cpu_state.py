"""How busy this machine's CPU is, for the cost profile's card and its noise rule (ondevice_profile.py): the CPU's
model and flags, the CPUs a process may use, the 1-minute load average, and the cores other processes keep busy
while a measurement runs (from /proc/stat, less the measuring process's own CPU time)."""
from __future__ import annotations

import os
import platform
import time
from pathlib import Path
from typing import Any


def machine_busy_seconds(stat: str | Path = "/proc/stat") -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (user, nice, system, irq, softirq, steal);
    None where /proc/stat cannot be read."""
    try:
        fields = [int(x) for x in Path(stat).read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def other_cores(busy_before: float | None, own_before: float, wall_before: float) -> float | None:
    """Cores other processes kept busy on average since the snapshot: the machine's busy CPU time less this
    process's own (every thread), over the wall time."""
    busy_after, wall = machine_busy_seconds(), time.perf_counter() - wall_before
    if busy_before is None or busy_after is None or wall <= 0:
        return None
    others = (busy_after - busy_before) - (time.process_time() - own_before)
    return round(max(0.0, others) / wall, 2)


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def cpus_available() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def cpu_info(cpuinfo: str | Path = "/proc/cpuinfo") -> dict[str, Any]:
    """The CPU's model and feature flags as the kernel reports them (x86 `model name`/`flags`, Arm `Features`)."""
    fields: dict[str, str] = {}
    try:
        for line in Path(cpuinfo).read_text(errors="replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() not in fields:
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    model = fields.get("model name") or fields.get("Hardware") or fields.get("CPU part") or platform.processor()
    flags = (fields.get("flags") or fields.get("Features") or "").split()
    return {"model": model or "unknown", "flags": flags, "machine": platform.machine(), "logical_cpus": os.cpu_count()}
