"""Per-board caching of page data that reads across all of a board's models.

An entry belongs to the results cache's generation (bumped by results_changed(): new results,
admin hides and flags) and to a fingerprint of the board's results (their count and newest row),
so it is not served after the board changed. A cache outage makes pages slower, never broken.
"""
import hashlib
import logging

from django.conf import settings
from django.core.cache import cache

from leaderboard.results.cache import generation

from . import selectors

log = logging.getLogger(__name__)


def board_cached(name, *, benchmark, split, shots, build):
    """build() once per board state; name tells apart the kinds of data (and their arguments)."""
    try:
        fingerprint = selectors.board_fingerprint(benchmark=benchmark, split=split, shots=shots)
        token = generation()["token"]
        key = "frontend:" + hashlib.sha256(
            f"{name}|{benchmark.slug}|{split}|{shots}|{token}|{fingerprint}".encode()).hexdigest()
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
    return data
