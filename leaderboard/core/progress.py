"""Progress bars for long management commands (stderr, so stdout stays parseable)."""
import sys


def tqdm_progress(*, enabled=True):
    from tqdm import tqdm

    def progress(iterable, description="", total=None):
        return tqdm(iterable, desc=description, total=total, file=sys.stderr, disable=not enabled,
                    leave=False, unit="item")

    return progress
