"""The physical limit of a generation speed: each generated token reads every weight once, so tokens/s × llama-bench's
``model_size`` is memory traffic, and no device moves more than its memory's bandwidth. Pure: no Django.

What a phone's memory moves (peak, bytes/s = transfers/s × bus width in bytes):
- LPDDR5X at 8533 MT/s on a 64-bit bus: 8533e6 × 8 = 68 GB/s (JEDEC JESD209-5B, the LPDDR5X speed grades);
- Snapdragon 8 Gen 3: LPDDR5X at 4800 MHz (9600 MT/s), 64-bit: 77 GB/s (Qualcomm's product brief);
- Apple A17 Pro: LPDDR5 at 6400 MT/s, 64-bit: 51 GB/s; the M4 of the 2024 iPad Pro: 120 GB/s (Apple's announcement,
  7 May 2024), the most a phone or tablet moves today.
So a phone or tablet is capped at MOBILE_BYTES_PER_S = 150 GB/s: the M4 with 25% margin. Any other device (a laptop,
a desktop, a server measured for the demo) keeps the outer bound, 10 TB/s (a B200 GPU moves 8 TB/s).

A file small enough to sit in a cache is read from the cache, faster than memory: the cap applies to files over
CACHE_BYTES (64 MiB; a phone's last-level cache is at most some 32 MiB); smaller files keep the flat ceilings of
llama_bench.py.

The device class is read from the OS the person typed (``os_version``): Android, iOS, iPadOS and HarmonyOS are a
phone's or a tablet's. Typing another OS escapes the mobile cap but not the outer one, and never the confirmation rule
(consensus.py): the cap is a sanity bound, not the defence against sock puppets.
"""
import re

from .llama_bench import MAX_TRAFFIC_BYTES_PER_S as OUTER_BYTES_PER_S

MOBILE_BYTES_PER_S = 150 * 10**9
CACHE_BYTES = 64 * 2**20
MOBILE_OS = re.compile(r"\b(android|ios|ipados|harmonyos|harmony ?os|one ?ui|hyperos|miui|coloros|oxygenos)\b", re.I)
PHONE, OTHER = "phone or tablet", "other device"


def device_class(os_version: str) -> str:
    return PHONE if MOBILE_OS.search(os_version or "") else OTHER


def max_traffic(os_version: str) -> int:
    return MOBILE_BYTES_PER_S if device_class(os_version) == PHONE else OUTER_BYTES_PER_S


def too_fast(tokens_per_s: float | None, model_size: int, os_version: str) -> str | None:
    """Why a generation speed cannot be real on this device class, if it cannot."""
    if not tokens_per_s or model_size <= CACHE_BYTES:
        return None
    limit, traffic = max_traffic(os_version), tokens_per_s * model_size
    if traffic <= limit:
        return None
    return (f"generation avg_ts is {tokens_per_s:,.1f} tokens/s; each generated token reads the file's "
            f"{model_size:,} bytes of weights, so that is {traffic / 1e9:,.0f} GB/s, more than a "
            f"{device_class(os_version)}'s memory moves ({limit / 1e9:,.0f} GB/s)")
