"""Per-board caching of page data that reads across all of a board's models.

An entry belongs to the results cache's generation (bumped by results_changed(): new results,
admin hides and flags) and to a fingerprint of the board's results (their count and newest row),
so it is not served after the board changed. A cache outage makes pages slower, never broken.

Each process also keeps the few entries it used last (keyed the same way, so never stale): a board of
10,000 models is megabytes of rows, which would otherwise cross from the shared cache on every request.
`local=True` entries live only there (what is cheap to rebuild from a cached entry, such as one filter
state's ranks, and too big to send to the shared cache per filter). Entries are shared between requests:
callers must not modify what they get.
"""
import hashlib
import logging
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache

from leaderboard.core.cache_generation import generation

from . import selectors

log = logging.getLogger(__name__)
LOCAL_ENTRIES = 6  # a 10,000-model board's rows are ~15 MB in memory


class _Recent:
    def __init__(self):
        self.entries, self.lock = OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.entries:
                self.entries.move_to_end(key)
                return self.entries[key]
        return None

    def put(self, key, data):
        with self.lock:
            self.entries[key] = data
            self.entries.move_to_end(key)
            while len(self.entries) > LOCAL_ENTRIES:
                self.entries.popitem(last=False)


_recent = _Recent()


def board_state(*, benchmark, split, shots):
    """A token of the board's current state (results generation and fingerprint), or None when the cache is
    unavailable. One per request is enough: pass it to board_cached as `state`."""
    try:
        fingerprint = selectors.board_fingerprint(benchmark=benchmark, split=split, shots=shots)
        return f"{benchmark.slug}|{split}|{shots}|{generation()['token']}|{fingerprint}"
    except Exception:
        log.exception("page cache unavailable")
        return None


def board_cached(name, *, benchmark, split, shots, build, local=False, state=""):
    """build() once per board state; name tells apart the kinds of data (and their arguments). state: from
    board_state (read here when not given; None: build uncached)."""
    if state == "":
        state = board_state(benchmark=benchmark, split=split, shots=shots)
    if state is None:
        return build()
    key = "frontend:" + hashlib.sha256(f"{name}|{state}".encode()).hexdigest()
    data = _recent.get(key)
    if data is not None:
        return data
    if not local:
        try:
            data = cache.get(key)
        except Exception:
            log.exception("page cache unavailable; building %s uncached", name)
            return build()
    if data is None:
        data = build()
        if not local:
            try:
                cache.set(key, data, settings.RESULTS_CACHE_SECONDS)
            except Exception:
                log.exception("could not cache %s", name)
    _recent.put(key, data)
    return data
