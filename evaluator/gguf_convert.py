"""GGUF files made by the project's own pipeline, the plain community recipe from one pinned llama.cpp:

1. llama.cpp's converter (convert_hf_to_gguf.py with its conversion/ package and gguf-py) writes the
   safetensors checkpoint as an f32 or f16 GGUF. The converter is not in llama-cpp-python's wheel: dev.sh's
   setup_llamacpp copies it from the same pinned source distribution into .venv-llamacpp/llama.cpp.
2. llama.cpp's quantizer (llama_cpp.llama_model_quantize, the function the llama-quantize tool calls) makes
   q8_0, q4_0 or q4_k_m from the f32 file. No importance matrix.

`convert` returns the recipe (and writes it beside the file as FILE.gguf.recipe.json) so a run card can say
how its file was made.

    python -m evaluator convert --model DIR_OR_HUB_ID --out FILE.gguf --quant f32|f16|q8_0|q4_0|q4_k_m
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# --quant -> (the converter's --outtype, llama.cpp's ftype constant for the quantizer, or None: converted only)
QUANTS: dict[str, tuple[str, str | None]] = {
    "f32": ("f32", None),
    "f16": ("f16", None),
    "q8_0": ("f32", "LLAMA_FTYPE_MOSTLY_Q8_0"),
    "q4_0": ("f32", "LLAMA_FTYPE_MOSTLY_Q4_0"),
    "q4_k_m": ("f32", "LLAMA_FTYPE_MOSTLY_Q4_K_M"),
}
CONVERTER_ENV = "LLAMACPP_CONVERTER_DIR"  # overrides <environment>/llama.cpp
CHECKPOINT_FILES = ("*.json", "*.safetensors", "tokenizer.model")  # never *.bin: nothing is unpickled


class ConvertError(RuntimeError):
    code = "GGUF_CONVERT_ERROR"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code:
            self.code = code


def converter_dir() -> Path:
    """Where setup_llamacpp put llama.cpp's converter: $LLAMACPP_CONVERTER_DIR, else <this environment>/llama.cpp."""
    folder = Path(os.environ.get(CONVERTER_ENV) or Path(sys.prefix) / "llama.cpp")
    if not (folder / "convert_hf_to_gguf.py").is_file():
        raise ConvertError(
            f"llama.cpp's converter is not at {folder}/convert_hf_to_gguf.py: it comes with the llama.cpp "
            f"environment (./dev.sh test builds .venv-llamacpp), or set {CONVERTER_ENV}", "CONVERTER_MISSING")
    return folder


def llama_cpp_build() -> dict[str, Any]:
    """llama-cpp-python's version and the llama.cpp build it carries: ggml's version and commit, as ggml_version()
    and ggml_commit() report them (the build reads the commit from the source distribution's git metadata;
    "-dirty" where its files differ from that commit)."""
    import llama_cpp

    out: dict[str, Any] = {"llama_cpp_python": getattr(llama_cpp, "__version__", "unknown"),
                           "llama_cpp_commit": "unknown", "ggml_version": "unknown"}
    for lib in sorted((Path(llama_cpp.__file__).parent / "lib").glob("libggml-base.*")):
        try:
            ggml = ctypes.CDLL(str(lib))
            ggml.ggml_commit.restype = ggml.ggml_version.restype = ctypes.c_char_p
            out.update(llama_cpp_commit=ggml.ggml_commit().decode(), ggml_version=ggml.ggml_version().decode())
            break
        except (OSError, AttributeError):
            continue
    return out


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _checkpoint(model: str, revision: str | None) -> Path:
    from .checkpoint import model_folder

    folder = model_folder(model, revision, patterns=CHECKPOINT_FILES)
    if not (folder / "config.json").is_file():
        raise ConvertError(f"{model}: no config.json; the converter reads a Hugging Face checkpoint folder",
                           "NOT_A_CHECKPOINT")
    return folder


def _run_converter(folder: Path, out: Path, outtype: str) -> None:
    conv = converter_dir()
    cmd = [sys.executable, str(conv / "convert_hf_to_gguf.py"), str(folder.resolve()), "--outfile", str(out.resolve()),
           "--outtype", outtype]  # absolute: the converter runs in its own folder
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=conv)
    if done.returncode != 0 or not out.is_file():
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise ConvertError(f"llama.cpp's converter failed on {folder} (exit {done.returncode}):\n{tail}",
                           "CONVERTER_FAILED")


def _quantize(src: Path, out: Path, ftype_name: str, threads: int | None) -> None:
    import llama_cpp

    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, ftype_name)
    params.nthread = threads or 0  # 0: llama.cpp's default (the hardware threads)
    rc = llama_cpp.llama_model_quantize(str(src).encode(), str(out).encode(), ctypes.byref(params))
    if rc != 0 or not out.is_file():
        raise ConvertError(f"llama.cpp's quantizer failed ({ftype_name}, code {rc}) on {src}", "QUANTIZE_FAILED")


def _recipe(out: Path, source: str, revision: str | None, quant: str, steps: list[str]) -> dict[str, Any]:
    build = llama_cpp_build()
    recipe = {
        "source": source, "revision": revision, "quant": quant, "steps": steps,
        "imatrix": None,  # the plain recipe: no importance matrix
        "llama_cpp_python": build["llama_cpp_python"], "llama_cpp_commit": build["llama_cpp_commit"],
        "file": out.name, "sha256": file_sha256(out), "bytes": out.stat().st_size,
    }
    Path(f"{out}.recipe.json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")
    return recipe


def convert(model: str, out: str | Path, quant: str, *, revision: str | None = None,
            threads: int | None = None) -> dict[str, Any]:
    """Convert `model` (a local checkpoint folder or a hub id at `revision`) to `out` at `quant`; the recipe."""
    if quant not in QUANTS:
        raise ConvertError(f"unknown quantization {quant!r}; one of {', '.join(QUANTS)}", "UNKNOWN_QUANT")
    outtype, ftype = QUANTS[quant]
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = _checkpoint(model, revision)
    steps = [f"convert_hf_to_gguf.py --outtype {outtype}"]
    if ftype is None:
        _run_converter(folder, out, outtype)
    else:
        with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
            base = Path(tmp) / f"{outtype}.gguf"
            _run_converter(folder, base, outtype)
            _quantize(base, out, ftype, threads)
        steps.append(f"llama_model_quantize {quant.upper()}")
    return _recipe(out, model, revision, quant, steps)


def quantize(f32_file: str | Path, out: str | Path, quant: str, *, threads: int | None = None) -> dict[str, Any]:
    """Quantize an f32 GGUF that `convert` made (the second step alone: one conversion, several quantizations);
    the recipe is the f32 file's with this step added."""
    src = Path(f32_file)
    made = json.loads(Path(f"{src}.recipe.json").read_text(encoding="utf-8"))
    ftype = QUANTS.get(quant, ("", None))[1]
    if made["quant"] != "f32" or ftype is None:
        raise ConvertError(f"quantize makes q8_0, q4_0 or q4_k_m from an f32 file that convert made, "
                           f"not {quant} from {made['quant']}", "UNKNOWN_QUANT")
    out = Path(out)
    _quantize(src, out, ftype, threads)
    return _recipe(out, made["source"], made["revision"], quant, [*made["steps"], f"llama_model_quantize {quant.upper()}"])
