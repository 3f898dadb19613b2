"""Tiny GGUF files written with the gguf package's own writer (GGUFWriter): a few metadata keys and tiny tensors,
for intake's tests (they need no llama.cpp; tests/support/gguf_fixtures.py makes real, runnable files)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np


def tiny_gguf(*, arch: str = "llama", file_type: int | None = 7, tokenizer: bool = True, tokens: int = 5,
              context_length: int | None = 2048, base_model: dict | None = None, license: str | None = None,
              name: str | None = "Tiny", tensors: dict | None = None, split: tuple[int, int] | None = None,
              metadata: bool = True) -> bytes:
    """The bytes of a GGUF file. ``file_type``: general.file_type (7 = MOSTLY_Q8_0; None leaves it out);
    ``base_model``: {"name", "organization", "repo_url"} as general.base_model.0.*; ``tensors``: name -> shape
    (float32, zeros), default one 4x8 tensor; ``split``: (part index from 0, part count) as gguf-split writes;
    ``metadata=False`` writes only the split keys (the later parts of a split file)."""
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
        for tensor_name, shape in (tensors or {"w": (4, 8)}).items():
            writer.add_tensor(tensor_name, np.zeros(shape, dtype=np.float32))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        return path.read_bytes()
