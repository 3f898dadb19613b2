"""May this GGUF file be evaluated? ``check_gguf`` answers with ``GGUFFacts`` or refuses with
``SubmissionRefused(code, message, hint)``, as ``checks.check_model`` does for a safetensors checkpoint.

A GGUF file is the unit that is pinned: a repo id, the file's path in it, the commit its revision resolves to and
the file's sha256 (the LFS object id the hub lists). Requests, none of them a download of the weights:

1. ``model_info`` (as ``check_model``): the commit sha, the file list, the card (license, ``base_model``), the gate
   and privacy flags;
2. ``paths-info`` of the file (and of the other parts of a split file, one request): sizes and sha256;
3. ranged GETs of the header: the first ``FIRST_READ`` bytes, more only while the header goes on (a vocabulary
   of 150,000 tokens is a few MB; each range twice the last), never past ``limits.max_bytes``. The parser asks for
   them as it goes and parses each byte once (``gguf_header``). It is also the access check of a gated repo.

It runs in the web process on an untrusted file, so the whole intake is bounded (``IntakeLimits``, issue 38): a
split file's part count, read from its name, is capped before the hub is asked (GGUF_TOO_MANY_PARTS); every hub
request is counted against a budget (GGUF_TOO_MANY_REQUESTS) and asked only before a deadline, which also caps each
request's timeout and each header's parse time (GGUF_INTAKE_TOO_SLOW); ``HeaderLimits.max_seconds`` is the parse
time of every part's header together (GGUF_HEADER_TOO_SLOW).

Checks, in order: the part count (GGUF_TOO_MANY_PARTS, GGUF_SPLIT_INCOMPLETE for a later part or a count of 0); the
file exists (GGUF_NOT_FOUND); every part exists (GGUF_SPLIT_INCOMPLETE); the size cap (GGUF_TOO_LARGE); the first
part's header reads (NOT_GGUF, GGUF_TRUNCATED, also when the file ends before its tensor data) within
``HeaderLimits`` (GGUF_HEADER_TOO_LARGE, GGUF_TOO_MANY_KEYS, GGUF_TOO_MANY_TENSORS, GGUF_ARRAY_TOO_LONG,
GGUF_HEADER_TOO_SLOW, GGUF_PARAMS_OUT_OF_RANGE) with an alignment llama.cpp accepts (GGUF_BAD_ALIGNMENT); a license
(NO_LICENSE: the card's, else the file's ``general.license``); the architecture is one llama.cpp runs
(GGUF_ARCH_UNSUPPORTED); the file has a tokenizer (GGUF_NO_TOKENIZER); it says it is the first of as many parts as
its name (GGUF_SPLIT_INCOMPLETE); its attention facts are what llama.cpp's loader reads, UINT32s within
``KV_BOUNDS`` (GGUF_METADATA_OUT_OF_RANGE). Only then are the other parts' headers read, each checked the same way
and saying which part it is; last, ``general.file_type`` agrees with the weights' types (GGUF_QUANT_MISMATCH,
``gguf_quant``). The facts' text is storable: NUL replaced, at most ``TEXT_MAX`` characters.

The intake's bounds are ``gguf_intake_limits``; what the header's metadata says, and its checks, ``gguf_metadata``.

Pure module: no Django, no settings; the caller passes the limits.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import asdict, dataclass, field, replace

from .checks import NETWORK_HINT, _public_model_info, _refusing
from .client import HubClient
from .errors import (
    GGUF_ARRAY_TOO_LONG, GGUF_BAD_ALIGNMENT, GGUF_HEADER_TOO_LARGE, GGUF_HEADER_TOO_SLOW, GGUF_NOT_FOUND,
    GGUF_PARAMS_OUT_OF_RANGE, GGUF_TOO_LARGE, GGUF_TOO_MANY_KEYS, GGUF_TOO_MANY_TENSORS, GGUF_TRUNCATED,
    HUB_UNAVAILABLE, NO_LICENSE, NOT_GGUF, SubmissionRefused,
)
from .facts import human_count, license_of
from .gguf_header import (
    DEFAULT_LIMITS, INT64_MAX, GGUFHeader, HeaderLimits, HeaderOverLimit, HeaderUnreadable, MoreBytesNeeded,
    parse_header,
)
from .gguf_intake_limits import DEFAULT_INTAKE, IntakeBudget, IntakeLimits, part_count, part_names
from .gguf_metadata import (
    _RECONVERT, HF_URL, KV_BOUNDS, KV_KEYS, RUNNABLE_ARCHITECTURES, TEXT_MAX, UINT32_MAX, _architecture,
    _base_model, _check_kv, _check_part, _clean, _int, _quantization, _text, _tokenizer, kv_facts,
)
from .ids import ModelRef

# What other modules import from here, the names moved to gguf_intake_limits and gguf_metadata included.
__all__ = ["DEFAULT_INTAKE", "FIRST_READ", "HF_URL", "KV_BOUNDS", "KV_KEYS", "NON_LFS_MAX_BYTES", "RUNNABLE_ARCHITECTURES",
           "TEXT_MAX", "UINT32_MAX", "GGUFFacts", "GGUFPart", "IntakeLimits", "check_gguf", "kv_facts"]

FIRST_READ = 1 << 20
NON_LFS_MAX_BYTES = 10 << 20  # the hub keeps files over 10 MB in LFS: a smaller one is read whole to hash it
_clock = time.monotonic  # the intake's deadline is on this clock (a test moves it)
_cpu = time.thread_time  # the CPU time of parsing the parts' headers, all together


@dataclass(frozen=True)
class GGUFPart:
    file: str
    size: int
    sha256: str


@dataclass(frozen=True)
class GGUFFacts:
    """What the hub and the file's header say about one GGUF file at one commit; stored with the submission."""

    hub_id: str  # the repository
    gguf_file: str  # the path in it (the first part of a split file)
    revision: str
    revision_sha: str
    sha256: str  # of gguf_file: the pinned file
    size: int  # bytes, every part together
    parts: tuple  # GGUFPart of each file (one unless split), in order
    architecture: str  # general.architecture
    quantization: str  # general.file_type by llama.cpp's name ("Q4_K_M", "F16") once the tensors agree, else
    # the weights' main type (gguf_quant)
    params: int  # tensor elements, every part together: at most 2^63 - 1 (PostgreSQL's bigint)
    context_length: int | None  # <architecture>.context_length
    base_model: str | None  # hub id of the model it was made from
    base_model_source: str | None  # "gguf metadata" or "model card"
    tokenizer: str  # tokenizer.ggml.model ("llama", "gpt2", ...)
    vocab_size: int
    license: str
    name: str | None  # general.name
    size_label: str | None  # general.size_label ("1.2B")
    gguf_version: int
    # What the KV cache of a context costs (devices/phone_figures.kv_cache_bytes): <architecture>.block_count,
    # .embedding_length, .attention.head_count, .head_count_kv, .key_length, .value_length, .sliding_window, where the
    # header gives them as whole numbers (a per-layer array is left out)
    kv: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["parts"] = [asdict(p) for p in self.parts]
        return data


def check_gguf(ref: ModelRef, gguf_file: str, *, max_bytes: int, token: str | bool | None = None,
               limits: HeaderLimits = DEFAULT_LIMITS, intake: IntakeLimits = DEFAULT_INTAKE, timeout: float = 15.0,
               client=None) -> GGUFFacts:
    """May the GGUF file ``gguf_file`` of ``ref`` (a validated id and revision) be evaluated? ``max_bytes``: the
    size cap of the file (all its parts); ``limits``: what a part's header may cost (its parse time: every part's
    together); ``intake``: what the whole check may cost. ``client``: what answers in the hub's place (HubClient's
    model_info, files_info, read_range, read_file), e.g. the demo's local copy of a published file
    (leaderboard/demo/local_hub.py); the hub itself by default."""
    count = part_count(ref, gguf_file, intake)  # before any request: the name alone says how many parts
    client = IntakeBudget(client or HubClient(token=token, timeout=timeout), intake, f"{gguf_file} in {ref.hub_id}",
                          clock=_clock)
    info = _public_model_info(client, ref)
    sha = info.sha
    where = f"{gguf_file} in {ref.hub_id} at {sha[:12]}"
    files = {sibling.rfilename for sibling in info.siblings or []}
    _require_file(ref, sha, gguf_file, files)
    names = part_names(gguf_file, count, files, where)
    with _refusing(client, ref, gate_mode=info.gated):
        listing = client.files_info(ref.hub_id, names, sha)
    size = sum(listing[name][0] for name in names)
    if size > max_bytes:
        raise SubmissionRefused(
            GGUF_TOO_LARGE, f"{where} is {_gb(size)}, over the cap of {_gb(max_bytes)} for a GGUF file",
            "submit a smaller quantization of the model (Q4_K_M or Q4_0 is about a quarter of its 16-bit size), "
            "or a smaller model")
    # The first part alone first: what it says decides whether the others are worth a request.
    header = _header(client, ref, info, gguf_file, listing[gguf_file][0], where, limits)
    license_id = license_of(info)[0] or _text(header, "general.license")
    if not license_id:
        raise SubmissionRefused(NO_LICENSE, f"neither the model card of {ref.hub_id} at {sha[:12]} nor "
                                            f"{gguf_file} declares a license",
                                "add a license to the YAML metadata at the top of README.md (e.g. "
                                "'license: apache-2.0') and submit that revision")
    architecture = _architecture(header, where)
    tokenizer, vocab = _tokenizer(header, where)
    _check_part(header, 0, names, where)
    _check_kv(header, architecture, where)
    headers = {gguf_file: header}
    for index, name in enumerate(names[1:], start=1):
        part = f"{name} (part {index + 1} of {len(names)}) in {ref.hub_id} at {sha[:12]}"
        headers[name] = _header(client, ref, info, name, listing[name][0], part, limits)
        _check_part(headers[name], index, names, where)
    tensors = [t for h in headers.values() for t in h.tensors]
    params = sum(t.elements for t in tensors)
    if params > INT64_MAX:  # each tensor's data lies in the file, so only a corrupt header gets here
        raise SubmissionRefused(GGUF_PARAMS_OUT_OF_RANGE, f"the tensors of {where} hold {params:,} values, more "
                                                          "than 2^63 - 1", _RECONVERT)
    quant = _quantization(tensors, header, where)
    base_model, source = _base_model(header, info)
    parts = tuple(GGUFPart(name, listing[name][0], listing[name][1] or _sha256(client, ref, sha, name))
                  for name in names)
    return GGUFFacts(
        hub_id=ref.hub_id, gguf_file=gguf_file, revision=ref.revision, revision_sha=sha, sha256=parts[0].sha256,
        size=size, parts=parts, architecture=architecture, quantization=quant, params=params,
        context_length=_int(header, f"{architecture}.context_length"), base_model=base_model,
        base_model_source=source, tokenizer=tokenizer, vocab_size=vocab, license=_clean(license_id),
        name=_text(header, "general.name"), size_label=_text(header, "general.size_label"),
        gguf_version=header.version, kv=kv_facts(header, architecture))


def _require_file(ref: ModelRef, sha: str, gguf_file: str, files: set[str]) -> None:
    """The repository at ``sha`` has ``gguf_file`` (GGUF_NOT_FOUND, naming the GGUF files it has)."""
    if gguf_file in files:
        return
    others = sorted(f for f in files if f.endswith(".gguf"))
    listed = f"; its GGUF files are {', '.join(others[:6])}" + (" ..." if len(others) > 6 else "") \
        if others else "; it has no .gguf file"
    raise SubmissionRefused(GGUF_NOT_FOUND, f"{ref.hub_id} at {sha[:12]} has no file {gguf_file!r}{listed}",
                            "give the file's path in the repository exactly as 'Files and versions' shows it")


def _header(client: IntakeBudget, ref: ModelRef, info, name: str, size: int, where: str,
            limits: HeaderLimits) -> GGUFHeader:
    """The header of ``name``, read by ranges as the parser asks, never past ``limits.max_bytes``: NOT_GGUF,
    GGUF_TRUNCATED and the HeaderLimits codes; its parse time within what the parts before left of
    ``limits.max_seconds`` and of the intake's deadline. ``where``: the part, in messages."""

    def read_more(have: int, at_least: int) -> bytes:
        target = min(max(at_least, 2 * have, FIRST_READ), size, limits.max_bytes)
        with _refusing(client, ref, gate_mode=info.gated):
            return client.read_range(ref.hub_id, name, info.sha, start=have, end=target - 1)

    # limits.max_seconds is the parse time of every part's header together; CPU time never exceeds wall time, so
    # a parse stopped by what is left of the deadline means the deadline has passed
    left, cpu_left = client.left(), limits.max_seconds - client.parsed
    if left <= 0:
        raise client.too_slow()
    if cpu_left <= 0:
        raise _parts_too_slow(where, limits)
    started = _cpu()
    try:
        header = parse_header(b"", file_size=size, limits=replace(limits, max_seconds=min(cpu_left, left)),
                              read_more=read_more)
    except MoreBytesNeeded:
        raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub sent fewer bytes of {name} than asked",
                                NETWORK_HINT) from None
    except HeaderOverLimit as over:
        if over.code == GGUF_HEADER_TOO_SLOW and left < cpu_left:
            raise client.too_slow() from None
        if over.code == GGUF_HEADER_TOO_SLOW and cpu_left < limits.max_seconds:
            raise _parts_too_slow(where, limits) from None
        raise SubmissionRefused(over.code, f"{where}: {over.detail}", _LIMIT_HINTS[over.code]) from None
    except HeaderUnreadable as bad:
        raise _unreadable(bad, where) from None
    finally:
        client.parsed += _cpu() - started
    end = header.data_end()
    if end is not None and end > size:
        raise SubmissionRefused(GGUF_TRUNCATED, f"{where} ends at byte {size:,}, before its tensor data does "
                                                f"(byte {end:,}): the upload is incomplete",
                                "upload the whole file again and submit that revision")
    return header


def _parts_too_slow(where: str, limits: HeaderLimits) -> SubmissionRefused:
    return SubmissionRefused(GGUF_HEADER_TOO_SLOW, f"{where}: reading the headers of its parts took over "
                                                   f"{limits.max_seconds:g} s of CPU time together",
                             _LIMIT_HINTS[GGUF_HEADER_TOO_SLOW])


_LIMIT_HINTS = {
    GGUF_HEADER_TOO_LARGE: "no model file's header is this large (a 262,144-token vocabulary takes a few MB): "
                           + _RECONVERT,
    GGUF_TOO_MANY_KEYS: "a converted model has tens to a few hundred metadata keys: " + _RECONVERT,
    GGUF_TOO_MANY_TENSORS: "split the model with llama.cpp's gguf-split, or " + _RECONVERT,
    GGUF_ARRAY_TOO_LONG: "a vocabulary and its merges are under a million strings each: " + _RECONVERT,
    GGUF_HEADER_TOO_SLOW: "a converted model's header reads in well under a second: " + _RECONVERT,
    GGUF_PARAMS_OUT_OF_RANGE: _RECONVERT,
    GGUF_BAD_ALIGNMENT: _RECONVERT,
}


def _unreadable(bad: HeaderUnreadable, where: str) -> SubmissionRefused:
    if bad.truncated:
        return SubmissionRefused(GGUF_TRUNCATED, f"the GGUF header of {where} is cut short: {bad.detail}",
                                 "upload the whole file again (an interrupted upload leaves a short file) and "
                                 "submit that revision")
    return SubmissionRefused(NOT_GGUF, f"{where} is not a GGUF file llama.cpp can read: {bad.detail}",
                             "submit a .gguf file written by llama.cpp's convert_hf_to_gguf.py or llama-quantize; "
                             "to submit safetensors weights, leave the GGUF file out")


def _sha256(client: HubClient, ref: ModelRef, sha: str, name: str) -> str:
    """A file the hub keeps in git, not LFS (under 10 MB): read whole and hashed."""
    with _refusing(client, ref):
        data = client.read_file(ref.hub_id, name, sha, max_bytes=NON_LFS_MAX_BYTES)
    return hashlib.sha256(data or b"").hexdigest()


def _gb(size: int) -> str:
    return f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{human_count(size)}B"
