"""Wall-clock limits that stretch with the machine's load: a test waiting on a worker, an engine or a page must not fail
because other processes share the cores (issue 32). A limit is written for cores that are not oversubscribed; while
the 1-minute load average is above the core count, it is that many times longer, up to MAX_STRETCH times."""
import os
import time

MAX_STRETCH = 4.0


def stretch() -> float:
    """The load average over the cores, between 1 and MAX_STRETCH."""
    return min(MAX_STRETCH, max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1)))


class Deadline:
    """`timeout` seconds of an unloaded machine, measured against the load seen at each check."""

    def __init__(self, timeout: float):
        self.timeout, self.started = timeout, time.monotonic()

    def passed(self) -> bool:
        return time.monotonic() - self.started > self.timeout * stretch()
