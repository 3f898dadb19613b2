"""Batched sequences for the llamacpp backend: several prompts in one llama_decode, each its own sequence (seq id,
positions from 0, its own KV stream: a second context with n_seq_max streams of the one-prompt context's size),
reading each prompt's last-position logits. A GPU is then busy with thousands of tokens at a time, not one 450-token
prompt.

How many (`sequences`): None, the default, 1 everywhere, the GPU worker's included, until batching has been timed and
checked on a GPU (none has run it yet: bench/gpu_device_run.sh does both on a lent GPU machine); a count, that many; "auto", on CUDA as many as GPU_MEMORY_SHARE of the GPU
memory free after loading holds (KV and logits per sequence, at most MAX_SEQUENCES), 1 on the CPU.

On an f32 file the letter probabilities equal one prompt at a time's within 1e-4. On a quantized file they need not:
llama.cpp's CPU kernels quantize a ubatch's activations to 8 bits and choose their path (weight repacking's rows in
fours, tinyBLAS or not) by the ubatch's size, so a token's logits depend on the ubatch it is decoded in, and the
8-bit rounding turns float-order differences into whole steps. On Gemma 3 270M Q4_K_M a letter's probability moves
by up to ~2e-2 between one prompt at a time, the same prompt decoded in two parts (as after a kept prefix) and
batched sequences (tests/evaluator/test_real_gguf.py measures it).
"""
from __future__ import annotations

import ctypes
import os
from typing import Any

from .base import BackendError

MAX_SEQUENCES = 64          # prompts per llama_decode at most when sized to a GPU's memory
GPU_MEMORY_SHARE = 0.5      # of the GPU memory free after loading, for the batched context's KV and logits
GPU_SEQUENCES_UNKNOWN = 16  # when the free memory cannot be read
GPU_UBATCH = 2048           # tokens per ubatch in the batched context on a GPU (the CPU keeps llama.cpp's 512)


def sequences_for_memory(free_bytes: int | None, per_sequence_bytes: int, *, limit: int = MAX_SEQUENCES) -> int:
    """Prompts per llama_decode that GPU_MEMORY_SHARE of `free_bytes` holds, each needing `per_sequence_bytes`
    (its KV at the context's size and its row of logits); GPU_SEQUENCES_UNKNOWN when the free memory is unknown."""
    if free_bytes is None:
        return max(1, min(limit, GPU_SEQUENCES_UNKNOWN))
    return max(1, min(limit, int(free_bytes * GPU_MEMORY_SHARE) // max(1, per_sequence_bytes)))


def free_gpu_bytes(device: str) -> int | None:
    """Free memory of the run's GPU as nvidia-smi reports it (the device's index among those visible); None if
    it cannot be read."""
    import subprocess

    index = device.partition(":")[2] or "0"
    visible = [v for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if visible and index.isdigit() and int(index) < len(visible):
        index = visible[int(index)].strip()
    try:
        out = subprocess.run(["nvidia-smi", f"--id={index}", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20, check=True).stdout
        return int(out.split()[0]) * 2**20
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def kv_bytes_per_token(lib, llm, metadata: dict, kv_cache_type: str) -> int:
    """KV cache bytes one token takes in every layer (keys and values at the cache's type)."""
    model = llm.model
    arch = metadata.get("general.architecture", "")
    head_dim = lib.llama_model_n_embd(model) // max(1, lib.llama_model_n_head(model))
    k_len = int(metadata.get(f"{arch}.attention.key_length") or head_dim)
    v_len = int(metadata.get(f"{arch}.attention.value_length") or head_dim)
    element = 2 if kv_cache_type == "f16" else 4
    return lib.llama_model_n_layer(model) * lib.llama_model_n_head_kv(model) * (k_len + v_len) * element


def sequences_count(asked: int | str | None, *, device: str, lib, llm, per_sequence_bytes, sizing_prompts
                    ) -> tuple[int, str]:
    """(prompts per llama_decode, why) for `asked` (the module's docstring); `per_sequence_bytes()` is called only
    when sizing to a GPU."""
    if asked is None:
        return 1, "one prompt at a time (the default until batching is timed and checked on a GPU)"
    if not isinstance(asked, str):
        if asked < 1:
            raise BackendError(f"sequences {asked}: at least 1 prompt per llama_decode")
        count, why = asked, "asked for"
    elif asked != "auto":
        raise BackendError(f"sequences {asked!r}: a count of prompts per llama_decode, or \"auto\"")
    elif device.startswith("cuda"):
        per_sequence = per_sequence_bytes()
        free = free_gpu_bytes(device)
        count = sequences_for_memory(free, per_sequence)
        why = (f"sized to the GPU: {GPU_MEMORY_SHARE:.0%} of {free / 2**30:.1f} GiB free after loading, "
               f"{per_sequence / 2**20:.1f} MiB per sequence, at most {MAX_SEQUENCES}" if free is not None else
               f"the GPU's free memory could not be read: {GPU_SEQUENCES_UNKNOWN}")
    else:
        return 1, "one prompt at a time on the CPU (\"auto\" sizes to a GPU; a count asks for more)"
    count = min(count, lib.llama_max_parallel_sequences())
    if sizing_prompts:
        count = min(count, len(sizing_prompts))
    return max(1, count), why


class BatchedSequences:
    """A context of `n` sequences over `llm`'s model, each its own KV stream of `n_ctx` tokens."""

    def __init__(self, lib, llm, n: int, *, n_ctx: int, device: str):
        import numpy as np
        from llama_cpp._internals import LlamaContext
        from llama_cpp._utils import suppress_stdout_stderr

        self.lib, self.n = lib, n
        self.decode_tokens = n * n_ctx  # tokens per llama_decode: `n` prompts at most
        params = lib.llama_context_params.from_buffer_copy(llm.context_params)
        params.n_seq_max, params.kv_unified = n, False  # a KV stream per sequence: none attends to another's cells
        params.n_ctx = params.n_batch = self.decode_tokens
        params.n_ubatch = min(params.n_batch, GPU_UBATCH if device.startswith("cuda") else 512)
        try:
            with suppress_stdout_stderr(disable=False):
                self.context = LlamaContext(model=llm._model, params=params, verbose=False)
        except ValueError as exc:
            raise BackendError(f"llama.cpp could not make a context of {n} sequences of {n_ctx} tokens "
                               f"({exc}): ask for fewer (sequences=)") from exc
        self.n_vocab = llm.n_vocab()
        self._seq_ids = np.arange(n, dtype=np.int32)  # sequence s's id, pointed at by each of its tokens (kept alive)
        self._addresses = (self._seq_ids.ctypes.data + self._seq_ids.itemsize * np.arange(n)).astype(np.uintp)

    def groups(self, encoded) -> list[list[Any]]:
        """`encoded` (index, ids) cut into runs of neighbours in token order: at most `n` prompts and
        `decode_tokens` tokens each."""
        groups: list[list] = []
        tokens = 0
        for item in encoded:
            if not groups or len(groups[-1]) == self.n or tokens + len(item[1]) > self.decode_tokens:
                groups.append([])
                tokens = 0
            groups[-1].append(item)
            tokens += len(item[1])
        return groups

    def decode(self, group: list[list[int]]):
        """One llama_decode of the prompts in `group`, sequence s holding group[s] at positions 0..; the logits of
        each prompt's last position, in order."""
        import numpy as np

        lib, ctx = self.lib, self.context.ctx
        lengths = np.array([len(ids) for ids in group])
        n = int(lengths.sum())
        tokens = np.fromiter((t for ids in group for t in ids), dtype=np.int32, count=n)
        positions = np.concatenate([np.arange(k, dtype=np.int32) for k in lengths])
        n_seq_id = np.ones(n, dtype=np.int32)
        seq_ids = np.repeat(self._addresses[: len(group)], lengths)  # each token: the address of its seq id
        last = np.cumsum(lengths) - 1
        outputs = np.zeros(n, dtype=np.int8)
        outputs[last] = 1
        pointer = ctypes.POINTER
        batch = lib.llama_batch(
            n_tokens=n, token=tokens.ctypes.data_as(pointer(lib.llama_token)), embd=None,
            pos=positions.ctypes.data_as(pointer(lib.llama_pos)), n_seq_id=n_seq_id.ctypes.data_as(
                pointer(ctypes.c_int32)), seq_id=seq_ids.ctypes.data_as(pointer(pointer(lib.llama_seq_id))),
            logits=outputs.ctypes.data_as(pointer(ctypes.c_int8)))
        lib.llama_memory_clear(lib.llama_get_memory(ctx), False)
        status = lib.llama_decode(ctx, batch)
        if status != 0:
            raise BackendError(f"llama_decode failed on {len(group)} sequences of {n} tokens (status {status})")
        return [np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx, int(i)), shape=(self.n_vocab,)).astype(np.float64)
                for i in last]

    def close(self) -> None:
        self.context.close()
