"""CPU and memory of reading a hostile GGUF header at intake (issue 31, finding 5), against the parser before it.

    python bench/gguf_header_bench.py [--mib 64] [--old-rev 9ed5af6] [--old-timeout 60]

The header: the keys intake needs and one array of uint8 items filling ``--mib`` MiB (64 MiB is the cap), read the
way intake reads it: ranges of 1, 2, 4 ... MiB. The current parser (leaderboard/hub/gguf_header.py) is given
the ranges as it asks and parses once; the old one (``--old-rev``, loaded from git) is run as the old intake ran it,
parsing from byte 0 after each range, in a child process stopped after ``--old-timeout`` seconds (gunicorn's
timeout is 60 s), so its figure may be a lower bound. Prints CPU seconds of each, their ratio, and the current
parser's peak Python memory per header byte (tracemalloc). No assertions: tests/hub/test_gguf_limits.py has them.
"""
from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time
import tracemalloc
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from leaderboard.hub.gguf_header import parse_header  # noqa: E402
from tests.support.raw_gguf import gguf_file, kv_bytes, model_keys  # noqa: E402

FIRST_READ = 1 << 20


def header(mib: int) -> bytes:
    keys = model_keys()
    base = len(gguf_file(keys + [kv_bytes("junk.bytes", 0)]))
    return gguf_file(keys + [kv_bytes("junk.bytes", (mib << 20) - base - 64)])


def new_intake(data: bytes) -> float:
    def read_more(have: int, at_least: int) -> bytes:
        return data[have:min(max(at_least, 2 * have, FIRST_READ), len(data))]

    started = time.process_time()
    parse_header(b"", file_size=len(data), read_more=read_more)
    return time.process_time() - started


def old_intake(source: str, data: bytes, out) -> None:
    """The old _header loop: parse the prefix, and on MoreBytesNeeded read a range twice as long and parse again."""
    module = types.ModuleType("old_gguf_header")
    sys.modules[module.__name__] = module  # its dataclasses look their module up
    exec(compile(source, "old_gguf_header.py", "exec"), module.__dict__)
    prefix, started = b"", time.process_time()
    while True:
        try:
            module.parse_header(prefix, file_size=len(data))
            break
        except module.MoreBytesNeeded as more:
            prefix = data[:min(max(more.at_least, 2 * len(prefix), FIRST_READ), len(data))]
            out.put(("progress", time.process_time() - started, len(prefix)))
    out.put(("done", time.process_time() - started, len(prefix)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=64)
    parser.add_argument("--old-rev", default="9ed5af6")
    parser.add_argument("--old-timeout", type=float, default=60.0)
    args = parser.parse_args()
    data = header(args.mib)
    print(f"header: {len(data):,} bytes, one uint8 array of {len(data) - 400:,}+ items")

    new = min(new_intake(data) for _ in range(3))
    tracemalloc.start()
    new_intake(data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"current parser: {new * 1000:.1f} ms CPU (best of 3), peak memory {peak / len(data):.2f} bytes per "
          "header byte")

    source = subprocess.run(["git", "show", f"{args.old_rev}:leaderboard/hub/gguf_header.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    queue = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(target=old_intake, args=(source, data, queue))
    child.start()
    child.join(args.old_timeout)
    finished = not child.is_alive()
    if not finished:
        child.terminate()
        child.join()
    reports = []
    while not queue.empty():
        reports.append(queue.get())
    spent, read = (reports[-1][1], reports[-1][2]) if reports else (0.0, 0)
    if finished and (not reports or reports[-1][0] != "done"):
        raise SystemExit(f"the old parser failed (exit code {child.exitcode})")
    if finished:
        print(f"old parser ({args.old_rev}): {spent:.1f} s CPU; ratio old/current {spent / new:,.0f}x")
    else:
        print(f"old parser ({args.old_rev}): stopped after {args.old_timeout:g} s wall, {spent:.1f} s CPU at the "
              f"last range it finished ({read >> 20} MiB read); ratio old/current over {args.old_timeout / new:,.0f}x")


if __name__ == "__main__":
    main()
