"""Hugging Face transformers backend (CPU and CUDA).

Letter scoring is one forward pass per prompt, left-padded batches, and only
the last position's logits are materialised (`logits_to_keep=1`), so the cost
is one prefill per (question, variant) whatever the number of options.

Prefix reuse (models whose every layer is full attention): prompts sorted by
token ids fall into groups sharing a long prefix (template header, a topic's
exemplars); a group's prefix runs once, its KV cache is repeated over each of
the group's batches and kept for later calls (PrefixKVCache). Other layouts
(sliding windows, SSM/conv/linear-attention layers) are scored in plain
left-padded batches; describe()["prefix_reuse"] says which and why. The layout of that reuse is
evaluator/backends/prefix_reuse.py.
"""
from __future__ import annotations

import contextlib
import copy
import os
import time
from typing import Any, Sequence

from ..decoding import GREEDY, DecodingRule
from ..questions import LETTERS
from .base import (
    BackendError, BackendUnavailable, describe_common, encode_prompt, letter_token_forms, logsumexp,
)
from .prefix_reuse import (
    MIN_SHARED_PREFIX, PREFIX_CACHE_MB, PrefixKVCache, common_prefix_len, even_chunks, prefix_groups,
    prefix_reuse_support, suffix_batch,
)


def _import_torch_transformers():
    try:
        import torch
        import transformers
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailable(
            f"the transformers backend needs torch and transformers ({exc.name} is missing): "
            "pip install torch 'transformers>=4.51' safetensors"
        ) from exc
    return torch, transformers


def resolve_dtype(torch: Any, device: str, dtype: str | None):
    """float32 on CPU (bf16 matmuls are slow and lossy there); bfloat16 on CUDA where supported."""
    if dtype and dtype != "auto":
        return getattr(torch, dtype)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


class TransformersBackend:
    name = "transformers"

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        device: str = "cpu",
        dtype: str | None = "auto",
        batch_size: int = 8,
        seed: int = 0,
        model_obj: Any = None,
        tokenizer_obj: Any = None,
        prefix_reuse: bool = True,
        prefix_cache_mb: float = PREFIX_CACHE_MB,
    ) -> None:
        torch, transformers = _import_torch_transformers()
        self.torch = torch
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise BackendError("device 'cuda' requested but torch sees no CUDA device")
        torch.manual_seed(seed)
        if device.startswith("cuda"):
            # Same inputs -> same bits: no TF32, deterministic kernels where they exist.
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            torch.use_deterministic_algorithms(True, warn_only=True)
        self.model_id, self.revision, self.device = model, revision, device
        self.batch_size = max(1, int(batch_size))
        self.prefix_reuse = prefix_reuse
        self.torch_dtype = resolve_dtype(torch, device, dtype)
        t0 = time.perf_counter()
        # trust_remote_code stays False: GPU workers run models from the internet.
        # use_safetensors: never unpickle a .bin checkpoint.
        self.tokenizer = tokenizer_obj or transformers.AutoTokenizer.from_pretrained(
            model, revision=revision, trust_remote_code=False
        )
        self.model = model_obj or transformers.AutoModelForCausalLM.from_pretrained(
            model, revision=revision, dtype=self.torch_dtype, trust_remote_code=False, use_safetensors=True
        )
        self.model.to(device=device, dtype=self.torch_dtype).eval()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        self.load_seconds = time.perf_counter() - t0
        self.pad_id = self.tokenizer.pad_token_id
        if self.pad_id is None:
            self.pad_id = self.tokenizer.eos_token_id if self.tokenizer.eos_token_id is not None else 0
        try:
            self.forms = letter_token_forms(self.tokenizer, LETTERS)
        except BackendError:  # still usable in generate mode
            self.forms = {}
        # prefix_reuse: what the caller asked for; prefix_reuse_used: what the model allows too.
        supported, why = prefix_reuse_support(self.model)
        self.prefix_reuse_used = prefix_reuse and supported
        self.prefix_reuse_why = why if prefix_reuse else "turned off by the caller"
        self.prefix_cache = PrefixKVCache(int(prefix_cache_mb * 2**20) if self.prefix_reuse_used else 0)
        self.stats = {"prompt_tokens": 0, "computed_tokens": 0, "forward_seconds": 0.0, "forwards": 0,
                      "prefix_hits": 0, "prefix_misses": 0}

    # -- helpers ---------------------------------------------------------------
    def count_tokens(self, prompt: str, *, use_chat_template: bool = False) -> int:
        return len(encode_prompt(self.tokenizer, prompt, use_chat_template=use_chat_template))

    def _batch(self, id_lists: list[list[int]]):
        """Left-pad, with position ids counted from each row's first real token."""
        torch = self.torch
        width = max(len(ids) for ids in id_lists)
        input_ids = torch.full((len(id_lists), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(id_lists), width), dtype=torch.long)
        for r, ids in enumerate(id_lists):
            input_ids[r, width - len(ids):] = torch.tensor(ids, dtype=torch.long)
            mask[r, width - len(ids):] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        return input_ids.to(self.device), mask.to(self.device), positions.to(self.device)

    def _batches(self, encoded: list[list[int]]):
        """Longest first, so each batch holds similar lengths (less padding); order restored by caller."""
        order = sorted(range(len(encoded)), key=lambda i: (-len(encoded[i]), i))
        for start in range(0, len(order), self.batch_size):
            yield order[start:start + self.batch_size]

    def _score_batches(self, encoded: list[list[int]]):
        """(indices, shared prefix length) per batch for letter scoring, in token order: prompts that
        share a prefix (the template header, a topic's exemplars) are adjacent. With prefix reuse,
        batches follow prefix groups, and every batch of a group uses the group's prefix, so its KV
        is computed once (and kept for later calls, see PrefixKVCache)."""
        order = sorted(range(len(encoded)), key=lambda i: (encoded[i], i))
        if not self.prefix_reuse_used:
            for start in range(0, len(order), self.batch_size):
                yield order[start:start + self.batch_size], 0
            return
        for group in prefix_groups([encoded[i] for i in order]):
            idx = [order[p] for p in group]
            shared = common_prefix_len([encoded[i] for i in idx]) if len(idx) > 1 else 0
            for batch in even_chunks(idx, self.batch_size):
                yield batch, shared if shared >= MIN_SHARED_PREFIX else 0

    def _forward(self, **inputs):
        try:
            return self.model(**inputs, logits_to_keep=1)
        except TypeError:  # architectures without logits_to_keep
            return self.model(**inputs)

    @contextlib.contextmanager
    def cold_cache(self):
        """Timed measurements (efficiency) compute every prompt: no prefix kept from earlier calls inside."""
        kept, self.prefix_cache = self.prefix_cache, PrefixKVCache(0)
        try:
            yield
        finally:
            self.prefix_cache = kept

    def close(self) -> None:
        """Nothing runs outside this process; here for the backend protocol (vLLM stops its engine)."""

    def _prefix_kv(self, ids: list[int], repeats: int):
        """The KV cache of `ids` (one row, from PrefixKVCache or computed now), repeated over the batch.
        A copy: the forward appends the suffixes to it in place, and the stored entry must stay as is."""
        key = tuple(ids)
        stored = self.prefix_cache.get(key)
        if stored is None:
            prefix = self.torch.tensor([ids], dtype=self.torch.long, device=self.device)
            stored = self._forward(input_ids=prefix, use_cache=True).past_key_values
            self.prefix_cache.put(key, stored)
            self.stats["prefix_misses"] += 1
            self.stats["computed_tokens"] += len(ids)
        else:
            self.stats["prefix_hits"] += 1
        cache = copy.deepcopy(stored)
        cache.batch_repeat_interleave(repeats)
        return cache

    def _forward_last(self, rows: list[list[int]], shared: int = 0):
        """Last-position logits for a batch. With `shared` > 0 the first `shared` tokens (the same in
        every row) come from their KV cache, the transformers counterpart of vLLM's prefix cache.
        Suffixes are left-padded after the prefix; the mask hides the gap and position ids continue
        from the prefix."""
        if shared:
            cache = self._prefix_kv(rows[0][:shared], len(rows))
            input_ids, mask, positions = suffix_batch(self.torch, rows, shared, self.pad_id)
            self.stats["computed_tokens"] += sum(len(ids) - shared for ids in rows)
            return self._forward(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                                 position_ids=positions.to(self.device), past_key_values=cache,
                                 use_cache=True).logits
        input_ids, mask, positions = self._batch(rows)
        self.stats["computed_tokens"] += int(mask.sum())
        return self._forward(input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=False).logits

    def next_token_logprobs(self, encoded: list[list[int]]):
        """Log-softmax over the vocabulary at the last position, one row per prompt (float32, CPU)."""
        torch = self.torch
        out = [None] * len(encoded)
        with torch.inference_mode():
            for idx, shared in self._score_batches(encoded):
                rows = [encoded[i] for i in idx]
                t0 = time.perf_counter()
                logits = self._forward_last(rows, shared)
                lp = torch.log_softmax(logits[:, -1, :].float(), dim=-1).cpu()
                self.stats["forward_seconds"] += time.perf_counter() - t0
                self.stats["prompt_tokens"] += sum(len(x) for x in rows)
                self.stats["forwards"] += 1
                for row, i in enumerate(idx):
                    out[i] = lp[row]
        return out

    # -- protocol --------------------------------------------------------------
    def letter_logprobs(self, prompts: Sequence[str], *, use_chat_template: bool = False) -> list[dict[str, float]]:
        if not self.forms:
            raise BackendError("this tokenizer has no single-token letters; use --mode generate")
        encoded = [encode_prompt(self.tokenizer, p, use_chat_template=use_chat_template) for p in prompts]
        rows = self.next_token_logprobs(encoded)
        return [
            {L: logsumexp([float(lp[i]) for i in ids]) for L, ids in self.forms.items()}
            for lp in rows
        ]

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False,
                 decoding: DecodingRule = GREEDY) -> list[str]:
        torch = self.torch
        self.decoding = decoding
        encoded = [encode_prompt(self.tokenizer, p, use_chat_template=use_chat_template) for p in prompts]
        out = [""] * len(encoded)
        # The GREEDY rule from scratch. Of the checkpoint's generation_config only the EOS ids count
        # (vLLM stops at them too). generate() fills every field we leave unset (bad_words_ids,
        # suppress_tokens, ...) from model.generation_config, so that is swapped for ours meanwhile.
        import transformers
        checkpoint = self.model.generation_config
        eos = checkpoint.eos_token_id
        eos = {self.tokenizer.eos_token_id, *(eos if isinstance(eos, list) else [eos])} - {None}
        config = transformers.GenerationConfig(
            max_new_tokens=max_new_tokens, pad_token_id=self.pad_id, eos_token_id=sorted(eos) or None,
            **decoding.transformers_kwargs(),
        )
        stops = {"tokenizer": self.tokenizer} if decoding.stop else {}  # stop_strings are matched on its tokens
        self.model.generation_config = config
        try:
            with torch.inference_mode():
                for idx in self._batches(encoded):
                    input_ids, mask, _ = self._batch([encoded[i] for i in idx])
                    gen = self.model.generate(input_ids=input_ids, attention_mask=mask, generation_config=config,
                                              **stops)
                    new = gen[:, input_ids.shape[1]:]
                    for row, i in enumerate(idx):
                        out[i] = decoding.finish(self.tokenizer.decode(
                            new[row], skip_special_tokens=decoding.skip_special_tokens))
        finally:
            self.model.generation_config = checkpoint
        return out

    def param_count(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def weight_bytes(self) -> int:
        return sum(p.numel() * p.element_size() for p in self.model.parameters())

    def peak_memory_bytes(self) -> int | None:
        if self.device.startswith("cuda"):
            return int(self.torch.cuda.max_memory_allocated())
        import resource
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB

    def describe(self) -> dict[str, Any]:
        import transformers
        return describe_common(
            self, dtype=str(self.torch_dtype).replace("torch.", ""), batch_size=self.batch_size,
            prefix_reuse={"requested": self.prefix_reuse, "used": self.prefix_reuse_used,
                          "why": self.prefix_reuse_why, "cache_mb": self.prefix_cache.max_bytes / 2**20},
            versions={"torch": self.torch.__version__, "transformers": transformers.__version__},
            param_count=self.param_count(), weight_bytes=self.weight_bytes(),
        )
