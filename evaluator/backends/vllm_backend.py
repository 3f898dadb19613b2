"""vLLM backend (GPU workers), for vLLM >= 0.18.

One SamplingParams for the whole batch: max_tokens=1, temperature=0, and the
letter tokens' log-probs requested by id (`logprob_token_ids`), which returns
exactly those ids whatever their rank. Older builds without that field fall
back to `logprobs=K` + `allowed_token_ids`; there the returned log-probs are the
raw top-K over the whole vocabulary (vLLM computes them before the whitelist),
so a letter outside the top K reads as 0 and letter_mass is a lower bound.

No prompt_logprobs: it switches off prefix-cache reads, and the few-shot
exemplars are placed first precisely so the prefix cache can reuse them.
"""
from __future__ import annotations

import inspect
import math
import time
from typing import Any, Sequence

from ..questions import LETTERS
from .base import BackendError, BackendUnavailable, encode_prompt, letter_token_forms, logsumexp

FALLBACK_TOP_K = 20  # vLLM's default max_logprobs


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
        seed: int = 0,
        device: str = "cuda",
        batch_size: int | None = None,  # vLLM schedules its own batches; accepted for a uniform CLI
        max_model_len: int | None = None,
        gpu_memory_utilization: float = 0.85,
        llm: Any = None,
        **llm_kwargs: Any,
    ) -> None:
        self._vllm = _import_vllm()
        self.model_id, self.revision, self.dtype = model, revision, dtype or "auto"
        t0 = time.perf_counter()
        if llm is None:
            kwargs = dict(
                model=model, revision=revision, tokenizer_revision=revision, dtype=self.dtype, seed=seed,
                enable_prefix_caching=True, trust_remote_code=False,
                gpu_memory_utilization=gpu_memory_utilization, max_logprobs=2 * len(LETTERS),
            )
            if max_model_len:
                kwargs["max_model_len"] = max_model_len
            kwargs.update(llm_kwargs)
            llm = self._vllm.LLM(**kwargs)
        self.llm = llm
        self.load_seconds = time.perf_counter() - t0
        self.tokenizer = llm.get_tokenizer()
        self.forms = letter_token_forms(self.tokenizer, LETTERS)
        self.stats = {"prompt_tokens": 0, "forward_seconds": 0.0, "forwards": 0}

    # -- request building --------------------------------------------------------
    def letter_sampling_params(self) -> Any:
        """The single SamplingParams used for every letter-scoring request."""
        SamplingParams = self._vllm.SamplingParams
        ids = sorted({i for ids in self.forms.values() for i in ids})
        if _has_field(SamplingParams, "logprob_token_ids"):
            return SamplingParams(max_tokens=1, temperature=0.0, logprob_token_ids=ids)
        return SamplingParams(max_tokens=1, temperature=0.0, logprobs=FALLBACK_TOP_K, allowed_token_ids=ids)

    def _prompts(self, prompts: Sequence[str], use_chat_template: bool) -> list[dict[str, list[int]]]:
        # We tokenize ourselves (TokensPrompt dicts) so the chat template's BOS is not doubled
        # and both backends see identical token ids.
        return [{"prompt_token_ids": encode_prompt(self.tokenizer, p, use_chat_template=use_chat_template)}
                for p in prompts]

    # -- protocol --------------------------------------------------------------
    def count_tokens(self, prompt: str, *, use_chat_template: bool = False) -> int:
        return len(encode_prompt(self.tokenizer, prompt, use_chat_template=use_chat_template))

    def letter_logprobs(self, prompts: Sequence[str], *, use_chat_template: bool = False) -> list[dict[str, float]]:
        requests = self._prompts(prompts, use_chat_template)
        params = self.letter_sampling_params()
        t0 = time.perf_counter()
        outputs = self.llm.generate(requests, params, use_tqdm=False)
        self.stats["forward_seconds"] += time.perf_counter() - t0
        self.stats["prompt_tokens"] += sum(len(r["prompt_token_ids"]) for r in requests)
        self.stats["forwards"] += 1
        if len(outputs) != len(requests):
            raise BackendError(f"vLLM returned {len(outputs)} outputs for {len(requests)} prompts")
        return [self.read_letter_logprobs(out) for out in outputs]

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

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False) -> list[str]:
        params = self._vllm.SamplingParams(max_tokens=max_new_tokens, temperature=0.0)
        outputs = self.llm.generate(self._prompts(prompts, use_chat_template), params, use_tqdm=False)
        return [o.outputs[0].text for o in outputs]

    def param_count(self) -> int | None:
        return None  # weights live in vLLM's engine process

    def weight_bytes(self) -> int | None:
        return None

    def peak_memory_bytes(self) -> int | None:
        return None

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model_id,
            "revision": self.revision,
            "device": "cuda",
            "dtype": self.dtype,
            "versions": {"vllm": getattr(self._vllm, "__version__", "unknown")},
            "letter_token_ids": self.forms,
            "load_seconds": self.load_seconds,
            "logprob_request": "logprob_token_ids"
            if _has_field(self._vllm.SamplingParams, "logprob_token_ids") else "logprobs+allowed_token_ids",
        }
