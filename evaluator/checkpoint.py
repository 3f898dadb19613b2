"""Facts read from a checkpoint's files without loading its weights: config.json, the context length,
and parameter count / weight bytes from the safetensors headers.

Both backends and the GPU worker use these, so a run's card says the same thing whichever engine ran it.
"""
from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

_CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length")


def model_folder(model: str, revision: str | None = None, *, patterns=("*.json", "*.safetensors")) -> Path:
    """A local folder as is; a hub id -> its snapshot in the local cache (downloaded by the engine already
    when called after load; otherwise fetched here, safetensors and json files only: never *.bin)."""
    path = Path(model)
    if path.is_dir():
        return path
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(model, revision=revision, allow_patterns=list(patterns)))


def config_dict(model: str, revision: str | None = None) -> dict[str, Any]:
    folder = model_folder(model, revision, patterns=("config.json",))
    return json.loads((folder / "config.json").read_text(encoding="utf-8"))


def context_limit(config: dict[str, Any]) -> int | None:
    """The longest sequence the model was built for (text config of multimodal wrappers included)."""
    for cfg in (config, config.get("text_config") or {}):
        for key in _CONTEXT_KEYS:
            value = cfg.get(key)
            if isinstance(value, int) and value > 0:
                return value
    return None


def safetensors_totals(folder: str | Path) -> tuple[int, int] | None:
    """(parameters, bytes) over every *.safetensors file's header; None where there is none."""
    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        return None
    params = size = 0
    for f in files:
        with f.open("rb") as fh:
            (length,) = struct.unpack("<Q", fh.read(8))
            header = json.loads(fh.read(length))
        for name, t in header.items():
            if name == "__metadata__":
                continue
            n = 1
            for dim in t["shape"]:
                n *= dim
            params += n
            size += t["data_offsets"][1] - t["data_offsets"][0]
    return params, size
