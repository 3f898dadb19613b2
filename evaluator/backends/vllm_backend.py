"""vLLM backend (GPU workers; the CPU build runs it in CI), for vLLM >= 0.18.

One SamplingParams for the whole batch: max_tokens=1, temperature=0, and the
letter tokens' log-probs requested by id (`logprob_token_ids`), which returns
exactly those ids whatever their rank. Older builds without that field fall
back to `logprobs=K` + `allowed_token_ids`; there the returned log-probs are the
raw top-K over the whole vocabulary (vLLM computes them before the whitelist),
so a letter outside the top K reads as 0 and letter_mass is a lower bound.

No prompt_logprobs: it switches off prefix-cache reads, and the few-shot
exemplars are placed first precisely so the prefix cache can reuse them.

The engine loads what the transformers backend loads: safetensors only, Hugging
Face config and tokenizer formats, and no generation_config defaults. Prompts are
tokenized here with the Hugging Face tokenizer, so both backends see the same ids.
The context is sized to the prompts (`sizing_prompts`), not to the model's maximum:
a 128k-context model must not reserve KV cache for 128k tokens. A prompt longer
than the context fails that question (None), never the batch.

vLLM starts its engine in child processes: call `close()` when done, or the
interpreter waits for them at exit.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import math
import time
from typing import Any, Sequence

from .. import checkpoint
from ..decoding import GREEDY, DecodingRule
from ..questions import LETTERS
from .base import (
    BackendError, BackendUnavailable, describe_common, encode_prompt, letter_token_forms, logsumexp,
)

FALLBACK_TOP_K = 20  # vLLM's default max_logprobs
CONTEXT_CEILING = 8192  # tokens; the longest context a run reserves KV cache for
GPU_MEMORY_SHARE = 0.85  # of the GPU: weights, activations and the KV cache
CPU_MEMORY_SHARE = 0.1   # of the host (CPU build): the web, database and tests share that machine
CONTEXT_MARGIN = 32     # answer-order variants and chat wrapping can add a few tokens to a prompt


def _import_vllm():
    try:
        import vllm
    except ImportError as exc:
        raise BackendUnavailable(
            "the vllm backend needs vLLM on a CUDA machine: pip install 'vllm>=0.18' "
            "(or pip install -r requirements-gpu.txt)"
        ) from exc
    return vllm


def _has_field(cls: Any, name: str) -> bool:
    fields = getattr(cls, "__struct_fields__", None)  # SamplingParams is a msgspec Struct
    if fields is not None:
        return name in fields
    try:
        return name in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return hasattr(cls, name)


def _logprob_value(entry: Any) -> float:
    value = getattr(entry, "logprob", entry)  # vllm.logprobs.Logprob or a bare float
    return float(value) if value is not None else -math.inf


class VLLMBackend:
    name = "vllm"

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        dtype: str | None = "auto",
        quantization: str | None = None,
        seed: int = 0,
        device: str = "cuda",
        batch_size: int | None = None,  # vLLM schedules its own batches; accepted for a uniform CLI
        max_model_len: int | None = None,
        sizing_prompts: Sequence[str] | None = None,
        max_new_tokens: int = 1,
        use_chat_template: bool = False,
        gpu_memory_utilization: float | None = None,
        llm: Any = None,
        tokenizer_obj: Any = None,
        **llm_kwargs: Any,
    ) -> None:
        self._vllm = _import_vllm()
        self.model_id, self.revision, self.device = model, revision, device
        # "auto" would let vLLM pick (bfloat16 for a float32 checkpoint on CPU): resolve it as transformers does.
        self.dtype = dtype if dtype and dtype != "auto" else ("bfloat16" if device.startswith("cuda") else "float32")
        self.quantization = quantization
        if gpu_memory_utilization is None:  # on CPU vLLM reserves this share of the host's memory
            gpu_memory_utilization = GPU_MEMORY_SHARE if device.startswith("cuda") else CPU_MEMORY_SHARE
        t0 = time.perf_counter()
        self.tokenizer = tokenizer_obj or _hf_tokenizer(model, revision)
        if max_model_len is None and sizing_prompts:
            max_model_len = self.context_for(sizing_prompts, model=model, revision=revision,
                                             max_new_tokens=max_new_tokens, use_chat_template=use_chat_template)
        self.max_model_len = max_model_len
        if llm is None:
            kwargs = dict(
                model=model, revision=revision, tokenizer_revision=revision, dtype=self.dtype, seed=seed,
                quantization=quantization, enable_prefix_caching=True, trust_remote_code=False,
                load_format="safetensors", tokenizer_mode="hf", config_format="hf", generation_config="vllm",
                gpu_memory_utilization=gpu_memory_utilization, max_logprobs=2 * len(LETTERS),
            )
            if max_model_len:
                kwargs["max_model_len"] = max_model_len
            kwargs.update(llm_kwargs)
            llm = self._vllm.LLM(**kwargs)
        self.llm = llm
        self.load_seconds = time.perf_counter() - t0
        self.forms = letter_token_forms(self.tokenizer, LETTERS)
        self.stats = {"prompt_tokens": 0, "forward_seconds": 0.0, "forwards": 0, "too_long": 0}
        self._skip_cache_reads = False

    def context_for(self, prompts: Sequence[str], *, model: str, revision: str | None, max_new_tokens: int,
                    use_chat_template: bool) -> int:
        """Longest prompt + new tokens + a margin, rounded up to 256, under the model's limit and the ceiling."""
        longest = max(self.count_tokens(p, use_chat_template=use_chat_template) for p in prompts)
        need = -(-(longest + max_new_tokens + CONTEXT_MARGIN) // 256) * 256
        limit = checkpoint.context_limit(checkpoint.config_dict(model, revision)) or CONTEXT_CEILING
        return min(need, limit, CONTEXT_CEILING)

    @property
    def max_prompt_tokens(self) -> int | None:
        return self.max_model_len - 1 if self.max_model_len else None

    def close(self) -> None:
        """Stop the engine's processes (and free its GPU memory) now, not at interpreter exit."""
        llm, self.llm = getattr(self, "llm", None), None
        core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        if core is not None and hasattr(core, "shutdown"):
            core.shutdown()

    # -- request building --------------------------------------------------------
    def letter_sampling_params(self) -> Any:
        """The single SamplingParams used for every letter-scoring request."""
        SamplingParams = self._vllm.SamplingParams
        ids = sorted({i for ids in self.forms.values() for i in ids})
        extra = {"skip_reading_prefix_cache": True} if self._skip_cache_reads else {}
        if _has_field(SamplingParams, "logprob_token_ids"):
            return SamplingParams(max_tokens=1, temperature=0.0, logprob_token_ids=ids, **extra)
        return SamplingParams(max_tokens=1, temperature=0.0, logprobs=FALLBACK_TOP_K, allowed_token_ids=ids, **extra)

    @contextlib.contextmanager
    def cold_cache(self):
        """Timed measurements (efficiency) must compute every prompt: no prefix-cache reads inside."""
        self._skip_cache_reads = True
        try:
            yield
        finally:
            self._skip_cache_reads = False

    def _requests(self, prompts: Sequence[str], use_chat_template: bool, new_tokens: int):
        """(index, TokensPrompt) for the prompts that fit the context; the others are answered None.

        We tokenize ourselves so the chat template's BOS is not doubled and both backends see identical ids.
        """
        limit = self.max_model_len - new_tokens if self.max_model_len else None
        out = []
        for i, p in enumerate(prompts):
            ids = encode_prompt(self.tokenizer, p, use_chat_template=use_chat_template)
            if limit is not None and len(ids) > limit:
                self.stats["too_long"] += 1
                continue
            out.append((i, {"prompt_token_ids": ids}))
        return out

    def _run(self, prompts: Sequence[str], params: Any, use_chat_template: bool, new_tokens: int) -> list:
        requests = self._requests(prompts, use_chat_template, new_tokens)
        t0 = time.perf_counter()
        outputs = self.llm.generate([r for _, r in requests], params, use_tqdm=False) if requests else []
        self.stats["forward_seconds"] += time.perf_counter() - t0
        self.stats["prompt_tokens"] += sum(len(r["prompt_token_ids"]) for _, r in requests)
        self.stats["forwards"] += 1
        if len(outputs) != len(requests):
            raise BackendError(f"vLLM returned {len(outputs)} outputs for {len(requests)} prompts")
        answered: list = [None] * len(prompts)
        for (i, _), out in zip(requests, outputs):
            answered[i] = out
        return answered

    # -- protocol --------------------------------------------------------------
    def count_tokens(self, prompt: str, *, use_chat_template: bool = False) -> int:
        return len(encode_prompt(self.tokenizer, prompt, use_chat_template=use_chat_template))

    def letter_logprobs(self, prompts: Sequence[str], *,
                        use_chat_template: bool = False) -> list[dict[str, float] | None]:
        outputs = self._run(prompts, self.letter_sampling_params(), use_chat_template, 1)
        return [None if out is None else self.read_letter_logprobs(out) for out in outputs]

    def read_letter_logprobs(self, request_output: Any) -> dict[str, float]:
        """RequestOutput -> letter -> log(sum of P over its forms); an absent id counts as probability 0."""
        completion = request_output.outputs[0]
        steps = completion.logprobs
        if not steps:
            raise BackendError("vLLM returned no logprobs; is logprob_token_ids/logprobs supported?")
        step = steps[0]  # position of the single generated token
        return {
            L: logsumexp([_logprob_value(step[i]) if i in step else -math.inf for i in ids])
            for L, ids in self.forms.items()
        }

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False,
                 decoding: DecodingRule = GREEDY) -> list[str | None]:
        # Every field of the rule explicitly: llm.generate with explicit params ignores the checkpoint's
        # generation_config defaults (llm.get_default_sampling_params) except its EOS ids.
        self.decoding = decoding
        params = self._vllm.SamplingParams(max_tokens=max_new_tokens, **decoding.vllm_kwargs())
        outputs = self._run(prompts, params, use_chat_template, max_new_tokens)
        # Decoded here from the token ids, as the transformers backend does: vLLM's incremental
        # detokenizer holds back an incomplete UTF-8 tail, which would make the texts differ. The token ids
        # run to the one that completed a stop string; `finish` cuts the text before it, as vLLM's text is.
        return [None if o is None else decoding.finish(self.tokenizer.decode(
                    list(o.outputs[0].token_ids), skip_special_tokens=decoding.skip_special_tokens))
                for o in outputs]

    # -- efficiency ------------------------------------------------------------
    @functools.cached_property
    def _weights(self) -> tuple[int, int] | None:
        """(parameters, bytes) from the checkpoint's safetensors headers, read once."""
        try:
            return checkpoint.safetensors_totals(checkpoint.model_folder(self.model_id, self.revision))
        except Exception:  # noqa: BLE001 - a figure for the card, never a reason to fail the run
            return None

    def param_count(self) -> int | None:
        return self._weights[0] if self._weights else None

    def weight_bytes(self) -> int | None:
        return self._weights[1] if self._weights else None

    @property
    def peak_memory_kind(self) -> str:
        return "GPU memory in use (NVML)" if self.device.startswith("cuda") else "peak RSS of the engine processes"

    def peak_memory_bytes(self) -> int | None:
        """vLLM reserves its KV cache up front, so the GPU figure is what the engine holds; on CPU the
        high-water RSS of this process and the engine's processes."""
        if self.device.startswith("cuda"):
            return _nvml_used_bytes(self.device)
        return _tree_peak_rss()

    def describe(self) -> dict[str, Any]:
        return describe_common(
            self, dtype=self.dtype, quantization=self.quantization, max_model_len=self.max_model_len,
            versions={"vllm": getattr(self._vllm, "__version__", "unknown")}, prompts_too_long=self.stats["too_long"],
            logprob_request="logprob_token_ids"
            if _has_field(self._vllm.SamplingParams, "logprob_token_ids") else "logprobs+allowed_token_ids",
        )


def _hf_tokenizer(model: str, revision: str | None):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(model, revision=revision, trust_remote_code=False)


def _nvml_used_bytes(device: str) -> int | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        return int(pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(index)).used)
    except Exception:  # noqa: BLE001 - no NVML: no figure
        return None


def _tree_peak_rss() -> int | None:
    """Sum of VmHWM (peak resident set) over this process and its descendants (Linux)."""
    try:
        import psutil
    except ImportError:
        return None
    total = 0
    me = psutil.Process()
    for proc in [me, *me.children(recursive=True)]:
        try:
            with open(f"/proc/{proc.pid}/status") as fh:
                total += next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
        except (OSError, StopIteration, psutil.Error):
            continue
    return total or None
