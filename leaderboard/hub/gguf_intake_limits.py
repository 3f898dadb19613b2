"""What one GGUF intake may cost, and the parts a file's name says it has (issue 38): ``IntakeLimits``, the hub
client that counts every request against its budget and deadline (``IntakeBudget``), and the split file's part
names, read and capped before the hub is asked. Used by ``gguf_checks.check_gguf``.

Pure module: no Django, no settings; the caller passes the limits.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from evaluator.backends.gguf_file import SPLIT_NAME

from .client import HubClient
from .errors import (
    GGUF_INTAKE_TOO_SLOW, GGUF_SPLIT_INCOMPLETE, GGUF_TOO_MANY_PARTS, GGUF_TOO_MANY_REQUESTS, SubmissionRefused,
)
from .ids import ModelRef


@dataclass(frozen=True)
class IntakeLimits:
    """What one GGUF intake may cost, all its parts together (settings GGUF_MAX_PARTS, GGUF_MAX_HUB_REQUESTS,
    GGUF_INTAKE_SECONDS). llama.cpp's gguf-split writes a few dozen parts at most for the largest models; a part
    costs one request for its header (a first part with a large vocabulary a few more) and one to hash a part
    kept in git, not LFS; the web worker's timeout is 60 s."""

    max_parts: int = 64
    max_requests: int = 256  # model_info, paths-info, every ranged read and whole-file read
    max_seconds: float = 30.0  # wall-clock, from the first request to the last check


DEFAULT_INTAKE = IntakeLimits()


class IntakeBudget:
    """The hub client of one intake: each request counted against ``intake.max_requests`` and asked only before
    the deadline (``intake.max_seconds`` from the start); the hub client's own timeout is cut to what is left."""

    def __init__(self, client, intake: IntakeLimits, what: str, clock=time.monotonic):
        self.client, self.intake, self.what, self.used, self.parsed = client, intake, what, 0, 0.0
        self.clock = clock  # the deadline's clock (gguf_checks._clock, which a test moves)
        self.deadline = clock() + intake.max_seconds
        self.hub, self.timeout = isinstance(client, HubClient), getattr(client, "timeout", None)

    def left(self) -> float:
        return self.deadline - self.clock()

    def spend(self, requests: int = 1) -> None:
        if self.used + requests > self.intake.max_requests:
            raise SubmissionRefused(
                GGUF_TOO_MANY_REQUESTS, f"checking {self.what} takes more than the {self.intake.max_requests:,} hub "
                                        "requests one GGUF submission may make",
                "split the model into fewer parts (llama.cpp's gguf-split --split-max-size 4G or larger), or merge "
                "them (gguf-split --merge), and submit that revision")
        left = self.left()
        if left <= 0:
            raise self.too_slow()
        if self.hub:  # one request may not outlast the intake
            self.client.timeout = left if self.timeout is None else min(self.timeout, left)
        self.used += requests

    def too_slow(self) -> SubmissionRefused:
        return SubmissionRefused(
            GGUF_INTAKE_TOO_SLOW, f"checking {self.what} took over {self.intake.max_seconds:g} s, the time one "
                                  "GGUF submission may take",
            "try again in a few minutes (the hub may be slow); if it fails again, submit the file in fewer parts")

    def model_info(self, *args, **kwargs):
        self.spend()
        return self.client.model_info(*args, **kwargs)

    def files_info(self, *args, **kwargs):
        self.spend()
        return self.client.files_info(*args, **kwargs)

    def read_range(self, *args, **kwargs):
        self.spend()
        return self.client.read_range(*args, **kwargs)

    def read_file(self, *args, **kwargs):
        self.spend()
        return self.client.read_file(*args, **kwargs)

    def other_kind(self, hub_id: str) -> str | None:
        """Only a hint for a refusal (two requests at most): skipped when the budget or the time is spent."""
        if self.used + 2 > self.intake.max_requests or self.left() <= 0:
            return None
        self.used += 2
        return self.client.other_kind(hub_id)


def part_count(ref: ModelRef, gguf_file: str, intake: IntakeLimits) -> int:
    """The parts a file's name says it has (1 unless ``stem-00001-of-00003.gguf``), refused unless it names the first
    of 1 to ``intake.max_parts``: before any request, so a name cannot make the hub be asked once per part."""
    match = SPLIT_NAME.match(gguf_file)
    if not match:
        return 1
    no, count = int(match["no"]), int(match["count"])
    where = f"{gguf_file} in {ref.hub_id}"
    if count > intake.max_parts:
        raise SubmissionRefused(
            GGUF_TOO_MANY_PARTS, f"{where} says it is split into {count:,} parts, more than the "
                                 f"{intake.max_parts:,} a GGUF submission may have",
            "merge the parts with llama.cpp's gguf-split --merge and split them again into fewer, larger ones "
            "(gguf-split --split-max-size 4G), and submit that revision")
    if not 1 <= no <= count:
        raise SubmissionRefused(GGUF_SPLIT_INCOMPLETE, f"{where} says it is part {no} of {count}",
                                "upload the parts exactly as llama.cpp's gguf-split wrote them, and submit that revision")
    return count


def part_names(gguf_file: str, count: int, files: set[str], where: str) -> list[str]:
    """The files of a split GGUF (``stem-00001-of-00003.gguf`` ...), the first one named; else the file alone."""
    match = SPLIT_NAME.match(gguf_file)
    if not match:
        return [gguf_file]
    names = [f"{match['stem']}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]
    if gguf_file != names[0]:
        raise SubmissionRefused(GGUF_SPLIT_INCOMPLETE, f"{where} is part {int(match['no'])} of a split GGUF file",
                                f"submit its first part, {names[0]}: llama.cpp loads the others from beside it")
    missing = [name for name in names if name not in files]
    if missing:
        raise SubmissionRefused(
            GGUF_SPLIT_INCOMPLETE, f"{where} is split into {count} parts and the repository lacks "
                                   f"{len(missing)} of them: {', '.join(missing[:5])}"
                                   + (" ..." if len(missing) > 5 else ""),
            "upload every part llama.cpp's gguf-split wrote, in the same folder, and submit that revision")
    return names
