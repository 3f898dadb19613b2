"""The results generation: one token that every cached view of results (API responses, rendered boards)
belongs to. Anything that changes what those views show (new aggregates, a question bank, a run or model hidden
or flagged) calls `results_changed()`; entries of an older generation are never served again.

It lives in core because writers of every app start a new generation (benchmarks, evaluations, results,
contamination, submissions) and readers above them (the results API cache, the page cache) check it.

The generation is a random token, not a counter: if the cache loses the key (eviction, restart) the next token
is new again, so an old entry can never look current.
"""
import logging
import math
import time
import uuid

from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)

GENERATION_KEY = "results:generation"


def _new_generation(previous=None):
    """A new token and its time. Last-Modified has 1 s resolution: when the previous generation began in
    the same second (or is unknown), a client's Last-Modified of that second may belong to either, so
    the generation is marked `ambiguous` and If-Modified-Since of that second is answered in full."""
    at = time.time()
    ambiguous = previous is None or math.floor(previous["at"]) == math.floor(at)
    return {"token": uuid.uuid4().hex, "at": at, "ambiguous": ambiguous}


def _bump():
    try:
        cache.set(GENERATION_KEY, _new_generation(cache.get(GENERATION_KEY)), None)
    except Exception:  # a cache outage must not fail the write that triggered it
        log.exception("could not start a new results cache generation")


def results_changed():
    """Call wherever results, or their visibility or flags, change.

    Bumps now (this process, and a test inside one transaction, see it at once) and again after
    the surrounding transaction commits, so an entry filled from pre-commit data in between is
    dropped as well. Outside a transaction both happen at once.
    """
    _bump()
    transaction.on_commit(_bump)


def generation():
    """The current generation ({token, at, ambiguous}), started here if the cache has none."""
    current = cache.get(GENERATION_KEY)
    if current is None:
        cache.add(GENERATION_KEY, _new_generation(), None)
        current = cache.get(GENERATION_KEY) or _new_generation()
    return current
