"""The header of a GGUF file, read from a prefix of its bytes: its metadata (key/value pairs) and tensor infos.

``gguf.GGUFReader`` maps the whole file (it builds every tensor's view), so intake, which downloads only the first
bytes of a file that may be gigabytes, parses the header itself here, with the ``gguf`` package's constants (the
magic, the value types, the quantization block sizes) and the layout and checks of llama.cpp's ``gguf.cpp``
(version 2 and 3: magic, version, tensor count, key/value count, the pairs, the tensor infos; little-endian).

The header is untrusted and the web process parses it, so the work is bounded by the header's bytes, not by what
it claims (issue 31):

- one pass: ``parse_header(..., read_more=...)`` asks its caller for more bytes when the buffer ends and goes on
  where it was, so a header read by growing ranges is parsed once;
- an array of fixed-size items is skipped by its byte length (count × item size, one bounds check), keeping its
  first ``ARRAY_HEAD`` values; an array of strings is walked by its lengths, at most ``max_array_strings`` items;
- ``HeaderLimits`` caps the header's bytes, its keys, its tensors, a string array's items and the parse time; each
  cap is refused with its own code (``HeaderOverLimit``);
- every length read is checked against the bytes the file has, so a corrupt length cannot make it allocate or
  loop beyond the file; tensor infos are checked as llama.cpp checks them (a known type whose blocks divide the
  row, at most 2^63 elements, data at the offsets llama.cpp computes), so every tensor's data lies in the file;
- ``general.alignment`` is what gguf.cpp accepts (a UINT32, a non-zero power of two: GGUF_BAD_ALIGNMENT), since
  the tensors' offsets are checked with it.

``parse_header(prefix, file_size)`` answers a ``GGUFHeader``, or raises ``MoreBytesNeeded`` (the prefix ends inside
the header, no ``read_more`` was given and the file has more), ``HeaderOverLimit`` or ``HeaderUnreadable`` (not a
GGUF file, or the file itself ends inside its header). Pure: no network (the caller's ``read_more`` fetches), no
Django.
"""
from __future__ import annotations

import math
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import gguf

from .errors import (
    GGUF_ARRAY_TOO_LONG, GGUF_BAD_ALIGNMENT, GGUF_HEADER_TOO_LARGE, GGUF_HEADER_TOO_SLOW, GGUF_PARAMS_OUT_OF_RANGE, GGUF_TOO_MANY_KEYS,
    GGUF_TOO_MANY_TENSORS,
)

# value type -> struct format of its scalar (STRING and ARRAY are read apart)
_SCALARS = {
    gguf.GGUFValueType.UINT8: "B", gguf.GGUFValueType.INT8: "b", gguf.GGUFValueType.UINT16: "H",
    gguf.GGUFValueType.INT16: "h", gguf.GGUFValueType.UINT32: "I", gguf.GGUFValueType.INT32: "i",
    gguf.GGUFValueType.FLOAT32: "f", gguf.GGUFValueType.BOOL: "?", gguf.GGUFValueType.UINT64: "Q",
    gguf.GGUFValueType.INT64: "q", gguf.GGUFValueType.FLOAT64: "d",
}
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
ARRAY_HEAD = 8  # values of an array kept (a vocabulary's 150,000 tokens are counted, not kept)
MAX_DIMS = 4  # GGML_MAX_DIMS
INT64_MAX = (1 << 63) - 1  # llama.cpp counts elements in int64_t; PostgreSQL's bigint holds the same
SUPPORTED_VERSIONS = (2, 3)  # version 1 (32-bit lengths) is no longer read by llama.cpp
DEFAULT_ALIGNMENT = 32  # GGUF_DEFAULT_ALIGNMENT, unless general.alignment says otherwise
_CLOCK_EVERY = 4096  # string-array items between two looks at the clock


@dataclass(frozen=True)
class HeaderLimits:
    """What one header may cost. Real files are far inside: a 262,144-token vocabulary (Gemma 3) and its merges are
    a few MB and under a million strings, large models have a few hundred keys and under 2,000 tensors."""

    max_bytes: int = 64 << 20  # the header, from byte 0 to its last tensor info
    max_keys: int = 4096
    max_tensors: int = 16384
    max_array_strings: int = 1 << 20  # items of one array of strings (an array of numbers is skipped whole)
    max_seconds: float = 2.0  # CPU time of parsing (the thread's: neither other processes nor ``read_more``)


DEFAULT_LIMITS = HeaderLimits()


class MoreBytesNeeded(Exception):
    """The prefix ends inside the header; ``at_least`` bytes from the start of the file are needed."""

    def __init__(self, at_least: int):
        super().__init__(at_least)
        self.at_least = at_least


class HeaderUnreadable(Exception):
    """``truncated``: the file ends inside its header (or before its tensor data ends); else not a GGUF file.
    ``detail`` says what was found, for the person who uploaded it."""

    def __init__(self, detail: str, *, truncated: bool = False):
        super().__init__(detail)
        self.detail, self.truncated = detail, truncated


class HeaderOverLimit(Exception):
    """The header passes one of ``HeaderLimits``, or breaks a rule of llama.cpp's that has a code of its own (a
    shape past 2^63, the alignment): ``code`` (errors.GGUF_*) names which, ``detail`` by how much."""

    def __init__(self, code: str, detail: str):
        super().__init__(f"{code}: {detail}")
        self.code, self.detail = code, detail


@dataclass(frozen=True)
class ArrayValue:
    """An array in the metadata: its item type, length and first ``ARRAY_HEAD`` values."""

    item_type: str
    count: int
    head: tuple


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple  # ne[0] (the row's length) first, as llama.cpp writes it
    ggml_type: int
    offset: int  # from the start of the tensor data

    @property
    def elements(self) -> int:
        return math.prod(self.shape)

    @property
    def type_name(self) -> str:
        try:
            return gguf.GGMLQuantizationType(self.ggml_type).name
        except ValueError:
            return f"type {self.ggml_type}"

    def nbytes(self) -> int | None:
        """Bytes of its data (None for a type the pinned gguf package does not know)."""
        try:
            block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(self.ggml_type)]
        except (ValueError, KeyError):
            return None
        return self.elements // block * size


@dataclass(frozen=True)
class GGUFHeader:
    version: int
    metadata: dict  # key -> int | float | bool | str | ArrayValue
    tensors: tuple  # TensorInfo, in file order
    header_bytes: int  # where the header ends (the tensor data starts at the next alignment boundary)
    types: dict = field(default_factory=dict)  # key -> its GGUF value type's name ("UINT32", "STRING", "ARRAY")

    @property
    def alignment(self) -> int:
        return self.metadata.get("general.alignment", DEFAULT_ALIGNMENT)  # parse_header checked it

    @property
    def data_start(self) -> int:
        return -(-self.header_bytes // self.alignment) * self.alignment

    def data_end(self) -> int | None:
        """Where the last tensor's data ends: the least size of a complete file (None if a type is unknown)."""
        ends = [(t.offset + n) for t in self.tensors if (n := t.nbytes()) is not None]
        if len(ends) != len(self.tensors):
            return None
        return self.data_start + max(ends, default=0)


class _Cursor:
    """Reads little-endian values from ``buf``, the first bytes of a file of ``file_size`` bytes, growing it with
    ``read_more(have, at_least)`` (the bytes that follow the ``have`` it has, at least up to byte ``at_least``)."""

    def __init__(self, data: bytes, file_size: int, limits: HeaderLimits,
                 read_more: Callable[[int, int], bytes] | None):
        self.buf, self.file_size, self.limits, self.read_more, self.pos = bytearray(data), file_size, limits, \
            read_more, 0
        self.started, self.waited = time.thread_time(), 0.0

    def need(self, end: int, what: str) -> None:
        """Bytes up to ``end`` are in the buffer (read more if the file has them), or an exception says why not."""
        if end <= len(self.buf):
            return
        if end > self.file_size:
            raise HeaderUnreadable(f"the file ({self.file_size:,} bytes) ends inside its header, while reading "
                                   f"{what} at byte {self.pos:,}", truncated=True)
        if end > self.limits.max_bytes:
            raise HeaderOverLimit(GGUF_HEADER_TOO_LARGE, f"its header goes on past {_mib(self.limits.max_bytes)} "
                                                         f"(to byte {end:,} at least, reading {what})")
        if self.read_more is None:
            raise MoreBytesNeeded(end)
        asked = time.thread_time()
        self.buf += self.read_more(len(self.buf), end)
        self.waited += time.thread_time() - asked
        if len(self.buf) < end:
            raise MoreBytesNeeded(end)  # the reader gave fewer bytes than asked: its caller's failure to report

    def clock(self) -> None:
        spent = time.thread_time() - self.started - self.waited
        if spent > self.limits.max_seconds:
            raise HeaderOverLimit(GGUF_HEADER_TOO_SLOW, f"reading its header took over {self.limits.max_seconds:g} s "
                                                        f"of CPU time (stopped at byte {self.pos:,})")

    def u32(self, what: str) -> int:
        self.need(self.pos + 4, what)
        self.pos += 4
        return _U32.unpack_from(self.buf, self.pos - 4)[0]

    def u64(self, what: str) -> int:
        self.need(self.pos + 8, what)
        self.pos += 8
        return _U64.unpack_from(self.buf, self.pos - 8)[0]

    def string(self, what: str) -> str:
        length = self.u64(what)
        self.need(self.pos + length, what)
        self.pos += length
        try:
            return self.buf[self.pos - length:self.pos].decode("utf-8")
        except UnicodeDecodeError:
            raise HeaderUnreadable(f"{what} at byte {self.pos - length:,} is not UTF-8 text") from None

    def value(self, value_type: int, what: str):
        kind = _value_type(value_type, what)
        if kind == gguf.GGUFValueType.STRING:
            return self.string(what)
        if kind == gguf.GGUFValueType.ARRAY:
            return self.array(what)
        fmt = "<" + _SCALARS[kind]
        size = struct.calcsize(fmt)
        self.need(self.pos + size, what)
        self.pos += size
        return struct.unpack_from(fmt, self.buf, self.pos - size)[0]

    def array(self, what: str) -> ArrayValue:
        item_kind = _value_type(self.u32(what), f"the items of {what}")
        count = self.u64(what)
        if item_kind == gguf.GGUFValueType.ARRAY:
            raise HeaderUnreadable(f"{what} is an array of arrays, which GGUF does not allow")
        if item_kind == gguf.GGUFValueType.STRING:
            return ArrayValue(item_kind.name, count, self.strings(count, what))
        code = _SCALARS[item_kind]
        size = struct.calcsize(code)
        start = self.pos
        self.need(start + count * size, what)  # the whole array, one bounds check; its items are not read
        self.pos = start + count * size
        kept = min(count, ARRAY_HEAD)
        return ArrayValue(item_kind.name, count, struct.unpack_from(f"<{kept}{code}", self.buf, start))

    def strings(self, count: int, what: str) -> tuple:
        """Walks an array of ``count`` strings by their lengths; the first ``ARRAY_HEAD`` are read as text."""
        if self.pos + count * 8 > self.file_size:  # a corrupt count: do not loop over it
            raise HeaderUnreadable(f"{what} says it holds {count:,} items, more than the file's "
                                   f"{self.file_size:,} bytes can", truncated=True)
        if count > self.limits.max_array_strings:
            raise HeaderOverLimit(GGUF_ARRAY_TOO_LONG, f"{what} holds {count:,} strings, over the "
                                                       f"{self.limits.max_array_strings:,} allowed in one array")
        head = tuple(self.string(what) for _ in range(min(count, ARRAY_HEAD)))
        pos, buf, have, unpack = self.pos, self.buf, len(self.buf), _U64.unpack_from
        for index in range(count - len(head)):
            if pos + 8 > have:
                self.pos = pos
                self.need(pos + 8, what)
                have = len(buf)
            length = unpack(buf, pos)[0]
            pos += 8 + length
            if pos > have:
                self.pos = pos - length
                self.need(pos, what)
                have = len(buf)
            if not index % _CLOCK_EVERY:
                self.pos = pos
                self.clock()
        self.pos = pos
        return head


def _value_type(raw: int, what: str) -> gguf.GGUFValueType:
    try:
        return gguf.GGUFValueType(raw)
    except ValueError:
        raise HeaderUnreadable(f"{what} has the unknown value type {raw}") from None


def parse_header(data: bytes, *, file_size: int, limits: HeaderLimits = DEFAULT_LIMITS,
                 read_more: Callable[[int, int], bytes] | None = None) -> GGUFHeader:
    """The header of a GGUF file of ``file_size`` bytes whose first bytes are ``data``; ``read_more(have,
    at_least)``: the bytes from ``have`` on, up to ``at_least`` or further (None: raise ``MoreBytesNeeded``)."""
    if file_size < 4:
        raise HeaderUnreadable(f"the file has {file_size} bytes: too short to be a GGUF file")
    cursor = _Cursor(data, file_size, limits, read_more)
    magic = cursor.u32("the magic number")
    if magic != gguf.GGUF_MAGIC:
        raise HeaderUnreadable(f"it does not start with the GGUF magic bytes 'GGUF' (it starts with "
                               f"{bytes(cursor.buf[:4])!r})")
    version = cursor.u32("the version")
    if version not in SUPPORTED_VERSIONS:
        if version & 0xFFFF == 0 and (version >> 24) in SUPPORTED_VERSIONS:
            raise HeaderUnreadable("it is a big-endian GGUF file; llama.cpp on the evaluation machines (x86-64) "
                                   "reads little-endian files only")
        raise HeaderUnreadable(f"it is GGUF version {version}; llama.cpp reads versions "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))}")
    tensor_count = cursor.u64("the tensor count")
    kv_count = cursor.u64("the metadata count")
    # Each pair takes at least 12 bytes, each tensor info at least 24: a larger count is a corrupt header.
    if 24 + kv_count * 12 + tensor_count * 24 > file_size:
        raise HeaderUnreadable(f"its header says {kv_count:,} metadata pairs and {tensor_count:,} tensors, more "
                               f"than the file's {file_size:,} bytes can hold", truncated=True)
    if kv_count > limits.max_keys:
        raise HeaderOverLimit(GGUF_TOO_MANY_KEYS, f"its header has {kv_count:,} metadata keys, over the "
                                                  f"{limits.max_keys:,} allowed")
    if tensor_count > limits.max_tensors:
        raise HeaderOverLimit(GGUF_TOO_MANY_TENSORS, f"its header has {tensor_count:,} tensors, over the "
                                                     f"{limits.max_tensors:,} allowed")
    metadata, types = {}, {}
    for index in range(kv_count):
        key = cursor.string(f"the name of metadata pair {index}")
        shown = _shown(key)
        if key in metadata:
            raise HeaderUnreadable(f"the metadata key {shown} appears twice (llama.cpp refuses such a file)")
        kind = _value_type(cursor.u32(f"the type of {shown}"), shown)
        types[key], metadata[key] = kind.name, cursor.value(kind, shown)
        cursor.clock()
    _check_alignment(metadata, types)
    header = GGUFHeader(version, metadata, (), 0, types)
    tensors, names, expected = [], set(), 0
    for index in range(tensor_count):
        tensor = _tensor_info(cursor, index)
        if tensor.name in names:
            raise HeaderUnreadable(f"two tensors are named {_shown(tensor.name)} (llama.cpp refuses such a file)")
        if tensor.offset != expected:  # gguf.cpp: each tensor's data follows the last one's, padded
            raise HeaderUnreadable(f"tensor {_shown(tensor.name)} says its data is at offset {tensor.offset:,}; llama.cpp "
                                   f"expects {expected:,} (the previous tensors' data, padded to "
                                   f"{header.alignment} bytes)")
        names.add(tensor.name)
        tensors.append(tensor)
        expected += -(-tensor.nbytes() // header.alignment) * header.alignment
        cursor.clock()
    return GGUFHeader(version, metadata, tuple(tensors), cursor.pos, types)


def _check_alignment(metadata: dict, types: dict) -> None:
    """gguf.cpp reads general.alignment with gguf_get_val_u32 (which asserts a UINT32) and refuses 0 or a number that
    is not a power of two."""
    if "general.alignment" not in metadata:
        return
    value, kind = metadata["general.alignment"], types["general.alignment"]
    if kind != "UINT32" or value <= 0 or value & (value - 1):
        raise HeaderOverLimit(GGUF_BAD_ALIGNMENT, f"its general.alignment is {kind} {shown_value(value)}; llama.cpp "
                                                  "loads only a UINT32 that is a power of two (32 by default)")


def shown_value(value) -> str:
    """A metadata value in a message: a whole number with thousands separators, an array by its length, else repr."""
    if isinstance(value, ArrayValue):
        return f"(an array of {value.count:,} {value.item_type})"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return repr(value if not isinstance(value, str) or len(value) <= 80 else value[:79] + "…")


def _tensor_info(cursor: _Cursor, index: int) -> TensorInfo:
    """One tensor info, checked as llama.cpp's gguf.cpp checks it."""
    name = cursor.string(f"the name of tensor {index}")
    shown = _shown(name)
    dims = cursor.u32(f"the dimensions of tensor {shown}")
    if not 0 < dims <= MAX_DIMS:
        raise HeaderUnreadable(f"tensor {shown} has {dims} dimensions (GGUF allows 1 to {MAX_DIMS})")
    shape = tuple(cursor.u64(f"the shape of tensor {shown}") for _ in range(dims))
    if math.prod(shape) > INT64_MAX or max(shape) > INT64_MAX:
        raise HeaderOverLimit(GGUF_PARAMS_OUT_OF_RANGE, f"tensor {shown} has the shape {list(shape)}: more than "
                                                        "2^63 - 1 elements, which llama.cpp refuses")
    ggml_type = cursor.u32(f"the type of tensor {shown}")
    try:
        block, _ = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(ggml_type)]
    except (ValueError, KeyError):
        raise HeaderUnreadable(f"tensor {shown} has the type {ggml_type}, which the pinned llama.cpp's gguf "
                               "package does not know") from None
    if shape[0] % block:
        raise HeaderUnreadable(f"tensor {shown} has rows of {shape[0]:,} values, not a multiple of its type "
                               f"{gguf.GGMLQuantizationType(ggml_type).name}'s blocks of {block}")
    offset = cursor.u64(f"the offset of tensor {shown}")
    return TensorInfo(name, shape, ggml_type, offset)


def _shown(name: str) -> str:
    """A key or tensor name in a message: quoted, NUL and control characters escaped, at most 80 characters."""
    return repr(name if len(name) <= 80 else name[:79] + "…")


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"
