"""The decoding rule for generate mode, kept in one place so both backends apply the same one.

GREEDY is plain greedy decoding: the argmax token at every step, no repetition/presence/
frequency penalty, no n-gram blocking, no bad words, no stop strings; generation ends at an
EOS id or after max_new_tokens. The checkpoint's generation_config.json is ignored except for
its eos_token_id: vLLM always adds those ids to the stop ids
(SamplingParams.update_from_generation_config), so the transformers backend stops there too.
Output is decoded without special tokens. Change a value -> change the name, since runs
record it (backend.describe()["decoding"]).

GREEDY_STOP_QUESTION is the same rule plus one stop string, "Question:" (the MMLU-Pro protocol,
evaluator/protocols.py): generation also ends once the text holds it, and the text is cut before
it, as vLLM returns it (SamplingParams(stop=...), include_stop_str_in_output off). Both backends
cut the decoded text at the first stop string (`finish`), so a backend that runs past it
(transformers' stop_strings, which match at the end of the tokens) returns the same text.
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
    stop: tuple[str, ...] = ()        # stop strings; the text is cut before the first

    def describe(self) -> dict[str, Any]:
        """The rule as runs record it (no "stop" key for a rule without stop strings, as greedy-v1 always was)."""
        out = asdict(self)
        if not self.stop:
            out.pop("stop")
        else:
            out["stop"] = list(self.stop)
        return out

    def finish(self, text: str) -> str:
        """The generated text as the rule returns it: cut before the first stop string it holds."""
        cut = min((i for i in (text.find(s) for s in self.stop) if i >= 0), default=-1)
        return text if cut < 0 else text[:cut]

    def transformers_kwargs(self) -> dict[str, Any]:
        """GenerationConfig fields (max_new_tokens, pad and eos ids are added by the backend)."""
        assert self.temperature == 0.0 and self.presence_penalty == 0.0 and self.frequency_penalty == 0.0
        out: dict[str, Any] = {"do_sample": False, "num_beams": 1, "repetition_penalty": self.repetition_penalty,
               "no_repeat_ngram_size": self.no_repeat_ngram_size, "min_new_tokens": self.min_new_tokens}
        if self.stop:  # generate() then needs the tokenizer (tokenizer=...)
            out["stop_strings"] = list(self.stop)
        return out

    def vllm_kwargs(self) -> dict[str, Any]:
        """SamplingParams fields (max_tokens is added by the backend)."""
        assert self.no_repeat_ngram_size == 0
        return {"temperature": self.temperature, "repetition_penalty": self.repetition_penalty,
                "presence_penalty": self.presence_penalty, "frequency_penalty": self.frequency_penalty,
                "min_tokens": self.min_new_tokens, "skip_special_tokens": self.skip_special_tokens,
                **({"stop": list(self.stop)} if self.stop else {})}


GREEDY = DecodingRule(name="greedy-v1")
GREEDY_STOP_QUESTION = DecodingRule(name="greedy-stop-question-v1", stop=("Question:",))
