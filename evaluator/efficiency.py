"""Efficiency on the evaluating hardware. These are server measurements (the GPU
worker's hardware and backend), not on-device numbers, and are labelled so."""
from __future__ import annotations

import contextlib
import hashlib
import statistics
import time
from typing import Any, Sequence

SAMPLE_SIZE = 32


def fixed_sample(items: Sequence[Any], key, k: int = SAMPLE_SIZE) -> list[Any]:
    """The same k items for every model: ordered by sha256 of their key, not by chance."""
    return sorted(items, key=lambda it: hashlib.sha256(str(key(it)).encode()).hexdigest())[:k]


class _Energy:
    """GPU energy counter via NVML (nvidia-ml-py); None where NVML or the counter is missing."""

    def __init__(self, device_index: int = 0) -> None:
        self.handle = None
        try:
            import pynvml  # provided by nvidia-ml-py
            pynvml.nvmlInit()
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
            self.read()
        except Exception:  # no NVML, no GPU, or the counter is unsupported (pre-Volta)
            self.handle = None

    def read(self) -> float | None:
        if self.handle is None:
            return None
        return self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle) / 1000.0  # mJ -> J


def _device_index(device: Any) -> int:
    text = str(device or "")
    return int(text.split(":", 1)[1]) if ":" in text else 0


def _sync(backend: Any) -> None:
    torch = getattr(backend, "torch", None)
    if torch is not None and str(getattr(backend, "device", "")).startswith("cuda"):
        torch.cuda.synchronize()


def measure_efficiency(backend: Any, prompts: Sequence[str], *, use_chat_template: bool = False,
                       sample_size: int = SAMPLE_SIZE) -> dict[str, Any]:
    """Load time, prefill tokens/s, batch-1 latency per question, peak memory, weights, energy.

    `prompts` should be the fixed sample (see fixed_sample); its first `sample_size` are used.
    """
    sample = list(prompts)[:sample_size]
    out: dict[str, Any] = {
        "label": "server measurement (evaluating hardware, not on-device)",
        "backend": getattr(backend, "name", "?"),
        "device": getattr(backend, "device", None),
        "load_seconds": getattr(backend, "load_seconds", None),
        "param_count": backend.param_count() if hasattr(backend, "param_count") else None,
        "weight_bytes": backend.weight_bytes() if hasattr(backend, "weight_bytes") else None,
        "sample_size": len(sample),
    }
    if not sample:
        return out
    backend.letter_logprobs(sample[:1], use_chat_template=use_chat_template)  # warm-up (kernels, caches)
    # The run has just scored these very prompts: a prefix cache would answer from memory and the
    # timings would measure a lookup, not a prefill.
    with getattr(backend, "cold_cache", contextlib.nullcontext)():
        out.update(_timed(backend, sample, use_chat_template))
    return out


def _timed(backend: Any, sample: Sequence[str], use_chat_template: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    device = getattr(backend, "device", None)
    on_gpu = str(device or "").startswith("cuda")
    energy = _Energy(_device_index(device)) if on_gpu else None
    e0 = energy.read() if energy else None
    latencies = []
    for p in sample:
        _sync(backend)
        t0 = time.perf_counter()
        backend.letter_logprobs([p], use_chat_template=use_chat_template)
        _sync(backend)
        latencies.append(time.perf_counter() - t0)
    e1 = energy.read() if energy else None
    tokens = sum(backend.count_tokens(p, use_chat_template=use_chat_template) for p in sample)
    _sync(backend)
    t0 = time.perf_counter()
    backend.letter_logprobs(sample, use_chat_template=use_chat_template)  # batched prefill
    _sync(backend)
    batched = time.perf_counter() - t0
    lat_sorted = sorted(latencies)
    out.update({
        "batch1_latency_s": {
            "mean": statistics.fmean(latencies), "p50": statistics.median(latencies),
            "p95": lat_sorted[min(len(lat_sorted) - 1, int(0.95 * len(lat_sorted)))],
        },
        "prefill_tokens_per_s": tokens / batched if batched > 0 else None,
        "sample_prompt_tokens": tokens,
        "peak_memory_bytes": backend.peak_memory_bytes() if hasattr(backend, "peak_memory_bytes") else None,
        "peak_memory_kind": getattr(backend, "peak_memory_kind",
                                    "cuda max_memory_allocated" if on_gpu else "process peak RSS"),
        "energy_j_per_question": (e1 - e0) / len(sample) if e0 is not None and e1 is not None else None,
    })
    return out
