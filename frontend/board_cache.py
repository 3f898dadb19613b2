"""Per-board caching of page data that reads across all of a board's models.

An entry belongs to the results cache's generation (bumped by results_changed(): new results,
admin hides and flags) and to a fingerprint of the board's results (their count and newest row),
so it is never served as current after the board changed. A cache outage makes pages slower, never broken.

Each process also keeps the few entries it used last (keyed the same way, so never stale): a board of
10,000 models is megabytes of rows, which would otherwise cross from the shared cache on every request.
`local=True` entries live only there (what is cheap to rebuild from a cached entry, such as one filter
state's ranks, and too big to send to the shared cache per filter). Entries are shared between requests:
callers must not modify what they get.

Stale-while-revalidate (see leaderboard/core/cache_generation.py): each kind of data of a board keeps a pointer
to its last entry. After a published run (same epoch: no hide or flag since), a request that misses is given that
entry at once and the page says it is updating (the {% board_updating %} tag); the first such request per
board and kind recomputes it after its response is sent, in the order they were met, so what one kind reads from
another is fresh by then. Once a request has been given a board's previous data, the rest of that board's data in
the request is read (and what it builds stored) as of that previous state, so the page is consistent and a
filter's ranks cached then are reused; data built from stale data of another board is not stored. The request that
recomputes a board also rebuilds, after the recompute, the local entries it read (`refresh`: one filter state's ranks),
so this process's next reader, given the new state, finds them built rather than building them on its own time. A
process that has the board's previous state in memory serves it (as stale) rather than read the new one from the
shared cache on a reader's time (megabytes at 10,000 models, then ranked): the recompute after the response loads it
when another process has built it.
"""
import hashlib
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial

from django.conf import settings
from django.core.cache import cache

from leaderboard.core.cache_generation import (after_response, generation, in_request, note_stale, per_generation,
                                                 recomputing, request_memo, revalidate_later, stale_count)

from . import selectors

log = logging.getLogger(__name__)
LOCAL_ENTRIES = 6  # a 10,000-model board's rows are ~15 MB in memory


class _Recent:
    def __init__(self):
        self.entries, self.lock, self.last = OrderedDict(), threading.Lock(), {}

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

    def point(self, board, pointer):
        """Note `pointer` ({key, epoch, state, at}) as this process's last entry of a board's kind."""
        with self.lock:
            self.last[board] = pointer

    def pointed(self, board):
        """(pointer, its data if still kept) of this process's last entry of a board's kind."""
        with self.lock:
            pointer = self.last.get(board)
            return (pointer, self.entries.get(pointer["key"])) if pointer else (None, None)


_recent = _Recent()


POINTER = "frontend:last:"


@dataclass(frozen=True)
class BoardState:
    text: str  # names the board, the results generation (and epoch) and the fingerprint
    epoch: str


def board_state(*, benchmark, split, shots):
    """A token of the board's current state (results generation and fingerprint), or None when the cache is
    unavailable. One per request is enough: pass it to board_cached as `state`."""
    try:
        fingerprint = selectors.board_fingerprint(benchmark=benchmark, split=split, shots=shots)
        current = generation()
        return BoardState(f"{benchmark.slug}|{split}|{shots}|{current['token']}|{fingerprint}", current["epoch"])
    except Exception:
        log.exception("page cache unavailable")
        return None


def _key(name, state):
    return "frontend:" + hashlib.sha256(f"{name}|{state.text}".encode()).hexdigest()


def _pointer(key, state):
    return {"key": key, "epoch": state.epoch, "state": state.text, "at": time.time()}


def _store(board, key, state, data, local, *, pointer=True):
    if not local:
        try:
            cache.set(key, data, settings.RESULTS_CACHE_SECONDS)
            if pointer:
                cache.set(POINTER + board, _pointer(key, state), settings.RESULTS_CACHE_SECONDS)
        except Exception:
            log.exception("could not cache %s", board)
        if pointer:
            _recent.point(board, _pointer(key, state))
    _recent.put(key, data)


def _own_stale(board, key, state):
    """Like _stale, from this process's own last entry of the board's kind (no shared read, which for a board's rows
    is megabytes), when it has one of the same epoch."""
    pointer, data = _recent.pointed(board)
    if pointer is None or data is None or pointer["epoch"] != state.epoch or pointer["key"] == key:
        return None
    return data, pointer["at"], pointer["state"]


def _stale(board, key, state):
    """(data, built at, its state's text) of the board's last entry of this kind when it may be served stale, else
    None."""
    try:
        last = cache.get(POINTER + board)
        if not last or last["epoch"] != state.epoch or last["key"] == key:
            return None
        data = _recent.get(last["key"])
        data = cache.get(last["key"]) if data is None else data
    except Exception:
        log.exception("page cache unavailable")
        return None
    return None if data is None else (data, last["at"], last.get("state"))


def _recompute(name, board, *, benchmark, split, shots, build):
    """After the response: the entry of the board's state now, unless another process has stored it."""
    state = board_state(benchmark=benchmark, split=split, shots=shots)
    if state is None:
        return
    key = _key(name, state)
    data = cache.get(key)
    if data is None:
        _store(board, key, state, build(), local=False)
    else:  # another process recomputed it: this one keeps it too, for its next reader
        _recent.put(key, data)
        _recent.point(board, _pointer(key, state))


def _refresh(name, *, benchmark, split, shots, build):
    """After the response: this process's local entry of the board's state now, unless it has it already."""
    state = board_state(benchmark=benchmark, split=split, shots=shots)
    if state is not None and _recent.get(_key(name, state)) is None:
        _recent.put(_key(name, state), build())


def _revalidate(seen, board, recompute):
    """Serve the board's previous state; note when this request took on its recompute."""
    served = revalidate_later("frontend:" + board, recompute)
    seen["recomputing"] = seen.get("recomputing", False) or recomputing("frontend:" + board)
    return served


def generation_cached(name, build):
    """build() once per results generation, for data of no one board (a GGUF file's device table: device intake, hide
    and accept start a new generation); never served stale. Kept in this process too."""
    return per_generation(f"frontend|{name}", build, local=_recent)


def board_cached(name, *, benchmark, split, shots, build, local=False, state="", refresh=None):
    """build() once per board state; name tells apart the kinds of data (and their arguments). state: from
    board_state (read here when not given; None: build uncached).

    build() may run after the response (a stale entry's recompute): it must read what it needs itself (other
    board_cached data included, without a `state`), never capture data read before, which may have been stale.
    refresh: for a local entry, a build() of that kind (reads its own inputs), run after the response by a request
    that recomputes the board, once the recompute is done."""
    if state == "":
        state = board_state(benchmark=benchmark, split=split, shots=shots)
    if state is None:
        return build()
    identity, served = f"{benchmark.slug}|{split}|{shots}", request_memo().setdefault("stale_boards", {})
    current = served.get(identity, {}).get("state") is None
    if not current:  # this request shows the board's previous state: read the rest as of then
        state = BoardState(served[identity]["state"], state.epoch)
    key = _key(name, state)
    board = hashlib.sha256(f"{name}|{identity}".encode()).hexdigest()
    recompute = partial(_recompute, name, board, benchmark=benchmark, split=split, shots=shots, build=build)
    data = _recent.get(key)
    # A process that has the board's previous state serves it while it loads (or recomputes) the new one.
    stale = _own_stale(board, key, state) if data is None and current and not local and in_request() else None
    if data is None and not local and stale is None:
        try:
            data = cache.get(key)
        except Exception:
            log.exception("page cache unavailable; building %s uncached", name)
            return build()
        if data is not None:
            _recent.put(key, data)
            if current:
                _recent.point(board, _pointer(key, state))
    if not current and local and refresh is not None and served[identity].get("recomputing"):
        after_response(partial(_refresh, name, benchmark=benchmark, split=split, shots=shots, build=refresh))
    if data is not None:
        if not current and not local:  # as of the previous state: recomputed as well
            _revalidate(served[identity], board, recompute)
        return data
    if stale is None and not local and in_request():
        stale = _stale(board, key, state)
    if stale is not None:
        seen = served.get(identity, {"state": stale[2], "count": 0, "mixed": stale[2] is None})
        if _revalidate(seen, board, recompute):
            note_stale(stale[1])
            served.setdefault(identity, seen)
            seen["count"] += 1
            seen["mixed"] |= seen["state"] != stale[2]
            return stale[0]
    data = build()
    # Stored when nothing stale went into it, or only this board's data as of the one state it is keyed by.
    seen = served.get(identity)
    if not stale_count() or (not current and not seen["mixed"] and stale_count() == seen["count"]):
        _store(board, key, state, data, local, pointer=current)
    return data
