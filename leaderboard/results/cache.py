"""Response cache of the results and contamination APIs, with ETag / Last-Modified and 304s.

Entries are keyed by path + sorted query + negotiated media type (a parameter the view does not declare
never gets here: core.api.BaseApi refuses it, so `?zz=<random>` cannot make new entries) and belong to one results
*generation* (leaderboard/core/cache_generation.py). Anything that changes what these responses show
(new aggregates, a run or model hidden or flagged) calls `results_changed()`, which starts a new
generation: entries of an older one are never served again (they expire on their own). The ETag is
derived from the generation, so a conditional request is answered with 304 before any database read.

Each process also keeps the bodies it served last in memory (RESULTS_CACHE_LOCAL_BYTES), checked
against the current generation like the shared entries: a hit then costs one small cache read
instead of moving a multi-megabyte CSV out of Redis on every request.

Stale-while-revalidate: an entry's key does not name its generation, so after a published run the previous
entry is still there. While it belongs to the current epoch (no hide or flag since: cache_generation.py), a
request that misses is answered with it at once, marked `X-Board-Updating: 1`, with the ETag and Last-Modified of
the generation it was built in (never the new one's); the first such request per key recomputes after its
response is sent, the others just read. A process answers from its own last entry when it has one (no shared read
on a reader's time), so its first reader after another process's recompute may still be told it is updating.
"""
import functools
import hashlib
import logging
import math
import threading
from collections import OrderedDict
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, StreamingHttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from leaderboard.core.cache_generation import generation, in_request, note_stale, revalidate_later

log = logging.getLogger(__name__)

ENTRY_PREFIX = "results:response:"
CACHEABLE_FORMATS = frozenset({"json", "csv"})  # never the browsable API page (it shows the user's session)
KEPT_HEADERS = ("Content-Disposition",)
UPDATING_HEADER = "X-Board-Updating"  # on a previous entry served while the current one is recomputed


def _timeout():
    return settings.RESULTS_CACHE_SECONDS


def _max_bytes():
    return settings.RESULTS_CACHE_MAX_BYTES


class _LocalEntries:
    """A small per-process LRU of entries, bounded in bytes; entries carry their generation token."""

    def __init__(self):
        self.entries, self.size, self.lock = OrderedDict(), 0, threading.Lock()

    def get(self, key, token):
        with self.lock:
            entry = self.entries.get(key)
            if entry is None or entry["generation"] != token:
                return None
            self.entries.move_to_end(key)
            return entry

    def last(self, key):
        """The entry of `key` whatever its generation (a candidate to serve stale)."""
        with self.lock:
            return self.entries.get(key)

    def put(self, key, entry):
        budget = settings.RESULTS_CACHE_LOCAL_BYTES
        with self.lock:
            old = self.entries.pop(key, None)
            self.size -= len(old["body"]) if old else 0
            if len(entry["body"]) > budget:
                return
            self.entries[key] = entry
            self.size += len(entry["body"])
            while self.size > budget:
                _, dropped = self.entries.popitem(last=False)
                self.size -= len(dropped["body"])


_local = _LocalEntries()


def _request_key(request, media_type):
    query = urlencode(sorted((k, v) for k, values in request.query_params.lists() for v in values))
    digest = hashlib.sha256(f"{request.path}?{query}|{media_type}".encode()).hexdigest()
    return ENTRY_PREFIX + digest


def _etag(token, key):
    return 'W/"%s"' % hashlib.sha256(f"{token}{key}".encode()).hexdigest()[:32]


def _validators(response, *, etag, last_modified):
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    response["Cache-Control"] = "public, no-cache"  # may be stored, but revalidated (cheap 304) each time
    return response


def _tee_into_cache(chunks, key, entry):
    """Stream to the client and keep a copy; store it only if the whole body went out and fits."""
    parts, size, limit = [], 0, _max_bytes()
    for chunk in chunks:
        data = chunk if isinstance(chunk, bytes) else chunk.encode("utf-8")
        if parts is not None:
            size += len(data)
            if size > limit:
                parts = None
            else:
                parts.append(data)
        yield data
    if parts is not None:
        _store(key, {**entry, "body": b"".join(parts)})


def _store(key, entry):
    _local.put(key, entry)
    try:
        cache.set(key, entry, _timeout())
    except Exception:
        log.exception("could not cache a results response")


def _from_entry(entry):
    response = HttpResponse(entry["body"], content_type=entry["content_type"])
    for name, value in entry["headers"].items():
        response[name] = value
    return response


def _lookup(key, current):
    """(fresh, stale): the entry of the current generation, else (None, the last entry of the key if it may be
    served stale: same epoch). Inside a request, this process's own last entry of the epoch is served stale without
    reading the shared one (a round trip, and megabytes for a CSV): the recompute after the response reads it first."""
    entry = _local.get(key, current["token"])
    if entry is not None:
        return entry, None
    last = _local.last(key)
    if last is not None and last.get("epoch") == current["epoch"] and in_request():
        return None, last
    shared = None
    try:
        shared = cache.get(key)
    except Exception:
        log.exception("results cache unavailable; serving uncached")
    if shared is not None and shared.get("generation") == current["token"]:
        _local.put(key, shared)
        return shared, None
    candidates = [e for e in (shared, _local.last(key)) if e is not None and e.get("epoch") == current["epoch"]]
    return None, max(candidates, key=lambda e: e["at"], default=None)


def _conditional(request, response, *, etag, last_modified, ambiguous):
    """304 (or 412) when the client's copy is this one, else None; `response` gets the validators."""
    # Compared as one second later when ambiguous: If-Modified-Since of that very second gets a 200.
    compared = last_modified + 1 if ambiguous else last_modified
    _validators(response, etag=etag, last_modified=last_modified)
    conditional = get_conditional_response(request._request, etag=etag, last_modified=compared, response=response)
    return None if conditional is response else conditional


def _fill(get, view, request, args, kwargs, key, current):
    """Run the view and store its 200 response as the entry of `current` (a stream: once fully sent)."""
    response = get(view, request, *args, **kwargs)
    if response.status_code != 200:
        return response
    entry = {"generation": current["token"], "epoch": current["epoch"], "at": current["at"],
             "ambiguous": current.get("ambiguous", True),
             "headers": {h: response[h] for h in KEPT_HEADERS if h in response}}
    if isinstance(response, StreamingHttpResponse):
        entry["content_type"] = response["Content-Type"]
        response.streaming_content = _tee_into_cache(response.streaming_content, key, entry)
    else:
        response = view.finalize_response(request, response, *args, **kwargs)
        response.render()
        entry["content_type"] = response["Content-Type"]
        if len(response.content) <= _max_bytes():
            _store(key, {**entry, "body": response.content})
    return response


def cached_get(get):
    """Decorate an APIView.get: 200 JSON/CSV responses cached for the current generation, with validators.

    Runs after DRF's authentication, throttling and content negotiation, so the negotiated media
    type (which also carries parameters such as `indent`) is part of the key.
    """

    @functools.wraps(get)
    def wrapper(view, request, *args, **kwargs):
        media_type = getattr(request, "accepted_media_type", "")
        if getattr(request.accepted_renderer, "format", "") not in CACHEABLE_FORMATS:
            return get(view, request, *args, **kwargs)
        key = _request_key(request, media_type)
        try:
            current = generation()
        except Exception:
            log.exception("results cache unavailable; serving uncached")
            return get(view, request, *args, **kwargs)
        etag, last_modified = _etag(current["token"], key), math.floor(current["at"])
        conditional = _conditional(request, HttpResponse(), etag=etag, last_modified=last_modified,
                                   ambiguous=current.get("ambiguous", True))
        if conditional is not None:  # 304 (or 412 for a failed If-Match)
            return conditional

        entry, stale = _lookup(key, current)
        if entry is not None:
            return _validators(_from_entry(entry), etag=etag, last_modified=last_modified)

        def recompute():
            latest = generation()
            if _lookup(key, latest)[0] is None:  # another process may have done it
                response = _fill(get, view, request, args, kwargs, key, latest)
                if response.streaming:
                    for _ in response.streaming_content:  # the tee stores it once the stream ends
                        pass

        if stale is not None and revalidate_later(key, recompute):
            old = {"etag": _etag(stale["generation"], key), "last_modified": math.floor(stale["at"])}
            response = _from_entry(stale)
            response = _conditional(request, response, **old, ambiguous=stale["ambiguous"]) or response
            response[UPDATING_HEADER] = "1"
            note_stale(stale["at"])
            return response

        response = _fill(get, view, request, args, kwargs, key, current)
        if response.status_code != 200:
            return response
        return _validators(response, etag=etag, last_modified=last_modified)

    return wrapper
