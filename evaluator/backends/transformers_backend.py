"""Hugging Face transformers backend (CPU and CUDA).

Letter scoring is one forward pass per prompt, left-padded batches, and only
the last position's logits are materialised (`logits_to_keep=1`), so the cost
is one prefill per (question, variant) whatever the number of options.
"""
from __future__ import annotations

import os
import time
from typing import Any, Sequence

from ..questions import LETTERS
from .base import BackendError, BackendUnavailable, encode_prompt, letter_token_forms, logsumexp


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


MIN_SHARED_PREFIX = 8  # tokens; below this a separate prefix pass costs more than it saves


def _common_prefix_len(rows: list[list[int]]) -> int:
    """Longest common prefix, leaving every row at least one token of its own (the last one,
    whose logits we read)."""
    limit = min(len(r) for r in rows) - 1
    n = 0
    first = rows[0]
    while n < limit and all(r[n] == first[n] for r in rows):
        n += 1
    return n


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
        self.stats = {"prompt_tokens": 0, "computed_tokens": 0, "forward_seconds": 0.0, "forwards": 0}

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
        """Batches for letter scoring, in token order: prompts that share a prefix (the template
        header, a topic's exemplars) land together, so the shared part is computed once per batch."""
        order = sorted(range(len(encoded)), key=lambda i: (encoded[i], i))
        for start in range(0, len(order), self.batch_size):
            yield order[start:start + self.batch_size]

    def _forward_last(self, rows: list[list[int]]):
        """Last-position logits for a batch. With a shared prefix of MIN_SHARED_PREFIX+ tokens the
        prefix runs once (batch 1) and its KV cache is repeated for the batch: the transformers
        counterpart of vLLM's prefix cache. Suffixes are left-padded after the prefix; the mask
        hides the gap and position ids continue from the prefix."""
        torch = self.torch
        shared = _common_prefix_len(rows)
        if self.prefix_reuse and len(rows) > 1 and shared >= MIN_SHARED_PREFIX:
            prefix = torch.tensor([rows[0][:shared]], dtype=torch.long, device=self.device)
            cache = self.model(input_ids=prefix, use_cache=True, logits_to_keep=1).past_key_values
            cache.batch_repeat_interleave(len(rows))
            suffixes = [ids[shared:] for ids in rows]
            width = max(len(x) for x in suffixes)
            input_ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(rows), shared + width), dtype=torch.long)
            positions = torch.full((len(rows), width), shared, dtype=torch.long)
            mask[:, :shared] = 1
            for r, x in enumerate(suffixes):
                input_ids[r, width - len(x):] = torch.tensor(x, dtype=torch.long)
                mask[r, shared + width - len(x):] = 1
                positions[r, width - len(x):] = torch.arange(shared, shared + len(x))
            self.stats["computed_tokens"] += shared + sum(len(x) for x in suffixes)
            return self.model(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device),
                              position_ids=positions.to(self.device), past_key_values=cache, use_cache=True,
                              logits_to_keep=1).logits
        input_ids, mask, positions = self._batch(rows)
        self.stats["computed_tokens"] += int(mask.sum())
        try:
            return self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                              logits_to_keep=1, use_cache=False).logits
        except TypeError:  # architectures without logits_to_keep
            return self.model(input_ids=input_ids, attention_mask=mask, position_ids=positions,
                              use_cache=False).logits

    def next_token_logprobs(self, encoded: list[list[int]]):
        """Log-softmax over the vocabulary at the last position, one row per prompt (float32, CPU)."""
        torch = self.torch
        out = [None] * len(encoded)
        with torch.inference_mode():
            for idx in self._score_batches(encoded):
                rows = [encoded[i] for i in idx]
                t0 = time.perf_counter()
                logits = self._forward_last(rows)
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

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False) -> list[str]:
        torch = self.torch
        encoded = [encode_prompt(self.tokenizer, p, use_chat_template=use_chat_template) for p in prompts]
        out = [""] * len(encoded)
        with torch.inference_mode():
            for idx in self._batches(encoded):
                input_ids, mask, _ = self._batch([encoded[i] for i in idx])
                gen = self.model.generate(
                    input_ids=input_ids, attention_mask=mask, max_new_tokens=max_new_tokens,
                    do_sample=False, num_beams=1, pad_token_id=self.pad_id,
                    temperature=None, top_p=None, top_k=None,
                )
                new = gen[:, input_ids.shape[1]:]
                for row, i in enumerate(idx):
                    out[i] = self.tokenizer.decode(new[row], skip_special_tokens=True)
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
        return {
            "backend": self.name,
            "model": self.model_id,
            "revision": self.revision,
            "device": self.device,
            "dtype": str(self.torch_dtype).replace("torch.", ""),
            "batch_size": self.batch_size,
            "prefix_reuse": self.prefix_reuse,
            "versions": {"torch": self.torch.__version__, "transformers": transformers.__version__},
            "letter_token_ids": self.forms,
            "load_seconds": self.load_seconds,
            "param_count": self.param_count(),
            "weight_bytes": self.weight_bytes(),
        }
