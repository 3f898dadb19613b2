"""A GGUF file's quantization, read from its tensors' types, and whether its header's claim agrees (issue 31).

``general.file_type`` is a claim any writer can make: a file of F32 tensors may say Q4_K_M. llama.cpp believes it
(``llama_model_loader`` takes the key when present and guesses only without it), so the board checks it against
the tensors, with llama.cpp's own rules from the pinned source (llama-cpp-python 0.3.36, vendor/llama.cpp/src):

- the weights: the tensors ``llama-quantize`` quantizes (``tensor_allows_quantization``: two or more dimensions,
  not the few it always keeps as they are, ``KEPT``). Norms and biases are 1-D and stay F32 in every file, so
  they say nothing about the file type (a Gemma 3 layer has 6 norms and 7 weight matrices);
- a file type's recipe (``llama_tensor_get_type_impl``): the types ``llama-quantize`` writes for a weight when asked
  for that file type. Q4_K_M is mostly Q4_K with Q6_K (attn_v, ffn_down of some layers, output), Q5_K (fused
  QKV). ``RECIPES`` lists each file type's types;
- a row that its type's blocks do not divide falls back (``tensor_type_fallback``): Q4_K -> Q5_0, Q5_K -> Q5_1,
  Q6_K -> Q8_0, Q2_K/Q3_K/TQ* -> Q4_0, the IQ types -> IQ4_NL, and F16 when even that does not divide the row.
  A tiny model's rows are narrower than a K-quant's 256-value blocks, so its "Q4_K_M" is Q5_0 and Q8_0: it agrees;
- the claim agrees when more than half of the weights' bytes have a type the claimed recipe writes for a row of
  their width. Bytes, not tensors (issue 38): one F16 matrix holding 90% of a file's weights outweighs nine small
  Q4_K ones. Manual overrides (``--tensor-type``, ``--token-embedding-type``) change a few tensors, not most bytes
  (the recipe's own Q6_K output and Q8_0 embeddings are in it);
- without a claim, the type that holds the most weight bytes (in name order, the first to reach the maximum
  winning), named as llama.cpp's loader names its guess (Q4_K -> Q4_K_M). The loader itself counts tensors; the board
  names what most of the file is.

``quantization(tensors, file_type)`` answers the name on the board ("Q4_K_M", "Q8_0", "F16") or raises
``QuantMismatch`` naming both the claim and what the tensors are. Pure: no network, no Django.
"""
from __future__ import annotations

from collections import Counter

import gguf

T = gguf.GGMLQuantizationType
FT = gguf.LlamaFileType

# Name fragments of 2-D tensors llama-quantize never quantizes (tensor_allows_quantization): norms, the MoE router,
# position embeddings, small per-layer tensors (Gemma 3n's altup and laurel, RWKV's time_mix), vision and audio.
KEPT = ("_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid", "altup", "laurel", "per_layer_model_proj",
        "position_embd", "token_types.weight", "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight",
        "indexer.q_proj.weight", "time_mix_", "attn_rel_b.weight", "sam.", ".rel_pos", ".patch_embd",
        ".patch_merger", "codebook", "code_embd")

_K_OUT = (T.Q6_K,)  # the output tensor (and tied token embeddings) of most quantized types
_IQ_LOW = (T.Q2_K, T.Q4_K, T.Q5_K)  # attn_v, ffn_down, output of the 1-2 bit IQ types
# file type -> the types its recipe writes for a weight (before shape fallbacks): the default type first.
RECIPES = {
    FT.ALL_F32: (T.F32,), FT.MOSTLY_F16: (T.F16,), FT.MOSTLY_BF16: (T.BF16,),
    FT.MOSTLY_Q4_0: (T.Q4_0, T.Q4_1, *_K_OUT), FT.MOSTLY_Q4_1: (T.Q4_1, *_K_OUT),
    FT.MOSTLY_Q5_0: (T.Q5_0, T.Q5_1, *_K_OUT), FT.MOSTLY_Q5_1: (T.Q5_1, *_K_OUT),
    FT.MOSTLY_Q8_0: (T.Q8_0,),
    FT.MOSTLY_Q2_K: (T.Q2_K, T.Q3_K, T.Q4_K, *_K_OUT), FT.MOSTLY_Q2_K_S: (T.Q2_K, T.Q4_K, *_K_OUT),
    FT.MOSTLY_Q3_K_S: (T.Q3_K, *_K_OUT), FT.MOSTLY_Q3_K_M: (T.Q3_K, T.Q4_K, T.Q5_K, *_K_OUT),
    FT.MOSTLY_Q3_K_L: (T.Q3_K, T.Q4_K, T.Q5_K, *_K_OUT),
    FT.MOSTLY_Q4_K_S: (T.Q4_K, T.Q5_K, *_K_OUT), FT.MOSTLY_Q4_K_M: (T.Q4_K, T.Q5_K, *_K_OUT),
    FT.MOSTLY_Q5_K_S: (T.Q5_K, *_K_OUT), FT.MOSTLY_Q5_K_M: (T.Q5_K, *_K_OUT), FT.MOSTLY_Q6_K: (T.Q6_K,),
    FT.MOSTLY_IQ2_XXS: (T.IQ2_XXS, *_IQ_LOW), FT.MOSTLY_IQ2_XS: (T.IQ2_XS, *_IQ_LOW),
    FT.MOSTLY_IQ2_S: (T.IQ2_XS, T.IQ3_S, T.Q4_K, T.Q5_K), FT.MOSTLY_IQ2_M: (T.IQ2_S, T.IQ3_S, T.Q4_K, T.Q5_K),
    FT.MOSTLY_IQ1_S: (T.IQ1_S, T.IQ2_XXS, *_IQ_LOW), FT.MOSTLY_IQ1_M: (T.IQ1_M, T.IQ2_XXS, *_IQ_LOW),
    FT.MOSTLY_IQ3_XXS: (T.IQ3_XXS, T.IQ2_S, T.IQ3_S, T.Q3_K, T.Q4_K, T.Q5_K),
    FT.MOSTLY_IQ3_XS: (T.IQ3_S, T.IQ3_XXS, T.Q4_K, *_K_OUT), FT.MOSTLY_IQ3_S: (T.IQ3_S, T.Q4_K, *_K_OUT),
    FT.MOSTLY_IQ3_M: (T.IQ3_S, T.Q4_K, *_K_OUT),
    FT.MOSTLY_IQ4_NL: (T.IQ4_NL, T.Q5_K, *_K_OUT), FT.MOSTLY_IQ4_XS: (T.IQ4_XS, T.Q5_K, *_K_OUT),
    FT.MOSTLY_TQ1_0: (T.TQ1_0, T.Q4_K, *_K_OUT), FT.MOSTLY_TQ2_0: (T.TQ2_0, T.Q4_K, *_K_OUT),
    FT.MOSTLY_MXFP4_MOE: (T.MXFP4, T.Q8_0), FT.MOSTLY_NVFP4: (T.NVFP4, *_K_OUT), FT.MOSTLY_Q1_0: (T.Q1_0, *_K_OUT),
}
# tensor_type_fallback: the type written instead when a row's width is not a multiple of the type's block
FALLBACK = {
    **dict.fromkeys((T.IQ1_S, T.IQ1_M, T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ3_S, T.IQ4_XS), T.IQ4_NL),
    **dict.fromkeys((T.Q2_K, T.Q3_K, T.TQ1_0, T.TQ2_0), T.Q4_0),
    T.Q4_K: T.Q5_0, T.Q5_K: T.Q5_1, T.Q6_K: T.Q8_0,
}
# llama_model_loader's guess without general.file_type: the most common type -> the file type it names
_GUESSED = {T.F32: FT.ALL_F32, T.Q3_K: FT.MOSTLY_Q3_K_M, T.Q4_K: FT.MOSTLY_Q4_K_M, T.Q5_K: FT.MOSTLY_Q5_K_M}


class QuantMismatch(Exception):
    """The header's ``general.file_type`` (``claimed``) is not what its weights are (``found``)."""

    def __init__(self, claimed: str, found: str, detail: str):
        super().__init__(detail)
        self.claimed, self.found, self.detail = claimed, found, detail


def quantization(tensors, file_type: int | None) -> str:
    """The quantization of a file whose tensor infos (every part's) are ``tensors`` and whose header says
    ``file_type`` (None: no general.file_type)."""
    weights = [t for t in tensors if _is_weight(t)] or list(tensors)  # no matrix at all: every tensor, as the loader
    guess = guessed(weights)
    if file_type is None:
        return guess
    try:
        claim = FT(file_type)
    except ValueError:
        raise QuantMismatch(f"file type {file_type}", guess, f"its general.file_type is {file_type}, no type the "
                                                             f"pinned llama.cpp writes; its weights are {guess}") from None
    name = _ftype_name(claim)
    recipe = RECIPES.get(claim, ())
    foreign = [t for t in weights if t.ggml_type not in {_written(x, t.shape[0]) for x in recipe}]
    total, off = sum(map(_bytes, weights)), sum(map(_bytes, foreign))
    if weights and off * 2 < total:
        return name
    raise QuantMismatch(name, guess, f"its general.file_type says {name} ({file_type}), but {off * 100 // total}% of "
                                     f"its weight bytes ({len(foreign)} of its {len(weights)} weight tensors) are of "
                                     f"types llama.cpp never writes for {name} ({_summary(weights)}): its tensors "
                                     f"are {guess}")


def guessed(weights) -> str:
    """The type that holds the most weight bytes (first to reach the maximum, in name order), named as llama.cpp's
    loader names its guess."""
    held: Counter = Counter()
    best, most = T.F32, 0
    for tensor in sorted(weights, key=lambda t: t.name):
        held[tensor.ggml_type] += _bytes(tensor)
        if held[tensor.ggml_type] > most:
            best, most = tensor.ggml_type, held[tensor.ggml_type]
    try:
        kind = T(best)
    except ValueError:
        return f"type {best}"
    ftype = _GUESSED.get(kind) or getattr(FT, f"MOSTLY_{kind.name}", None)
    return _ftype_name(ftype) if ftype is not None else _ftype_name(FT.ALL_F32)  # the loader's default


def _bytes(tensor) -> int:
    """A weight's bytes, at least 1 (so a file of empty tensors is weighed by their count)."""
    return max(tensor.nbytes() or 0, 1)


def _is_weight(tensor) -> bool:
    dims = max((i + 1 for i, n in enumerate(tensor.shape) if n > 1), default=1)  # ggml_n_dims
    return dims >= 2 and not any(fragment in tensor.name for fragment in KEPT)


def _written(kind: T, row: int) -> int:
    """The type llama-quantize writes when it targets ``kind`` for rows of ``row`` values (tensor_type_fallback)."""
    block = gguf.GGML_QUANT_SIZES[kind][0]
    if row % block == 0:
        return kind
    fallback = FALLBACK.get(kind, kind)
    return fallback if row % gguf.GGML_QUANT_SIZES[fallback][0] == 0 else T.F16


def _ftype_name(ftype: FT) -> str:
    return ftype.name.removeprefix("MOSTLY_").removeprefix("ALL_")


def _summary(tensors) -> str:
    counts = Counter(getattr(t, "type_name", str(t.ggml_type)) for t in tensors)
    return ", ".join(f"{n} {kind}" for kind, n in counts.most_common(4)) + (" ..." if len(counts) > 4 else "")
