"""GGUF headers written byte by byte, for what no writer makes: arrays of millions of numbers, counts and shapes past
the caps, tensors of an unknown type or of more than 2^63 elements, a type claim its tensors contradict. The layout
is llama.cpp's gguf.cpp (version 3, little-endian); tests/support/tiny_gguf.py makes ordinary files with the gguf
package's writer."""
from __future__ import annotations

import struct

import gguf

V = gguf.GGUFValueType


def text(value: str | bytes) -> bytes:
    raw = value.encode() if isinstance(value, str) else value
    return struct.pack("<Q", len(raw)) + raw


def kv_str(key: str, value: str | bytes) -> bytes:
    return text(key) + struct.pack("<I", V.STRING) + text(value)


def kv_u32(key: str, value: int) -> bytes:
    return text(key) + struct.pack("<II", V.UINT32, value)


def kv_bytes(key: str, count: int) -> bytes:
    """An array of ``count`` uint8 items (0, 1, 2 ... wrapping)."""
    return text(key) + struct.pack("<IIQ", V.ARRAY, V.UINT8, count) + bytes(range(256)) * (count // 256) \
        + bytes(range(count % 256))


def kv_strings(key: str, items: list[str]) -> bytes:
    return text(key) + struct.pack("<IIQ", V.ARRAY, V.STRING, len(items)) + b"".join(text(i) for i in items)


def tensor_info(name: str, shape: tuple, ggml_type: int, offset: int) -> bytes:
    """``shape``: ne[0] (the row) first, as the file stores it."""
    return text(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", n) for n in shape) \
        + struct.pack("<IQ", ggml_type, offset)


def model_keys(*, arch: str = "llama", name: str | bytes = "Raw", tokens: int = 4, file_type: int | None = None,
               license: str | bytes | None = None) -> list[bytes]:
    """The keys intake needs: architecture, name, a tokenizer, and general.file_type when given."""
    keys = [kv_str("general.architecture", arch), kv_str("general.name", name),
            kv_str("tokenizer.ggml.model", "llama"), kv_strings("tokenizer.ggml.tokens", [f"t{i}" for i in range(tokens)])]
    if file_type is not None:
        keys.append(kv_u32("general.file_type", file_type))
    if license is not None:
        keys.append(kv_str("general.license", license))
    return keys


def gguf_file(keys: list[bytes], tensors: list[tuple] = (), *, kv_count: int | None = None,
              tensor_count: int | None = None, data: bool = True) -> bytes:
    """A file: the header, padded to 32 bytes, then each tensor's data (zeros, each padded to 32 bytes).
    ``tensors``: (name, shape, type) with offsets as llama.cpp computes them; ``data=False`` leaves the data out."""
    infos, offset, sizes = [], 0, []
    for name, shape, kind in tensors:
        infos.append(tensor_info(name, shape, kind, offset))
        try:
            block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType(kind)]
            nbytes = (shape[0] // block) * size * _prod(shape[1:])
        except (ValueError, KeyError):
            nbytes = 0
        sizes.append(nbytes)
        offset += -(-nbytes // 32) * 32
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors) if tensor_count is None else tensor_count,
                                 len(keys) if kv_count is None else kv_count) + b"".join(keys) + b"".join(infos)
    head += bytes(-len(head) % 32)
    return head + (bytes(offset) if data else b"")


def _prod(numbers) -> int:
    total = 1
    for n in numbers:
        total *= n
    return total
