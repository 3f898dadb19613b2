"""May this GGUF file be evaluated? ``check_gguf`` answers with ``GGUFFacts`` or refuses with
``SubmissionRefused(code, message, hint)``, as ``checks.check_model`` does for a safetensors checkpoint.

A GGUF file is the unit that is pinned: a repo id, the file's path in it, the commit its revision resolves to and
the file's sha256 (the LFS object id the hub lists). Requests, none of them a download of the weights:

1. ``model_info`` (as ``check_model``): the commit sha, the file list, the card (license, ``base_model``), the gate
   and privacy flags;
2. ``paths-info`` of the file (and of the other parts of a split file): sizes and sha256;
3. ranged GETs of the header: the first ``FIRST_READ`` bytes, more only while the header goes on (a vocabulary
   of 150,000 tokens is a few MB), never past ``header_max_bytes``. It is also the access check of a gated repo.

Checks, in order: the file exists (GGUF_NOT_FOUND); a split file names its first part and every part exists
(GGUF_SPLIT_INCOMPLETE); the size cap (GGUF_TOO_LARGE); the header of each part reads (NOT_GGUF, GGUF_TRUNCATED,
also when the file ends before its tensor data); a license (NO_LICENSE: the card's, else the file's
``general.license``); the architecture is one llama.cpp runs (GGUF_ARCH_UNSUPPORTED); the file has a tokenizer (GGUF_NO_TOKENIZER).

Pure module: no Django, no settings; the caller passes the limits.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass

import gguf

from evaluator.backends.gguf_file import SPLIT_NAME

from .checks import NETWORK_HINT, _public_model_info, _refusing
from .client import HubClient
from .errors import (
    GGUF_ARCH_UNSUPPORTED, GGUF_NO_TOKENIZER, GGUF_NOT_FOUND, GGUF_SPLIT_INCOMPLETE, GGUF_TOO_LARGE, GGUF_TRUNCATED,
    HUB_UNAVAILABLE, NO_LICENSE, NOT_GGUF, SubmissionRefused,
)
from .facts import human_count, license_of
from .gguf_header import ArrayValue, GGUFHeader, HeaderUnreadable, MoreBytesNeeded, parse_header
from .ids import ModelRef

FIRST_READ = 1 << 20
DEFAULT_HEADER_MAX_BYTES = 64 << 20
NON_LFS_MAX_BYTES = 10 << 20  # the hub keeps files over 10 MB in LFS: a smaller one is read whole to hash it
# The architectures the pinned llama.cpp runs: gguf-py's MODEL_ARCH_NAMES mirrors llama.cpp's llm_arch names (the
# gguf package is pinned to the gguf-py of the llama.cpp in requirements-llamacpp.txt). "clip" is left out: it is
# the vision encoder of a multimodal model (an mmproj file), which cannot answer questions on its own.
RUNNABLE_ARCHITECTURES = frozenset(gguf.MODEL_ARCH_NAMES.values()) - {"clip"}
HF_URL = re.compile(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/(?P<id>[\w.-]+/[\w.-]+)/?$")


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
    quantization: str  # general.file_type by llama.cpp's name ("Q4_K_M", "F16"), else the tensors' main type
    params: int  # tensor elements, every part together
    context_length: int | None  # <architecture>.context_length
    base_model: str | None  # hub id of the model it was made from
    base_model_source: str | None  # "gguf metadata" or "model card"
    tokenizer: str  # tokenizer.ggml.model ("llama", "gpt2", ...)
    vocab_size: int
    license: str
    name: str | None  # general.name
    size_label: str | None  # general.size_label ("1.2B")
    gguf_version: int

    def as_dict(self) -> dict:
        data = asdict(self)
        data["parts"] = [asdict(p) for p in self.parts]
        return data


def check_gguf(ref: ModelRef, gguf_file: str, *, max_bytes: int, token: str | bool | None = None,
               header_max_bytes: int = DEFAULT_HEADER_MAX_BYTES, timeout: float = 15.0) -> GGUFFacts:
    """May the GGUF file ``gguf_file`` of ``ref`` (a validated id and revision) be evaluated? ``max_bytes``: the
    size cap of the file (all its parts)."""
    client = HubClient(token=token, timeout=timeout)
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
    names = _part_names(gguf_file, files, where)
    with _refusing(client, ref, gate_mode=info.gated):
        listing = client.files_info(ref.hub_id, names, sha)
    size = sum(listing[name][0] for name in names)
    if size > max_bytes:
        raise SubmissionRefused(
            GGUF_TOO_LARGE, f"{where} is {_gb(size)}, over the cap of {_gb(max_bytes)} for a GGUF file",
            "submit a smaller quantization of the model (Q4_K_M or Q4_0 is about a quarter of its 16-bit size), "
            "or a smaller model")
    headers = {name: _header(client, ref, info, name, listing[name][0], where, header_max_bytes) for name in names}
    header = headers[gguf_file]
    license_id = license_of(info)[0] or _text(header, "general.license")
    if not license_id:
        raise SubmissionRefused(NO_LICENSE, f"neither the model card of {ref.hub_id} at {sha[:12]} nor "
                                            f"{gguf_file} declares a license",
                                "add a license to the YAML metadata at the top of README.md (e.g. "
                                "'license: apache-2.0') and submit that revision")
    architecture = _architecture(header, where)
    tokenizer, vocab = _tokenizer(header, where)
    _check_parts(headers, names, where)
    base_model, source = _base_model(header, info)
    parts = tuple(GGUFPart(name, listing[name][0], listing[name][1] or _sha256(client, ref, sha, name))
                  for name in names)
    return GGUFFacts(
        hub_id=ref.hub_id, gguf_file=gguf_file, revision=ref.revision, revision_sha=sha, sha256=parts[0].sha256,
        size=size, parts=parts, architecture=architecture, quantization=_quantization(header),
        params=sum(t.elements for h in headers.values() for t in h.tensors),
        context_length=_int(header, f"{architecture}.context_length"), base_model=base_model,
        base_model_source=source, tokenizer=tokenizer, vocab_size=vocab, license=license_id,
        name=_text(header, "general.name"), size_label=_text(header, "general.size_label"),
        gguf_version=header.version)


# --- the steps --------------------------------------------------------------------------------------------

def _part_names(gguf_file: str, files: set[str], where: str) -> list[str]:
    """The files of a split GGUF (``stem-00001-of-00003.gguf`` ...), the first one named; else the file alone."""
    match = SPLIT_NAME.match(gguf_file)
    if not match:
        return [gguf_file]
    stem, count = match["stem"], int(match["count"])
    names = [f"{stem}-{i:05d}-of-{count:05d}.gguf" for i in range(1, count + 1)]
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


def _header(client: HubClient, ref: ModelRef, info, name: str, size: int, where: str, cap: int) -> GGUFHeader:
    """The header of ``name``, read by ranges, never past ``cap`` bytes: NOT_GGUF, GGUF_TRUNCATED."""
    data = b""
    while True:
        try:
            header = parse_header(data, file_size=size)
            break
        except MoreBytesNeeded as more:
            if more.at_least > cap:
                raise SubmissionRefused(NOT_GGUF, f"the header of {where} goes on past {cap >> 20} MiB, which no "
                                                  "model file's does",
                                        "convert the model again with llama.cpp's convert_hf_to_gguf.py") from None
            target = min(max(more.at_least, 2 * len(data), FIRST_READ), size, cap)
            with _refusing(client, ref, gate_mode=info.gated):
                data += client.read_range(ref.hub_id, name, info.sha, start=len(data), end=target - 1)
            if len(data) < more.at_least:
                raise SubmissionRefused(HUB_UNAVAILABLE, f"the hub sent {len(data):,} bytes of {name}, fewer than "
                                                         "asked", NETWORK_HINT) from None
        except HeaderUnreadable as bad:
            raise _unreadable(bad, where) from None
    end = header.data_end()
    if end is not None and end > size:
        raise SubmissionRefused(GGUF_TRUNCATED, f"{where} ends at byte {size:,}, before its tensor data does "
                                                f"(byte {end:,}): the upload is incomplete",
                                "upload the whole file again and submit that revision")
    return header


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


def _check_parts(headers: dict[str, GGUFHeader], names: list[str], where: str) -> None:
    """Each part of a split file says it is that part of that many (split.no counts from 0)."""
    if len(names) == 1 and "split.count" not in headers[names[0]].metadata:
        return
    for index, name in enumerate(names):
        no, count = _int(headers[name], "split.no"), _int(headers[name], "split.count")
        if (no, count) != (index, len(names)):
            raise SubmissionRefused(
                GGUF_SPLIT_INCOMPLETE, f"{name} says it is part {no if no is None else no + 1} of {count}, not part "
                                       f"{index + 1} of {len(names)} as its name does ({where})",
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
    return (str(base), "model card") if base else (None, None)


def _quantization(header: GGUFHeader) -> str:
    file_type = _int(header, "general.file_type")
    if file_type is not None:
        try:
            return gguf.LlamaFileType(file_type).name.removeprefix("MOSTLY_").removeprefix("ALL_")
        except ValueError:
            return f"file type {file_type}"
    by_type: dict[str, int] = {}  # no file_type (old converters): the type that holds the most weights
    for tensor in header.tensors:
        by_type[tensor.type_name] = by_type.get(tensor.type_name, 0) + tensor.elements
    return max(by_type, key=by_type.get) if by_type else "unknown"


def _sha256(client: HubClient, ref: ModelRef, sha: str, name: str) -> str:
    """A file the hub keeps in git, not LFS (under 10 MB): read whole and hashed."""
    with _refusing(client, ref):
        data = client.read_file(ref.hub_id, name, sha, max_bytes=NON_LFS_MAX_BYTES)
    return hashlib.sha256(data or b"").hexdigest()


def _text(header: GGUFHeader, key: str) -> str | None:
    value = header.metadata.get(key)
    return value if isinstance(value, str) and value else None


def _int(header: GGUFHeader, key: str) -> int | None:
    value = header.metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _gb(size: int) -> str:
    return f"{size / 1e9:.2f} GB" if size >= 1e8 else f"{human_count(size)}B"
