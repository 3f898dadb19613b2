"""The header of a GGUF file, read from a prefix of its bytes: its metadata (key/value pairs) and tensor infos.

``gguf.GGUFReader`` maps the whole file (it builds every tensor's view), so intake, which downloads only the first
bytes of a file that may be gigabytes, parses the header itself here, with the ``gguf`` package's constants (the
magic, the value types, the quantization block sizes) and the layout of llama.cpp's ``gguf.cpp`` (version 2 and 3:
magic, version, tensor count, key/value count, the pairs, the tensor infos; little-endian). Every length read is
checked against the bytes the file has, so a corrupt length cannot make it allocate or loop beyond the file.

``parse_header(prefix, file_size)`` answers a ``GGUFHeader``, or raises ``MoreBytesNeeded`` (the prefix ends
inside the header and the file has more: read further and call again) or ``HeaderUnreadable`` (not a GGUF file,
or the file itself ends inside its header). Pure: no network, no Django.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import gguf

# value type -> struct format of its scalar (STRING and ARRAY are read apart)
_SCALARS = {
    gguf.GGUFValueType.UINT8: "<B", gguf.GGUFValueType.INT8: "<b", gguf.GGUFValueType.UINT16: "<H",
    gguf.GGUFValueType.INT16: "<h", gguf.GGUFValueType.UINT32: "<I", gguf.GGUFValueType.INT32: "<i",
    gguf.GGUFValueType.FLOAT32: "<f", gguf.GGUFValueType.BOOL: "<?", gguf.GGUFValueType.UINT64: "<Q",
    gguf.GGUFValueType.INT64: "<q", gguf.GGUFValueType.FLOAT64: "<d",
}
ARRAY_HEAD = 8  # values of an array kept (a vocabulary's 150,000 tokens are counted, not kept)
MAX_DIMS = 4  # GGML_MAX_DIMS
SUPPORTED_VERSIONS = (2, 3)  # version 1 (32-bit lengths) is no longer read by llama.cpp
DEFAULT_ALIGNMENT = 32  # GGUF_DEFAULT_ALIGNMENT, unless general.alignment says otherwise


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


@dataclass(frozen=True)
class ArrayValue:
    """An array in the metadata: its item type, length and first ``ARRAY_HEAD`` values."""

    item_type: str
    count: int
    head: tuple


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple
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

    @property
    def data_start(self) -> int:
        alignment = self.metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if not isinstance(alignment, int) or alignment <= 0:
            alignment = DEFAULT_ALIGNMENT
        return -(-self.header_bytes // alignment) * alignment

    def data_end(self) -> int | None:
        """Where the last tensor's data ends: the least size of a complete file (None if a type is unknown)."""
        ends = [(t.offset + n) for t in self.tensors if (n := t.nbytes()) is not None]
        if len(ends) != len(self.tensors):
            return None
        return self.data_start + max(ends, default=0)


class _Cursor:
    """Reads little-endian values from ``data``, a prefix of a file of ``file_size`` bytes."""

    def __init__(self, data: bytes, file_size: int):
        self.data, self.file_size, self.pos = data, file_size, 0

    def take(self, n: int, what: str) -> bytes:
        end = self.pos + n
        if end > self.file_size:
            raise HeaderUnreadable(f"the file ({self.file_size:,} bytes) ends inside its header, while reading "
                                   f"{what} at byte {self.pos:,}", truncated=True)
        if end > len(self.data):
            raise MoreBytesNeeded(end)
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def scalar(self, fmt: str, what: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]

    def string(self, what: str) -> str:
        length = self.scalar("<Q", what)
        raw = self.take(length, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise HeaderUnreadable(f"{what} at byte {self.pos - length:,} is not UTF-8 text") from None

    def value(self, value_type: int, what: str):
        kind = _value_type(value_type, what)
        if kind == gguf.GGUFValueType.STRING:
            return self.string(what)
        if kind == gguf.GGUFValueType.ARRAY:
            item_kind = _value_type(self.scalar("<I", what), f"the items of {what}")
            count = self.scalar("<Q", what)
            if item_kind == gguf.GGUFValueType.ARRAY:
                raise HeaderUnreadable(f"{what} is an array of arrays, which GGUF does not allow")
            least = 8 if item_kind == gguf.GGUFValueType.STRING else struct.calcsize(_SCALARS[item_kind])
            if self.pos + count * least > self.file_size:  # a corrupt count: do not loop over it
                raise HeaderUnreadable(f"{what} says it holds {count:,} items, more than the file's "
                                       f"{self.file_size:,} bytes can", truncated=True)
            head = []
            for i in range(count):
                item = self.value(item_kind, what)
                if i < ARRAY_HEAD:
                    head.append(item)
            return ArrayValue(item_kind.name, count, tuple(head))
        return self.scalar(_SCALARS[kind], what)


def _value_type(raw: int, what: str) -> gguf.GGUFValueType:
    try:
        return gguf.GGUFValueType(raw)
    except ValueError:
        raise HeaderUnreadable(f"{what} has the unknown value type {raw}") from None


def parse_header(data: bytes, *, file_size: int) -> GGUFHeader:
    """The header of a GGUF file of ``file_size`` bytes whose first bytes are ``data``."""
    cursor = _Cursor(data, file_size)
    if file_size < 4:
        raise HeaderUnreadable(f"the file has {file_size} bytes: too short to be a GGUF file")
    magic = cursor.scalar("<I", "the magic number")
    if magic != gguf.GGUF_MAGIC:
        raise HeaderUnreadable(f"it does not start with the GGUF magic bytes 'GGUF' (it starts with "
                               f"{bytes(data[:4])!r})")
    version = cursor.scalar("<I", "the version")
    if version not in SUPPORTED_VERSIONS:
        if version & 0xFFFF == 0 and (version >> 24) in SUPPORTED_VERSIONS:
            raise HeaderUnreadable("it is a big-endian GGUF file; llama.cpp on the evaluation machines (x86-64) "
                                   "reads little-endian files only")
        raise HeaderUnreadable(f"it is GGUF version {version}; llama.cpp reads versions "
                               f"{', '.join(map(str, SUPPORTED_VERSIONS))}")
    tensor_count = cursor.scalar("<Q", "the tensor count")
    kv_count = cursor.scalar("<Q", "the metadata count")
    # Each pair takes at least 12 bytes, each tensor info at least 24: a larger count is a corrupt header.
    if 24 + kv_count * 12 + tensor_count * 24 > file_size:
        raise HeaderUnreadable(f"its header says {kv_count:,} metadata pairs and {tensor_count:,} tensors, more "
                               f"than the file's {file_size:,} bytes can hold", truncated=True)
    metadata = {}
    for index in range(kv_count):
        key = cursor.string(f"the name of metadata pair {index}")
        metadata[key] = cursor.value(cursor.scalar("<I", f"the type of {key!r}"), repr(key))
    tensors = []
    for index in range(tensor_count):
        name = cursor.string(f"the name of tensor {index}")
        dims = cursor.scalar("<I", f"the dimensions of tensor {name!r}")
        if not 0 < dims <= MAX_DIMS:
            raise HeaderUnreadable(f"tensor {name!r} has {dims} dimensions (GGUF allows 1 to {MAX_DIMS})")
        shape = tuple(cursor.scalar("<Q", f"the shape of tensor {name!r}") for _ in range(dims))
        ggml_type = cursor.scalar("<I", f"the type of tensor {name!r}")
        offset = cursor.scalar("<Q", f"the offset of tensor {name!r}")
        tensors.append(TensorInfo(name, shape, ggml_type, offset))
    return GGUFHeader(version, metadata, tuple(tensors), cursor.pos)
