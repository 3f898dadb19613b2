"""The one catalogue of the precisions a submission can ask for (the submission model's choices derive from it),
with their size caps and the checkpoints each one runs. How a backend computes in each is evaluator/precisions.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import UNKNOWN_PRECISION, SubmissionRefused


@dataclass(frozen=True)
class PrecisionSpec:
    """A precision a submission can ask for: its weight bits (they set the size cap) and what it loads."""

    name: str
    bits: int
    loads: str  # the checkpoints it accepts and how vLLM runs them (documentation, shown in refusals)
    unquantized_ok: bool  # also runs an unquantized 16/32-bit checkpoint (cast, or quantized on the fly)


PRECISIONS: dict[str, PrecisionSpec] = {p.name: p for p in (
    PrecisionSpec("bfloat16", 16, "an unquantized checkpoint, run with dtype=bfloat16", True),
    PrecisionSpec("float16", 16, "an unquantized checkpoint, run with dtype=float16", True),
    PrecisionSpec("fp8", 8, "an FP8 checkpoint (quant_method fp8 / fbgemm_fp8, or compressed-tensors with 8-bit "
                            "float weights), or an unquantized one quantized on load (vLLM quantization=fp8)", True),
    PrecisionSpec("int8", 8, "an INT8 checkpoint: compressed-tensors with 8-bit integer weights (W8A8 / W8A16); "
                             "not bitsandbytes load_in_8bit (vLLM 0.33 has no bitsandbytes)", False),
    PrecisionSpec("gptq-8bit", 8, "a GPTQ checkpoint with bits=8 (vLLM gptq / gptq_marlin)", False),
    PrecisionSpec("gptq-4bit", 4, "a GPTQ checkpoint with bits=4 (vLLM gptq / gptq_marlin)", False),
    PrecisionSpec("awq-4bit", 4, "an AWQ checkpoint with bits=4 (vLLM awq / awq_marlin)", False),
    # Kept so that stored submissions keep their precision; intake refuses it on this site's engines
    # (evaluator/precisions.py): neither vLLM 0.33 nor the transformers backend runs bitsandbytes.
    PrecisionSpec("bnb-4bit", 4, "a bitsandbytes load_in_4bit checkpoint; refused at intake: bitsandbytes is not "
                                 "supported by vLLM 0.33 and the transformers backend runs 16-bit checkpoints only",
                  False),
    # A GGUF file (a submission with gguf_file): llama.cpp runs the file's own tensor types (Q4_K_M, Q8_0, F16...,
    # the entry's quantization). No safetensors checkpoint fits it; its size cap is in bytes (GGUF_MAX_BYTES).
    PrecisionSpec("gguf", 16, "a GGUF file named with gguf_file, run by llama.cpp in its own quantization", False),
)}
DEFAULT_MAX_PARAMS_16BIT = 100e9


def precision_named(name: str) -> PrecisionSpec:
    """The catalogue's entry for ``name``, or SubmissionRefused UNKNOWN_PRECISION (asks nothing of the hub)."""
    if name not in PRECISIONS:
        raise SubmissionRefused(UNKNOWN_PRECISION, f"unknown precision {name!r}",
                                f"use one of {', '.join(PRECISIONS)}")
    return PRECISIONS[name]


def params_cap(precision: str, max_params_16bit: float = DEFAULT_MAX_PARAMS_16BIT) -> int:
    """The parameter cap at a precision: the 16-bit cap x2 at 8 bits, x4 at 4 bits (the same weight memory)."""
    return int(max_params_16bit * 16 // PRECISIONS[precision].bits)


def quantization(config: dict) -> tuple[str | None, int | None, str | None]:
    """(quant_method, weight bits, weight type "int"/"float") of a pre-quantized checkpoint; Nones if unquantized."""
    qc = config.get("quantization_config")
    if not isinstance(qc, dict) or not qc:
        return None, None, None
    method = str(qc.get("quant_method") or "").lower()
    if not method and (qc.get("load_in_4bit") or qc.get("load_in_8bit")):
        method = "bitsandbytes"
    method = method or "unknown"
    kind = None
    if method == "bitsandbytes":
        bits = 4 if qc.get("load_in_4bit") else 8 if qc.get("load_in_8bit") else None
    elif method in ("fp8", "fbgemm_fp8"):
        bits, kind = 8, "float"
    elif method == "compressed-tensors":
        bits = None
        for group in (qc.get("config_groups") or {}).values():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict) and weights.get("num_bits"):
                bits, kind = weights.get("num_bits"), str(weights.get("type") or "int").lower()
                break
    else:
        bits = qc.get("bits") or qc.get("w_bit") or qc.get("weight_bits")
    try:
        bits = int(bits) if bits is not None else None
    except (TypeError, ValueError):
        bits = None
    return method, bits, kind


def precision_accepts(precision: str, method: str | None, bits: int | None, kind: str | None) -> bool:
    if method is None:
        return PRECISIONS[precision].unquantized_ok
    return {
        "fp8": method in ("fp8", "fbgemm_fp8") or (method == "compressed-tensors" and bits == 8 and kind == "float"),
        "int8": method == "compressed-tensors" and bits == 8 and kind != "float",
        "gptq-8bit": method == "gptq" and bits == 8,
        "gptq-4bit": method == "gptq" and bits == 4,
        "awq-4bit": method == "awq" and bits == 4,
        "bnb-4bit": method == "bitsandbytes" and bits == 4,
    }.get(precision, False)


def fitting_precisions(config: dict) -> tuple[str, ...]:
    """The precisions (PRECISIONS order) that can run a checkpoint with this config.json."""
    method, bits, kind = quantization(config)
    return tuple(name for name in PRECISIONS if precision_accepts(name, method, bits, kind))


def describe_checkpoint(method, bits) -> str:
    if method is None:
        return "an unquantized checkpoint (its config.json has no quantization_config)"
    return f"a {method} checkpoint" + (f" with {bits}-bit weights" if bits else "")
