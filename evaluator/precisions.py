"""What a submission's precision means to each backend: the compute dtype and the quantization method.

One rule for both backends, so the same submission computes in the same dtype whichever engine runs it:
- On CUDA a 16-bit precision is that dtype; "auto" is bfloat16. On CPU everything computes in float32
  (bfloat16 matmuls are slow and lossy there): both backends, explicitly. vLLM's own "auto" would
  silently downcast a float32 checkpoint to bfloat16 on CPU, so "auto" never reaches an engine.
- fp8: vLLM quantizes an unquantized checkpoint on load (quantization="fp8"); a checkpoint that is
  already FP8 carries its own quantization_config, which vLLM reads (passing "fp8" over a
  compressed-tensors config would conflict).
- GPTQ / AWQ / INT8 checkpoints carry their quantization_config; their kernels compute in float16.
- bitsandbytes is not a quantization method of vLLM 0.33, and the transformers backend loads 16-bit
  checkpoints only: each backend lists the precisions it runs, and intake refuses the others.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

PRECISIONS_BY_BACKEND: dict[str, frozenset[str]] = {
    "vllm": frozenset({"auto", "bfloat16", "float16", "float32", "fp8", "int8", "gptq-8bit", "gptq-4bit",
                       "awq-4bit"}),
    "transformers": frozenset({"auto", "bfloat16", "float16", "float32"}),
    # llama.cpp runs a GGUF file's own tensor types: the precision says only that the model is a GGUF file.
    "llamacpp": frozenset({"auto", "gguf"}),
}
_DTYPES = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32", "fp8": "bfloat16",
           "int8": "float16", "gptq-8bit": "float16", "gptq-4bit": "float16", "awq-4bit": "float16"}


class PrecisionUnsupported(ValueError):
    """The backend cannot run this precision; the message names the ones it can."""

    code = "PRECISION_UNSUPPORTED"


@dataclass(frozen=True)
class LoadSpec:
    dtype: str                 # what the engine computes in: never "auto"
    quantization: str | None   # passed to vLLM's `quantization=`; None = as the checkpoint says (or none)

    def as_dict(self) -> dict[str, Any]:
        return {"dtype": self.dtype, "quantization": self.quantization}


def supported_precisions(backend: str) -> frozenset[str]:
    return PRECISIONS_BY_BACKEND.get(backend, PRECISIONS_BY_BACKEND["transformers"])


def check_precision(backend: str, precision: str) -> None:
    allowed = supported_precisions(backend)
    if precision not in allowed:
        names = ", ".join(sorted(allowed - {"auto", "float32"}))
        raise PrecisionUnsupported(f"the {backend} backend cannot run {precision!r} "
                                   f"(bitsandbytes is not supported by vLLM 0.33); use one of {names}")


def resolve_load(*, precision: str, device: str, backend: str,
                 checkpoint_config: Mapping[str, Any] | None = None) -> LoadSpec:
    """The dtype and quantization a run with this precision computes in on this device."""
    check_precision(backend, precision)
    if not str(device).startswith("cuda"):
        return LoadSpec("float32", None)
    dtype = _DTYPES.get(precision, "bfloat16")
    pre_quantized = bool((checkpoint_config or {}).get("quantization_config"))
    quantization = "fp8" if precision == "fp8" and not pre_quantized else None
    return LoadSpec(dtype, quantization)
