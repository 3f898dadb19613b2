"""The results generation: one token that every cached view of results (API responses, rendered boards)
belongs to. Anything that changes what those views show (new aggregates, a question bank, a run or model hidden
or flagged) calls `results_changed()`; entries of an older generation are never served as current again.

It lives in core because writers of every app start a new generation (benchmarks, evaluations, results,
contamination, submissions) and readers above them (the results API cache, the page cache) check it.

The generation is a random token, not a counter: if the cache loses the key (eviction, restart) the next token
is new again, so an old entry can never look current.

Stale-while-revalidate. A published run only adds to the boards, so until its board is recomputed a reader may
be shown the previous one, marked as updating: `results_changed(stale_ok=True)` (results.services is its only
caller). Every other change (a hide, a flag, an admin edit, δ₀, a question bank or its hashes) must show at once:
it also starts a new *epoch*, and an entry is served stale only within the epoch it was built in. The epoch has a
key of its own, so a concurrent publish (which writes only the generation key) can never undo a hide's epoch.
`revalidate_later` takes one lock per cache key and runs the recompute after the response has been sent;
`after_response` runs more work of this process after it (what it derives from the recomputed data).
"""
import functools
import hashlib
import logging
import math
import threading
import time
import uuid

from django.conf import settings
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import transaction

log = logging.getLogger(__name__)

GENERATION_KEY = "results:generation"
EPOCH_KEY = "results:epoch"
LOCK_PREFIX = "results:revalidating:"
LOCK_SECONDS = 300  # far longer than a recompute (about 2 s at 10,000 models); a crashed holder's lock expires


def _new_generation(previous=None):
    """A new token and its time. Last-Modified has 1 s resolution: when the previous generation began in
    the same second (or is unknown), a client's Last-Modified of that second may belong to either, so
    the generation is marked `ambiguous` and If-Modified-Since of that second is answered in full."""
    at = time.time()
    ambiguous = previous is None or math.floor(previous["at"]) == math.floor(at)
    return {"token": uuid.uuid4().hex, "at": at, "ambiguous": ambiguous}


def _bump(stale_ok=False):
    try:
        if not stale_ok:  # first: a reader never pairs the new generation with the old epoch
            cache.set(EPOCH_KEY, uuid.uuid4().hex, None)
        cache.set(GENERATION_KEY, _new_generation(cache.get(GENERATION_KEY)), None)
    except Exception:  # a cache outage must not fail the write that triggered it
        log.exception("could not start a new results cache generation")


def results_changed(*, stale_ok=False):
    """Call wherever results, or their visibility or flags, change.

    Bumps now (this process, and a test inside one transaction, see it at once) and again after
    the surrounding transaction commits, so an entry filled from pre-commit data in between is
    dropped as well. Outside a transaction both happen at once.

    stale_ok: the change only adds results (a published run), so readers may be shown the previous board,
    marked as updating, while one request recomputes it. Never for hides, flags or anything sealed.
    """
    _bump(stale_ok)
    transaction.on_commit(functools.partial(_bump, stale_ok))


def generation():
    """The current generation: {token, at, ambiguous, epoch}, started here if the cache has none. The token
    names the epoch too, so whatever is keyed or validated by it changes with either."""
    values = cache.get_many([GENERATION_KEY, EPOCH_KEY])
    current, epoch = values.get(GENERATION_KEY), values.get(EPOCH_KEY)
    if current is None:  # lost (eviction, restart): what changed meanwhile is unknown, so a new epoch as well
        epoch = uuid.uuid4().hex
        cache.set(EPOCH_KEY, epoch, None)
        cache.add(GENERATION_KEY, _new_generation(), None)
        current = cache.get(GENERATION_KEY) or _new_generation()
    elif epoch is None:
        cache.add(EPOCH_KEY, uuid.uuid4().hex, None)
        epoch = cache.get(EPOCH_KEY) or uuid.uuid4().hex
    return {**current, "token": f"{epoch}.{current['token']}", "epoch": epoch}


PER_GENERATION_PREFIX = "results:derived:"


def per_generation(name, build, *, local=None):
    """build()'s value, built once per results generation and shared by every process through the cache: data of no
    one board state (a GGUF file's device table), or derived from a whole board, that many pages each need a little
    of (a model's flag). Keyed by the full token, so never served stale, not even after a published run; a cache
    outage builds it on every call. `local`: a process's own store (get(key), put(key, value)) tried first."""
    try:
        key = PER_GENERATION_PREFIX + hashlib.sha256(f"{name}|{generation()['token']}".encode()).hexdigest()
        value = local.get(key) if local is not None else None
        value = cache.get(key) if value is None else value
    except Exception:
        log.exception("results cache unavailable; building %s", name)
        return build()
    if value is None:
        value = build()
        try:
            cache.set(key, value, settings.RESULTS_CACHE_SECONDS)
        except Exception:
            log.exception("could not keep %s", name)
    if local is not None:
        local.put(key, value)
    return value


# --- stale-while-revalidate: one recompute per cache key, after the response ----------------------------------

_request = threading.local()  # per thread: inside a request or not, the recomputes it took on, stale entries served


def _pending():
    if not hasattr(_request, "pending"):
        _request.pending, _request.active, _request.stale, _request.memo = [], False, [], {}
    return _request.pending


def request_memo() -> dict:
    """A dict of this request's own (what a cache served it), emptied when a request starts and ends."""
    _pending()
    return _request.memo


def in_request() -> bool:
    """Inside a request (before its response is sent): the only place a stale entry may be served."""
    _pending()
    return _request.active


def note_stale(at):
    """A stale entry (of time `at`) went into this request's response."""
    _pending()
    _request.stale.append(at)


def stale_since():
    """The oldest stale entry's time that went into this request's response, None if none did."""
    _pending()
    return min(_request.stale, default=None)


def stale_count() -> int:
    _pending()
    return len(_request.stale)


def _release(lock):
    try:
        cache.delete(lock)
    except Exception:
        log.exception("could not release %s", lock)


def _request_started(**kwargs):
    for lock, _ in _pending():  # a request that never finished: its locks go, not only by expiry
        if lock is not None:
            _release(lock)
    _request.pending, _request.active, _request.stale, _request.memo = [], True, [], {}


def _request_finished(**kwargs):
    """Sent when the server closes the response, after its body went out: the recomputes run now, each
    uncontended (no stale reads inside: `_request.active` is off) and its lock released after."""
    pending = _pending()
    _request.pending, _request.active, _request.stale, _request.memo = [], False, [], {}
    for lock, recompute in pending:
        try:
            recompute()
        except Exception:
            log.exception("recomputing a cached board failed; the next reader retries")
        finally:
            if lock is not None:
                _release(lock)


request_started.connect(_request_started, dispatch_uid="results-cache-request-started")
request_finished.connect(_request_finished, dispatch_uid="results-cache-request-finished")


def recomputing(name) -> bool:
    """Has this request taken on the recompute of `name` (a cache key passed to revalidate_later)?"""
    return any(lock == LOCK_PREFIX + name for lock, _ in _pending())


def after_response(work):
    """Inside a request: run work() after its response is sent, after the recomputes it took on so far."""
    _pending().append((None, work))


def revalidate_later(name, recompute) -> bool:
    """May the caller serve its stale entry of `name` (a cache key) now? Only inside a request. The first
    caller per key takes its lock and has `recompute()` run after its response is sent; the others
    are told yes at once while the lock is held. Outside a request (a task, a command, a recompute) no:
    build it."""
    if not in_request():
        return False
    lock = LOCK_PREFIX + name
    try:
        if cache.add(lock, 1, LOCK_SECONDS):
            _pending().append((lock, recompute))
    except Exception:
        log.exception("results cache unavailable; serving the previous entry")
    return True
