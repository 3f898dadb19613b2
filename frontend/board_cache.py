"""Per-board caching of page data that reads across all of a board's models.

An entry belongs to the results cache's generation (bumped by results_changed(): new results,
admin hides and flags) and to a fingerprint of the board's results (their count and newest row),
so it is not served after the board changed. A cache outage makes pages slower, never broken.

Each process also keeps the few entries it used last (keyed the same way, so never stale): a board of
10,000 models is megabytes of rows, which would otherwise cross from the shared cache on every request.
Entries are shared between requests: callers must not modify what they get.
"""
import hashlib
import logging
import threading
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache

from leaderboard.results.cache import generation

from . import selectors

log = logging.getLogger(__name__)
LOCAL_ENTRIES = 8


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


def board_cached(name, *, benchmark, split, shots, build):
    """build() once per board state; name tells apart the kinds of data (and their arguments)."""
    try:
        fingerprint = selectors.board_fingerprint(benchmark=benchmark, split=split, shots=shots)
        token = generation()["token"]
        key = "frontend:" + hashlib.sha256(
            f"{name}|{benchmark.slug}|{split}|{shots}|{token}|{fingerprint}".encode()).hexdigest()
        data = _recent.get(key)
        if data is not None:
            return data
        data = cache.get(key)
    except Exception:
        log.exception("page cache unavailable; building %s uncached", name)
        return build()
    if data is None:
        data = build()
        try:
            cache.set(key, data, getattr(settings, "RESULTS_CACHE_SECONDS", 600))
        except Exception:
            log.exception("could not cache %s", name)
    _recent.put(key, data)
    return data
