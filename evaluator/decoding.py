"""The decoding rule for generate mode, kept in one place so both backends apply the same one.

GREEDY is plain greedy decoding: the argmax token at every step, no repetition/presence/
frequency penalty, no n-gram blocking, no bad words, no stop strings; generation ends at an
EOS id or after max_new_tokens. The checkpoint's generation_config.json is ignored except for
its eos_token_id: vLLM always adds those ids to the stop ids
(SamplingParams.update_from_generation_config), so the transformers backend stops there too.
Output is decoded without special tokens. Change a value -> change the name, since runs
record it (backend.describe()["decoding"]).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class DecodingRule:
    name: str
    temperature: float = 0.0          # vLLM: 0 means argmax; transformers: do_sample=False, num_beams=1
    repetition_penalty: float = 1.0   # 1.0 = off
    presence_penalty: float = 0.0     # vLLM only; transformers has no such processor (off either way)
    frequency_penalty: float = 0.0    # vLLM only, likewise
    no_repeat_ngram_size: int = 0     # transformers only; vLLM has no n-gram blocking
    min_new_tokens: int = 0           # EOS may end the answer at once
    skip_special_tokens: bool = True

    def describe(self) -> dict[str, Any]:
        return asdict(self)

    def transformers_kwargs(self) -> dict[str, Any]:
        """GenerationConfig fields (max_new_tokens, pad and eos ids are added by the backend)."""
        assert self.temperature == 0.0 and self.presence_penalty == 0.0 and self.frequency_penalty == 0.0
        return {"do_sample": False, "num_beams": 1, "repetition_penalty": self.repetition_penalty,
                "no_repeat_ngram_size": self.no_repeat_ngram_size, "min_new_tokens": self.min_new_tokens}

    def vllm_kwargs(self) -> dict[str, Any]:
        """SamplingParams fields (max_tokens is added by the backend)."""
        assert self.no_repeat_ngram_size == 0
        return {"temperature": self.temperature, "repetition_penalty": self.repetition_penalty,
                "presence_penalty": self.presence_penalty, "frequency_penalty": self.frequency_penalty,
                "min_tokens": self.min_new_tokens, "skip_special_tokens": self.skip_special_tokens}


GREEDY = DecodingRule(name="greedy-v1")
