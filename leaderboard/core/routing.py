"""GPU queues per model size, so large models only reach workers with enough GPU memory.

GPU_QUEUES (environment) lists queues from the smallest class up, each but the last with the
parameter count it stays below: ``gpu-small:14000000000,gpu-large``. Empty (the default) means
one queue, ``gpu``. Models of unknown size go to the last (largest) class: a big GPU runs a small
model, never the reverse. Each GPU host consumes its own class and, to stay busy, the smaller
ones: ``start-worker.sh gpu`` with ``GPU_WORKER_QUEUES=gpu-large,gpu-small``.
"""
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

DEFAULT_GPU_QUEUE = "gpu"


@dataclass(frozen=True)
class SizeClass:
    queue: str
    below_params: int | None  # None: no upper bound (the last class)


def parse_gpu_queues(spec: str) -> list[SizeClass]:
    """``"gpu-small:14e9,gpu-large"`` → size classes; loud on a malformed value."""
    entries = [e.strip() for e in (spec or "").split(",") if e.strip()]
    if not entries:
        return [SizeClass(DEFAULT_GPU_QUEUE, None)]
    classes, previous = [], 0
    for position, entry in enumerate(entries):
        queue, _, bound = entry.partition(":")
        last = position == len(entries) - 1
        if not queue or (bound == "") != last:
            raise ImproperlyConfigured(
                f"GPU_QUEUES={spec!r}: every entry but the last needs a bound (queue:max_params), the last none, "
                "e.g. gpu-small:14000000000,gpu-large.")
        if last:
            classes.append(SizeClass(queue, None))
            break
        try:
            limit = int(float(bound))
        except ValueError:
            raise ImproperlyConfigured(f"GPU_QUEUES={spec!r}: {bound!r} is not a parameter count.") from None
        if limit <= previous:
            raise ImproperlyConfigured(f"GPU_QUEUES={spec!r}: bounds must increase from left to right.")
        classes.append(SizeClass(queue, limit))
        previous = limit
    return classes


def gpu_queue_for_params(params: int | None, classes: list[SizeClass]) -> str:
    if params is not None:
        for size_class in classes:
            if size_class.below_params is None or params < size_class.below_params:
                return size_class.queue
    return classes[-1].queue


def gpu_queues(classes: list[SizeClass] | None = None) -> list[str]:
    from django.conf import settings

    return [c.queue for c in (classes or settings.GPU_QUEUE_CLASSES)]
