"""llama.cpp backend (llama-cpp-python): a GGUF file scored as a phone's runtime runs it.

Same contract as the transformers and vLLM backends: letter log-probabilities from one forward pass per prompt
(the next-token distribution at the prompt's last position, both letter forms "A"/" A"), and generation under
the decoding rule (evaluator/decoding.py), greedy, cut at its stop strings.

- Tokenization is the file's own (its vocabulary and merges, BOS/EOS as its metadata says). Where the base
  model's Hugging Face tokenizer is known (`tokenizer=` a folder or hub id, else the file's
  general.base_model.0.repo_url), every prompt's ids must equal that tokenizer's: a mismatch fails the run with
  TOKENIZER_MISMATCH at the first differing position, since mistokenized GGUF files score near random.
- The context is sized from the prompts (`sizing_prompts`, as vLLM's), threads are pinned (`threads`).
- Prompts are scored in token order, so one that shares a prefix with the last one (the template header, a
  topic's exemplars) keeps that prefix's KV and computes only its suffix. Not for recurrent or hybrid
  architectures, nor sliding-window attention (their state cannot be cut back to a prefix): llama.cpp says
  which, from the file's general.architecture and its `<arch>.attention.sliding_window` key (Gemma 2 and 3);
  describe()["prefix_reuse"] records it.
- Batched sequences (`sequences`, llamacpp_sequences.py): letter scoring may decode several prompts per
  llama_decode, each its own sequence; one prompt at a time unless asked. Generation stays one prompt at a time.
- llama-cpp-python swaps the process's stdout/stderr file descriptors while it loads (verbose=False): under a
  worker it runs in the prediction child process (leaderboard/evaluations/predict_process.py), never in
  Celery's own, whose streams are redirected.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Sequence

from ..decoding import GREEDY, DecodingRule
from ..gguf_convert import file_sha256, llama_cpp_build
from ..questions import LETTERS
from .base import BackendError, BackendUnavailable, describe_common, encode_prompt, letter_token_forms, logsumexp
from .gguf_file import (TokenizerMismatch, FileTokenizer, ftype_name, check_gguf, first_difference,
                        reference_tokenizer)
from .llamacpp_sequences import BatchedSequences, kv_bytes_per_token, sequences_count
from .prefix_reuse import MIN_SHARED_PREFIX

DEFAULT_THREADS = 4      # a phone-class CPU; a setting (threads=, --threads)
CONTEXT_MARGIN = 32      # as vLLM's: answer-order variants and chat wrapping add a few tokens
DEFAULT_CONTEXT = 4096   # without sizing prompts, capped by the file's training context
KV_TYPES = {"f16": "GGML_TYPE_F16", "f32": "GGML_TYPE_F32"}  # f16: llama.cpp's default, what a phone runs


def placement(device: str) -> dict[str, Any]:
    """llama.cpp's offload settings for the run's device. cuda: every layer on the GPU (a GGUF file's accuracy run on a
    GPU worker). Otherwise nothing leaves the CPU: a llama.cpp built with CUDA would still send a large batch's matrix
    products (op_offload) to a visible GPU with no layer on it."""
    if device.startswith("cuda"):
        return {"n_gpu_layers": -1}
    return {"n_gpu_layers": 0, "offload_kqv": False, "op_offload": False}


def _import_llama_cpp():
    try:
        import llama_cpp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailable(
            "the llamacpp backend needs llama-cpp-python, built from source: ./dev.sh test builds .venv-llamacpp "
            "(pip install -r requirements/llamacpp.lock)") from exc
    return llama_cpp


def _refuse_settings(llama_cpp, *, dtype, kv_cache_type: str, device: str) -> None:
    if dtype not in (None, "auto"):
        raise BackendError(f"dtype {dtype!r}: a GGUF file's own tensor types are what llama.cpp runs; "
                           "pick a quantization when converting (python -m evaluator convert --quant)")
    if kv_cache_type not in KV_TYPES:
        raise BackendError(f"kv_cache_type {kv_cache_type!r}: one of {', '.join(KV_TYPES)}")
    if device.startswith("cuda") and not llama_cpp.llama_supports_gpu_offload():
        raise BackendError("device 'cuda' requested but this llama.cpp build has no GPU support "
                           "(build llama-cpp-python with CMAKE_ARGS=-DGGML_CUDA=on)")


class LlamaCppBackend:
    name = "llamacpp"

    def __init__(
        self,
        model: str,
        *,
        revision: str | None = None,
        device: str = "cpu",
        dtype: str | None = "auto",
        batch_size: int | None = None,  # one prompt at a time; accepted for a uniform CLI
        seed: int = 0,
        threads: int | None = None,
        n_ctx: int | None = None,
        sizing_prompts: Sequence[str] | None = None,
        max_new_tokens: int = 1,
        use_chat_template: bool = False,
        tokenizer: str | None = None,
        tokenizer_obj: Any = None,
        prefix_reuse: bool = True,
        kv_cache_type: str = "f16",
        sequences: int | str | None = None,  # prompts per llama_decode; None: 1; "auto": sized to a GPU's memory
    ) -> None:
        llama_cpp = self._llama_cpp = _import_llama_cpp()
        path = check_gguf(model)
        _refuse_settings(llama_cpp, dtype=dtype, kv_cache_type=kv_cache_type, device=device)
        self.model_id, self.revision, self.device, self.path = model, revision, device, path
        self.threads = int(threads or min(DEFAULT_THREADS, os.cpu_count() or 1))
        self.kv_cache_type, self.seed = kv_cache_type, seed
        t0 = time.perf_counter()
        self.reference = None  # no tokenizer check while sizing the context
        self._vocab = self._load_vocab()  # tokenizer and metadata, no weights: sizes the context
        self.metadata = self._vocab.metadata()
        limit = self._vocab.n_ctx_train()
        if n_ctx is None:
            n_ctx = DEFAULT_CONTEXT
            if sizing_prompts:
                longest = max(len(self._encode(p, use_chat_template)) for p in sizing_prompts)
                n_ctx = -(-(longest + max_new_tokens + CONTEXT_MARGIN) // 256) * 256
        self._vocab.close()
        self.llm = self._load(min(n_ctx, limit) if limit > 0 else n_ctx)
        self._vocab = self.llm._model
        self.load_seconds = time.perf_counter() - t0
        self.n_ctx = self.llm.n_ctx()
        self.tokenizer = FileTokenizer(self._vocab)
        self._vocab_ptr = llama_cpp.llama_model_get_vocab(self.llm.model)
        try:
            self.forms = letter_token_forms(self.tokenizer, LETTERS)
        except BackendError:  # still usable in generate mode
            self.forms = {}
        self.reference, self.reference_why = reference_tokenizer(self.metadata, tokenizer, tokenizer_obj)
        supported, why = self._prefix_reuse_support()
        self.prefix_reuse, self.prefix_reuse_used = prefix_reuse, prefix_reuse and supported
        self.prefix_reuse_why = why if prefix_reuse else "turned off by the caller"
        self.stats = {"prompt_tokens": 0, "computed_tokens": 0, "forward_seconds": 0.0, "forwards": 0,
                      "prefix_hits": 0, "too_long": 0, "decodes": 0}
        self._cold = False
        self._multi: BatchedSequences | None = None
        self.sequences, self.sequences_why = sequences_count(
            sequences, device=self.device, lib=llama_cpp, llm=self.llm, sizing_prompts=sizing_prompts,
            per_sequence_bytes=lambda: self.n_ctx * self.kv_bytes_per_token() + 4 * self.llm.n_vocab())
        if self.sequences > 1:
            self._multi = BatchedSequences(llama_cpp, self.llm, self.sequences, n_ctx=self.n_ctx, device=self.device)

    def kv_bytes_per_token(self) -> int:
        return kv_bytes_per_token(self._llama_cpp, self.llm, self.metadata, self.kv_cache_type)

    # -- loading -----------------------------------------------------------------
    def _load(self, n_ctx: int):
        llama_cpp = self._llama_cpp
        kv = getattr(llama_cpp, KV_TYPES[self.kv_cache_type])
        try:
            return llama_cpp.Llama(
                model_path=str(self.path), n_ctx=n_ctx, n_batch=min(n_ctx, 2048), n_ubatch=min(n_ctx, 512),
                n_threads=self.threads, n_threads_batch=self.threads,
                seed=self.seed, type_k=kv, type_v=kv, logits_all=False, verbose=False, **placement(self.device),
            )
        except (ValueError, RuntimeError) as exc:  # llama.cpp could not read or run the file
            raise BackendError(f"llama.cpp cannot load {self.path.name}: {exc} (an architecture this llama.cpp "
                               "does not know, or a damaged file)") from exc

    def _load_vocab(self):
        """The file's tokenizer and metadata without its weights (llama.cpp's vocab_only load)."""
        from llama_cpp._internals import LlamaModel

        params = self._llama_cpp.llama_model_default_params()
        params.vocab_only = True
        try:
            return LlamaModel(path_model=str(self.path), params=params, verbose=False)
        except ValueError as exc:
            raise BackendError(f"llama.cpp cannot read {self.path.name}: {exc} (a damaged file, or an "
                               "architecture or tokenizer this llama.cpp does not know)") from exc

    def _prefix_reuse_support(self) -> tuple[bool, str]:
        arch = self.metadata.get("general.architecture", "?")
        if self.llm._is_recurrent or self.llm._is_hybrid:
            return False, f"{arch}: recurrent or hybrid layers (llama.cpp's memory cannot be cut back to a prefix)"
        if f"{arch}.attention.sliding_window" in self.metadata:
            return False, f"{arch}: sliding-window attention"
        return True, f"{arch}: every layer is attention with a KV cache"

    # -- tokens ------------------------------------------------------------------
    def _encode(self, prompt: str, use_chat_template: bool, *, index: int = 0) -> list[int]:
        if use_chat_template:
            ids = self._chat_ids(prompt)
        else:
            ids = list(self._vocab.tokenize(prompt.encode("utf-8"), True, False))  # BOS/EOS as the file says
        if self.reference is not None:
            want = encode_prompt(self.reference, prompt, use_chat_template=use_chat_template)
            pos = first_difference(ids, want)
            if pos is not None:
                got_id = ids[pos] if pos < len(ids) else "end"
                want_id = want[pos] if pos < len(want) else "end"
                raise TokenizerMismatch(
                    f"prompt {index}: the file's tokenizer and the base model's ({self.reference_why}) differ first "
                    f"at token position {pos} (file: {got_id}, base model: {want_id}; {len(ids)} vs {len(want)} "
                    "tokens). A GGUF with a mismatched tokenizer scores near random: convert the checkpoint again "
                    "with this llama.cpp's converter (python -m evaluator convert)", prompt_index=index, position=pos)
        return ids

    def _chat_ids(self, prompt: str) -> list[int]:
        """One user turn through the file's own chat template (tokenizer.chat_template), as Hugging Face renders it."""
        template = self.metadata.get("tokenizer.chat_template")
        if not template:
            raise BackendError("the file has no chat template (tokenizer.chat_template); run without --chat-template")
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        def token_text(token_id: int) -> str:
            return self._vocab.detokenize([token_id], special=True).decode("utf-8", errors="replace") \
                if token_id >= 0 else ""

        text = Jinja2ChatFormatter(template=template, eos_token=token_text(self._vocab.token_eos()),
                                   bos_token=token_text(self._vocab.token_bos()), add_generation_prompt=True)(
            messages=[{"role": "user", "content": prompt}]).prompt
        return list(self._vocab.tokenize(text.encode("utf-8"), False, True))  # the template holds BOS

    def count_tokens(self, prompt: str, *, use_chat_template: bool = False) -> int:
        return len(self._encode(prompt, use_chat_template))

    @property
    def max_prompt_tokens(self) -> int:
        return self.n_ctx - 1

    # -- evaluation ----------------------------------------------------------------
    def _last_logits(self):
        import numpy as np

        ptr = self._llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(ptr, shape=(self.llm.n_vocab(),)).astype(np.float64)

    def _prefill(self, ids: list[int]) -> None:
        """Evaluate `ids`, keeping the KV of the prefix it shares with what the context holds (if allowed)."""
        llm = self.llm
        shared = 0
        if self.prefix_reuse_used and not self._cold and llm.n_tokens:
            diff = first_difference(llm.input_ids[: llm.n_tokens].tolist(), ids)
            shared = min(len(ids) if diff is None else diff, len(ids) - 1)  # the last token is always computed
            if shared < MIN_SHARED_PREFIX or not llm._ctx.kv_cache_seq_rm(-1, shared, -1):
                shared = 0
        if shared:
            llm.n_tokens = shared
            self.stats["prefix_hits"] += 1
        else:
            llm.reset()
            llm._ctx.kv_cache_clear()
        llm.eval(ids[shared:])
        self.stats["computed_tokens"] += len(ids) - shared
        self.stats["prompt_tokens"] += len(ids)

    def _prompts(self, prompts: Sequence[str], use_chat_template: bool, new_tokens: int):
        """(index, ids) of the prompts that fit the context, in token order (neighbours share prefixes)."""
        limit = self.n_ctx - new_tokens
        encoded = []
        for i, p in enumerate(prompts):
            ids = self._encode(p, use_chat_template, index=i)
            if len(ids) > limit:
                self.stats["too_long"] += 1
                continue
            encoded.append((i, ids))
        return sorted(encoded, key=lambda item: (item[1], item[0]))

    def letter_logprobs(self, prompts: Sequence[str], *,
                        use_chat_template: bool = False) -> list[dict[str, float] | None]:
        if not self.forms:
            raise BackendError("this file's tokenizer has no single-token letters; use --mode generate")
        out: list[dict[str, float] | None] = [None] * len(prompts)
        encoded = self._prompts(prompts, use_chat_template, 1)
        if self._multi is not None:
            for group in self._multi.groups(encoded):
                t0 = time.perf_counter()
                rows = self._multi.decode([ids for _, ids in group])
                self.stats["decodes"] += 1
                for (i, ids), logits in zip(group, rows):
                    out[i] = self._letters(logits)
                    self.stats["prompt_tokens"] += len(ids)
                    self.stats["computed_tokens"] += len(ids)
                self.stats["forward_seconds"] += time.perf_counter() - t0
                self.stats["forwards"] += len(group)
            return out
        for i, ids in encoded:
            t0 = time.perf_counter()
            self._prefill(ids)
            self.stats["decodes"] += 1
            out[i] = self._letters(self._last_logits())
            self.stats["forward_seconds"] += time.perf_counter() - t0
            self.stats["forwards"] += 1
        return out

    def _letters(self, logits) -> dict[str, float]:
        """Each letter's log-probability (its token forms' mass) from a position's logits."""
        import numpy as np

        top = logits.max()
        lp = logits - (top + math.log(np.exp(logits - top).sum()))
        return {L: logsumexp([float(lp[t]) for t in ids_]) for L, ids_ in self.forms.items()}

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, use_chat_template: bool = False,
                 decoding: DecodingRule = GREEDY) -> list[str | None]:
        if (decoding.temperature, decoding.repetition_penalty, decoding.presence_penalty, decoding.frequency_penalty,
                decoding.no_repeat_ngram_size, decoding.min_new_tokens) != (0.0, 1.0, 0.0, 0.0, 0, 0):
            raise BackendError(f"decoding rule {decoding.name}: the llamacpp backend decodes greedily, with no "
                               "penalties, n-gram blocking or minimum length")
        self.decoding = decoding
        llama_cpp = self._llama_cpp
        out: list[str | None] = [None] * len(prompts)
        for i, ids in self._prompts(prompts, use_chat_template, max_new_tokens):
            t0 = time.perf_counter()
            self._prefill(ids)
            new: list[int] = []
            for step in range(max_new_tokens):
                token = int(self._last_logits().argmax())  # the first of equal maxima, as torch's argmax
                if llama_cpp.llama_vocab_is_eog(self._vocab_ptr, token):
                    break
                new.append(token)
                if decoding.stop:
                    text = self._detokenize(new, decoding)
                    if decoding.finish(text) != text:
                        break  # a stop string is complete
                if step + 1 < max_new_tokens:
                    self.llm.eval([token])
            self.stats["forward_seconds"] += time.perf_counter() - t0
            self.stats["forwards"] += 1
            out[i] = decoding.finish(self._detokenize(new, decoding))
        return out

    def _detokenize(self, ids: list[int], decoding: DecodingRule) -> str:
        """llama.cpp's own detokenizer, which drops the space a SentencePiece vocabulary with add_space_prefix puts
        before the first word, as Hugging Face's decoder does (llama-cpp-python's detokenize keeps it)."""
        llama_cpp = self._llama_cpp
        tokens = (llama_cpp.llama_token * max(1, len(ids)))(*ids)
        size = 32 * len(ids) + 16
        for _ in range(2):
            buf = ctypes.create_string_buffer(size)
            n = llama_cpp.llama_detokenize(self._vocab_ptr, tokens, len(ids), buf, size, False,
                                           not decoding.skip_special_tokens)
            if n >= 0:
                return buf.raw[:n].decode("utf-8", errors="replace")
            size = -n  # the text needs this many bytes
        raise BackendError(f"llama.cpp could not detokenize {len(ids)} tokens")

    @contextlib.contextmanager
    def cold_cache(self):
        """Timed measurements (efficiency) compute every prompt: no prefix kept from an earlier prompt."""
        self._cold = True
        try:
            yield
        finally:
            self._cold = False

    def close(self) -> None:
        multi, self._multi = getattr(self, "_multi", None), None
        if multi is not None:
            multi.close()
        llm, self.llm = getattr(self, "llm", None), None
        if llm is not None:
            llm.close()

    # -- the card ------------------------------------------------------------------
    def param_count(self) -> int:
        return int(self.llm._model.n_params())

    def weight_bytes(self) -> int:
        return int(self.llm._model.size())

    peak_memory_kind = "peak RSS of this process (the file memory-mapped)"

    def peak_memory_bytes(self) -> int:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB

    @functools.cached_property
    def file_sha256(self) -> str:
        return file_sha256(self.path)

    def describe(self) -> dict[str, Any]:
        md = self.metadata
        recipe = Path(f"{self.path}.recipe.json")
        return describe_common(
            self, dtype=ftype_name(self._llama_cpp, md.get("general.file_type")) or "unknown",
            architecture=md.get("general.architecture"), file_sha256=self.file_sha256,
            file_bytes=self.path.stat().st_size, threads=self.threads, n_ctx=self.n_ctx,
            kv_cache_type=self.kv_cache_type, mmap=True, offload=placement(self.device),
            tokenizer_check={"reference": self.reference_why, "checked": self.reference is not None},
            prefix_reuse={"requested": self.prefix_reuse, "used": self.prefix_reuse_used and self.sequences == 1,
                          "why": self.prefix_reuse_why if self.sequences == 1 else "batched sequences: every prompt "
                                                                                     "computed whole"},
            sequences={"per_decode": self.sequences, "why": self.sequences_why},
            recipe=json.loads(recipe.read_text(encoding="utf-8")) if recipe.is_file() else None,
            versions=llama_cpp_build(),
            system_info=self._llama_cpp.llama_print_system_info().decode(errors="replace").strip(),
            prompts_too_long=self.stats["too_long"], param_count=self.param_count(), weight_bytes=self.weight_bytes(),
        )
