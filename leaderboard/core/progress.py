"""Progress bars for long management commands (stderr, so stdout stays parseable)."""
import sys


def tqdm_progress(*, enabled=True):
    from tqdm import tqdm

    def progress(iterable, description="", total=None):
        return tqdm(iterable, desc=description, total=total, file=sys.stderr, disable=not enabled,
                    leave=False, unit="item")

    return progress


class CountProgressBar:
    """A bar fed with (done, total) callbacks, as the evaluation and judging engines report progress."""

    def __init__(self, *, enabled=True, label="", unit="item"):
        from tqdm import tqdm

        self.bar = tqdm(total=0, desc=label, unit=unit, file=sys.stderr, disable=not enabled, leave=False)

    def update(self, done, total):
        self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.bar.close()
