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

Pure module: no Django, no settings; the caller passes the limits.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import asdict, dataclass, field, replace

import gguf

from evaluator.backends.gguf_file import SPLIT_NAME

from .checks import NETWORK_HINT, _public_model_info, _refusing
from .client import HubClient
from leaderboard.core.text import pg_text

from .errors import (
    GGUF_ARCH_UNSUPPORTED, GGUF_ARRAY_TOO_LONG, GGUF_BAD_ALIGNMENT, GGUF_HEADER_TOO_LARGE, GGUF_HEADER_TOO_SLOW,
    GGUF_INTAKE_TOO_SLOW, GGUF_METADATA_OUT_OF_RANGE, GGUF_NO_TOKENIZER, GGUF_NOT_FOUND, GGUF_PARAMS_OUT_OF_RANGE,
    GGUF_QUANT_MISMATCH, GGUF_SPLIT_INCOMPLETE, GGUF_TOO_LARGE, GGUF_TOO_MANY_KEYS, GGUF_TOO_MANY_PARTS,
    GGUF_TOO_MANY_REQUESTS, GGUF_TOO_MANY_TENSORS, GGUF_TRUNCATED, HUB_UNAVAILABLE, NO_LICENSE, NOT_GGUF,
    SubmissionRefused,
)
from .facts import human_count, license_of
from .gguf_header import (
    DEFAULT_LIMITS, INT64_MAX, ArrayValue, GGUFHeader, HeaderLimits, HeaderOverLimit, HeaderUnreadable,
    MoreBytesNeeded, parse_header, shown_value,
)
from .gguf_quant import QuantMismatch, quantization
from .ids import ModelRef

FIRST_READ = 1 << 20
TEXT_MAX = 200  # characters of a free-text fact kept (general.name, a license id, a tokenizer's name)
NON_LFS_MAX_BYTES = 10 << 20  # the hub keeps files over 10 MB in LFS: a smaller one is read whole to hash it
# The architectures the pinned llama.cpp runs: gguf-py's MODEL_ARCH_NAMES mirrors llama.cpp's llm_arch names (the
# gguf package is pinned to the gguf-py of the llama.cpp in requirements-llamacpp.txt). "clip" is left out: it is
# the vision encoder of a multimodal model (an mmproj file), which cannot answer questions on its own.
RUNNABLE_ARCHITECTURES = frozenset(gguf.MODEL_ARCH_NAMES.values()) - {"clip"}
HF_URL = re.compile(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/(?P<id>[\w.-]+/[\w.-]+)/?$")
_clock = time.monotonic  # the intake's deadline is on this clock (a test moves it)
_cpu = time.thread_time  # the CPU time of parsing the parts' headers, all together


@dataclass(frozen=True)
class IntakeLimits:
    """What one GGUF intake may cost, all its parts together (settings GGUF_MAX_PARTS, GGUF_MAX_HUB_REQUESTS,
    GGUF_INTAKE_SECONDS). llama.cpp's gguf-split writes a few dozen parts at most for the largest models; a part
    costs one request for its header (a first part with a large vocabulary a few more) and one to hash a part
    kept in git, not LFS; the web worker's timeout is 60 s."""

    max_parts: int = 64
    max_requests: int = 256  # model_info, paths-info, every ranged read and whole-file read
    max_seconds: float = 30.0  # wall-clock, from the first request to the last check


DEFAULT_INTAKE = IntakeLimits()


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
    together); ``intake``: what the whole check may cost. ``client``: what answers in the hub's place (HubClient's model_info, files_info, read_range,
    read_file), e.g. the demo's local copy of a published file (leaderboard/demo/local_hub.py); the hub itself by
    default."""
    count = _part_count(ref, gguf_file, intake)  # before any request: the name alone says how many parts
    client = _Budget(client or HubClient(token=token, timeout=timeout), intake, f"{gguf_file} in {ref.hub_id}")
    info = _public_model_info(client, ref)
    sha = info.sha
    where = f"{gguf_file} in {ref.hub_id} at {sha[:12]}"
    files = {sibling.rfilename for sibling in info.siblings or []}
    if gguf_file not in files:
        others = sorted(f for f in files if f.endswith(".gguf"))
        listed = f"; its GGUF files are {', '.join(others[:6])}" + (" ..." if len(others) > 6 else "") \
            if others else "; it has no .gguf file"
        raise SubmissionRefused(GGUF_NOT_FOUND, f"{ref.hub_id} at {sha[:12]} has no file {gguf_file!r}{listed}",
                                "give the file's path in the repository exactly as 'Files and versions' shows it")
    names = _part_names(gguf_file, count, files, where)
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


KV_KEYS = {"block_count": "block_count", "embedding_length": "embedding_length",
           "head_count": "attention.head_count", "head_count_kv": "attention.head_count_kv",
           "key_length": "attention.key_length", "value_length": "attention.value_length",
           "sliding_window": "attention.sliding_window"}


def kv_facts(header: GGUFHeader, architecture: str) -> dict:
    """The header's whole-number facts of the attention's cache (KV_KEYS), those it has."""
    facts = {name: _int(header, f"{architecture}.{key}") for name, key in KV_KEYS.items()}
    return {name: value for name, value in facts.items() if value is not None}


UINT32_MAX = (1 << 32) - 1
# What llama.cpp's loader accepts of each fact intake keeps (llama_model::load_hparams reads each into a uint32_t and
# refuses a key of any other type, "key ... has wrong type"): (least, most). Zero heads is an attention-free model
# (Mamba, RWKV), a zero window no sliding window; more than LLAMA_MAX_LAYERS (512) blocks fails its per-layer arrays;
# the other bounds are far past any model (embeddings of 16,384, heads of 576 values, contexts of 10M tokens) and
# keep the KV cache's figures (devices/phone_figures) finite in a bigint.
KV_BOUNDS = {"context_length": (1, (1 << 31) - 1), "block_count": (1, 512), "embedding_length": (1, 1 << 20),
             "head_count": (0, 1 << 16), "head_count_kv": (0, 1 << 16), "key_length": (1, 1 << 16),
             "value_length": (1, 1 << 16), "sliding_window": (0, (1 << 31) - 1)}
_PER_LAYER = ("head_count", "head_count_kv")  # llama.cpp also reads these as an array of a UINT32 per layer


def _check_kv(header: GGUFHeader, architecture: str, where: str) -> None:
    """Each fact of KV_BOUNDS the header has is a UINT32 within its bounds (GGUF_METADATA_OUT_OF_RANGE)."""
    for name, (least, most) in KV_BOUNDS.items():
        key = f"{architecture}.{KV_KEYS.get(name, name)}"
        if key not in header.metadata:
            continue
        value, kind = header.metadata[key], header.types.get(key)
        if kind == "ARRAY" and name in _PER_LAYER and value.item_type == "UINT32":
            continue  # one per layer: not kept as a fact (kv_facts leaves it out)
        if kind == "UINT32" and least <= value <= most:
            continue
        raise SubmissionRefused(
            GGUF_METADATA_OUT_OF_RANGE, f"{where}: its {key} is {kind} {shown_value(value)}; llama.cpp reads it as "
                                        f"a UINT32 and a model's is {least:,} to {most:,}", _RECONVERT)


# --- the steps --------------------------------------------------------------------------------------------

class _Budget:
    """The hub client of one intake: each request counted against ``intake.max_requests`` and asked only before
    the deadline (``intake.max_seconds`` from the start); the hub client's own timeout is cut to what is left."""

    def __init__(self, client, intake: IntakeLimits, what: str):
        self.client, self.intake, self.what, self.used, self.parsed = client, intake, what, 0, 0.0
        self.deadline = _clock() + intake.max_seconds
        self.hub, self.timeout = isinstance(client, HubClient), getattr(client, "timeout", None)

    def left(self) -> float:
        return self.deadline - _clock()

    def spend(self, requests: int = 1) -> None:
        if self.used + requests > self.intake.max_requests:
            raise SubmissionRefused(
                GGUF_TOO_MANY_REQUESTS, f"checking {self.what} takes more than the {self.intake.max_requests:,} hub "
                                        "requests one GGUF submission may make",
                "split the model into fewer parts (llama.cpp's gguf-split --split-max-size 4G or larger), or merge "
                "them (gguf-split --merge), and submit that revision")
        left = self.left()
        if left <= 0:
            raise self.too_slow()
        if self.hub:  # one request may not outlast the intake
            self.client.timeout = left if self.timeout is None else min(self.timeout, left)
        self.used += requests

    def too_slow(self) -> SubmissionRefused:
        return SubmissionRefused(
            GGUF_INTAKE_TOO_SLOW, f"checking {self.what} took over {self.intake.max_seconds:g} s, the time one "
                                  "GGUF submission may take",
            "try again in a few minutes (the hub may be slow); if it fails again, submit the file in fewer parts")

    def model_info(self, *args, **kwargs):
        self.spend()
        return self.client.model_info(*args, **kwargs)

    def files_info(self, *args, **kwargs):
        self.spend()
        return self.client.files_info(*args, **kwargs)

    def read_range(self, *args, **kwargs):
        self.spend()
        return self.client.read_range(*args, **kwargs)

    def read_file(self, *args, **kwargs):
        self.spend()
        return self.client.read_file(*args, **kwargs)

    def other_kind(self, hub_id: str) -> str | None:
        """Only a hint for a refusal (two requests at most): skipped when the budget or the time is spent."""
        if self.used + 2 > self.intake.max_requests or self.left() <= 0:
            return None
        self.used += 2
        return self.client.other_kind(hub_id)


def _part_count(ref: ModelRef, gguf_file: str, intake: IntakeLimits) -> int:
    """The parts a file's name says it has (1 unless ``stem-00001-of-00003.gguf``), refused unless it names the first
    of 1 to ``intake.max_parts``: before any request, so a name cannot make the hub be asked once per part."""
    match = SPLIT_NAME.match(gguf_file)
    if not match:
        return 1
    no, count = int(match["no"]), int(match["count"])
    where = f"{gguf_file} in {ref.hub_id}"
    if count > intake.max_parts:
        raise SubmissionRefused(
            GGUF_TOO_MANY_PARTS, f"{where} says it is split into {count:,} parts, more than the "
                                 f"{intake.max_parts:,} a GGUF submission may have",
            "merge the parts with llama.cpp's gguf-split --merge and split them again into fewer, larger ones "
            "(gguf-split --split-max-size 4G), and submit that revision")
    if not 1 <= no <= count:
        raise SubmissionRefused(GGUF_SPLIT_INCOMPLETE, f"{where} says it is part {no} of {count}",
                                "upload the parts exactly as llama.cpp's gguf-split wrote them, and submit that revision")
    return count


def _part_names(gguf_file: str, count: int, files: set[str], where: str) -> list[str]:
    """The files of a split GGUF (``stem-00001-of-00003.gguf`` ...), the first one named; else the file alone."""
    match = SPLIT_NAME.match(gguf_file)
    if not match:
        return [gguf_file]
    names = [f"{match['stem']}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]
    if gguf_file != names[0]:
        raise SubmissionRefused(GGUF_SPLIT_INCOMPLETE, f"{where} is part {int(match['no'])} of a split GGUF file",
                                f"submit its first part, {names[0]}: llama.cpp loads the others from beside it")
    missing = [name for name in names if name not in files]
    if missing:
        raise SubmissionRefused(
            GGUF_SPLIT_INCOMPLETE, f"{where} is split into {count} parts and the repository lacks "
                                   f"{len(missing)} of them: {', '.join(missing[:5])}"
                                   + (" ..." if len(missing) > 5 else ""),
            "upload every part llama.cpp's gguf-split wrote, in the same folder, and submit that revision")
    return names


def _header(client: _Budget, ref: ModelRef, info, name: str, size: int, where: str,
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


_RECONVERT = "convert the model again with llama.cpp's convert_hf_to_gguf.py (and llama-quantize), which never write this"
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


def _architecture(header: GGUFHeader, where: str) -> str:
    architecture = _text(header, "general.architecture")
    if architecture in RUNNABLE_ARCHITECTURES:
        return architecture
    found = f"the architecture {architecture!r}" if architecture else "no general.architecture"
    raise SubmissionRefused(
        GGUF_ARCH_UNSUPPORTED, f"{where} has {found}, which the pinned llama.cpp cannot run",
        f"llama.cpp runs {len(RUNNABLE_ARCHITECTURES)} architectures (the names of gguf-py's MODEL_ARCH_NAMES, "
        "e.g. llama, qwen2, gemma3, phi3): submit a file of one of them converted with convert_hf_to_gguf.py")


def _tokenizer(header: GGUFHeader, where: str) -> tuple[str, int]:
    model = _text(header, "tokenizer.ggml.model")
    tokens = header.metadata.get("tokenizer.ggml.tokens")
    count = tokens.count if isinstance(tokens, ArrayValue) else 0
    if model and count:
        return model, count
    missing = " and ".join(k for k, v in (("tokenizer.ggml.model", model), ("tokenizer.ggml.tokens", count))
                           if not v)
    raise SubmissionRefused(GGUF_NO_TOKENIZER, f"{where} has no tokenizer (no {missing} in its metadata)",
                            "the evaluator tokenizes with the file's own tokenizer: convert the model with "
                            "convert_hf_to_gguf.py from a folder that holds its tokenizer files")


def _check_part(header: GGUFHeader, index: int, names: list[str], where: str) -> None:
    """The part ``names[index]`` says it is that part of that many (split.no counts from 0); a file not split may
    leave both keys out."""
    no, count = _int(header, "split.no"), _int(header, "split.count")
    if (no, count) == (index, len(names)) or (len(names) == 1 and "split.count" not in header.metadata):
        return
    said = f"says it is part {no + 1 if no is not None else '?'} of {count}" if count is not None \
        else "has no split.count"
    raise SubmissionRefused(
        GGUF_SPLIT_INCOMPLETE, f"{names[index]} {said}, not part {index + 1} of {len(names)} as its name does "
                               f"({where})",
        "upload the parts exactly as llama.cpp's gguf-split wrote them, and submit that revision")


def _base_model(header: GGUFHeader, info) -> tuple[str | None, str | None]:
    """The hub id the file was made from: general.base_model.0.* in the file, else the card's base_model."""
    if (_int(header, "general.base_model.count") or 0) > 0:
        url = _text(header, "general.base_model.0.repo_url") or ""
        match = HF_URL.match(url)
        organization, name = _text(header, "general.base_model.0.organization"), _text(header,
                                                                                    "general.base_model.0.name")
        if match:
            return match["id"], "gguf metadata"
        if organization and name:
            return f"{organization}/{name}", "gguf metadata"
    card = {}
    if info.card_data is not None:
        card = info.card_data.to_dict() if hasattr(info.card_data, "to_dict") else dict(info.card_data)
    base = card.get("base_model")
    if isinstance(base, list):
        base = base[0] if base else None
    return (_clean(str(base)), "model card") if base else (None, None)


def _quantization(tensors, header: GGUFHeader, where: str) -> str:
    """The board's name of the file's type: general.file_type once its weights agree (GGUF_QUANT_MISMATCH)."""
    try:
        return quantization(tensors, _int(header, "general.file_type"))
    except QuantMismatch as bad:
        raise SubmissionRefused(
            GGUF_QUANT_MISMATCH, f"{where} says it is {bad.claimed} but its tensors are {bad.found}: {bad.detail}",
            f"quantize the model with llama.cpp's llama-quantize to the type you mean ({bad.claimed}), which writes "
            "general.file_type to match its tensors, and submit that revision") from None


def _sha256(client: HubClient, ref: ModelRef, sha: str, name: str) -> str:
    """A file the hub keeps in git, not LFS (under 10 MB): read whole and hashed."""
    with _refusing(client, ref):
        data = client.read_file(ref.hub_id, name, sha, max_bytes=NON_LFS_MAX_BYTES)
    return hashlib.sha256(data or b"").hexdigest()


def _text(header: GGUFHeader, key: str) -> str | None:
    value = header.metadata.get(key)
    return _clean(value) if isinstance(value, str) and value else None


def _clean(text: str | None) -> str | None:
    """Header text as it can be stored and shown: NUL (which PostgreSQL refuses) replaced, at most TEXT_MAX
    characters (a header may hold megabytes of text under any key)."""
    if not text:
        return text
    text = pg_text(text)
    return text if len(text) <= TEXT_MAX else text[:TEXT_MAX - 1] + "…"


def _int(header: GGUFHeader, key: str) -> int | None:
    value = header.metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _gb(size: int) -> str:
    return f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{human_count(size)}B"
