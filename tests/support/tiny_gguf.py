"""Tiny GGUF files written with the gguf package's own writer (GGUFWriter): a few metadata keys and tiny tensors,
for intake's tests (they need no llama.cpp; tests/support/gguf_fixtures.py makes real, runnable files)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np


def tiny_gguf(*, arch: str = "llama", file_type: int | None = 7, tokenizer: bool = True, tokens: int = 5,
              context_length: int | None = 2048, base_model: dict | None = None, license: str | None = None,
              name: str | None = "Tiny", tensors: dict | None = None, split: tuple[int, int] | None = None,
              metadata: bool = True, types: dict | None = None, extra: dict | None = None) -> bytes:
    """The bytes of a GGUF file. ``file_type``: general.file_type (7 = MOSTLY_Q8_0; None leaves it out);
    ``base_model``: {"name", "organization", "repo_url"} as general.base_model.0.*; ``tensors``: name -> numpy
    shape (zeros; the last number is the row's length), default one 4x8 tensor; ``types``: name -> GGML type name
    ("Q4_K"), else a 2-D tensor has the file type's own type as llama-quantize writes it (F16 where the row is
    narrower than its blocks) and a 1-D one F32; ``split``: (part index from 0, part count) as gguf-split writes;
    ``metadata=False`` writes only the split keys (the later parts of a split file); ``extra``: key -> value
    written with the writer's add_key_value (value, GGUFValueType[, sub_type])."""
    import gguf

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.gguf"
        writer = gguf.GGUFWriter(str(path), arch)
        if metadata:
            if name:
                writer.add_name(name)
            if context_length is not None:
                writer.add_context_length(context_length)
            if file_type is not None:
                writer.add_file_type(file_type)
            if license:
                writer.add_license(license)
            if tokenizer:
                writer.add_tokenizer_model("llama")
                writer.add_token_list([f"tok{i}" for i in range(tokens)])
            if base_model:
                writer.add_base_model_count(1)
                for key, value in base_model.items():
                    getattr(writer, f"add_base_model_{key}")(0, value)
        if split:
            writer.add_uint16(gguf.Keys.Split.LLM_KV_SPLIT_NO, split[0])
            writer.add_uint16(gguf.Keys.Split.LLM_KV_SPLIT_COUNT, split[1])
            writer.add_int32(gguf.Keys.Split.LLM_KV_SPLIT_TENSORS_COUNT, len(tensors or {"w": 0}) * split[1])
        for key, value in (extra or {}).items():
            writer.add_key_value(key, *value)
        for tensor_name, shape in (tensors or {"w": (4, 8)}).items():
            kind = gguf.GGMLQuantizationType[(types or {}).get(tensor_name) or _own_type(file_type, shape)]
            if kind in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
                writer.add_tensor(tensor_name, np.zeros(shape, dtype=np.float32 if kind.name == "F32" else np.float16))
            else:
                raw = np.zeros(gguf.quants.quant_shape_to_byte_shape(shape, kind), dtype=np.uint8)
                writer.add_tensor(tensor_name, raw, raw_dtype=kind)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        return path.read_bytes()


# general.file_type -> the type llama-quantize gives its weights (llama_ftype_get_default_type), for the common ones
_DEFAULT_TYPES = {None: "F32", 0: "F32", 1: "F16", 2: "Q4_0", 7: "Q8_0", 8: "Q5_0", 15: "Q4_K", 18: "Q6_K", 32: "BF16"}


def _own_type(file_type: int | None, shape) -> str:
    import gguf

    if len([n for n in shape if n > 1]) < 2:
        return "F32"
    kind = _DEFAULT_TYPES[file_type]
    block = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType[kind]][0]
    return kind if shape[-1] % block == 0 else "F16"
