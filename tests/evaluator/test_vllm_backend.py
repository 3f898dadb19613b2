"""The vLLM backend against a FakeLLM that mimics vllm.LLM.generate's return structure.

FakeLLM computes real next-token log-probs with the tiny transformers model, so our
vLLM-side request building and log-prob reading must reproduce the transformers
backend's numbers. A real vLLM is only used by the test marked with importorskip.
"""
from __future__ import annotations

import math
import sys
import types
from dataclasses import dataclass, field

import pytest

from evaluator.backends import BackendUnavailable, create_backend
from evaluator.decoding import GREEDY
from evaluator.engine import run_evaluation


@dataclass
class FakeLogprob:  # vllm.logprobs.Logprob
    logprob: float
    rank: int | None = None
    decoded_token: str | None = None


@dataclass
class FakeSamplingParams:  # the fields of vllm.SamplingParams we touch (>= 0.18)
    max_tokens: int | None = 16
    temperature: float = 1.0
    logprobs: int | None = None
    prompt_logprobs: int | None = None
    logprob_token_ids: list[int] | None = None
    allowed_token_ids: list[int] | None = None
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    min_tokens: int = 0
    skip_special_tokens: bool = True


@dataclass
class FakeOldSamplingParams:  # a build without logprob_token_ids
    max_tokens: int | None = 16
    temperature: float = 1.0
    logprobs: int | None = None
    prompt_logprobs: int | None = None
    allowed_token_ids: list[int] | None = None


@dataclass
class FakeCompletion:
    text: str
    token_ids: list[int]
    logprobs: list[dict[int, FakeLogprob]] | None


@dataclass
class FakeRequestOutput:
    prompt_token_ids: list[int]
    outputs: list[FakeCompletion] = field(default_factory=list)


class FakeLLM:
    """Mimics vllm.LLM: __init__(**engine kwargs), get_tokenizer(), generate(prompts, params)."""

    instances: list["FakeLLM"] = []
    scorer = None  # a TransformersBackend, set by the fixture

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls: list[tuple[list, object]] = []
        FakeLLM.instances.append(self)

    def get_tokenizer(self):
        return self.scorer.tokenizer

    def generate(self, prompts, sampling_params, use_tqdm=True):
        assert not isinstance(sampling_params, list), "one SamplingParams for the whole batch"
        assert sampling_params.prompt_logprobs is None, "prompt_logprobs disables the prefix cache"
        assert sampling_params.temperature == 0
        self.calls.append((prompts, sampling_params))
        rows = self.scorer.next_token_logprobs([p["prompt_token_ids"] for p in prompts])
        outs = []
        for p, lp in zip(prompts, rows):
            allowed = getattr(sampling_params, "allowed_token_ids", None)
            masked = lp.clone()
            if allowed:
                keep = masked.new_full(masked.shape, -math.inf)
                keep[allowed] = masked[allowed]
                masked = keep
            sampled = int(masked.argmax())
            order = lp.argsort(descending=True).tolist()
            rank = {t: r + 1 for r, t in enumerate(order)}
            wanted = getattr(sampling_params, "logprob_token_ids", None)
            if wanted is not None:
                ids = list(wanted)
            elif sampling_params.logprobs is not None:
                ids = order[: sampling_params.logprobs]  # raw top-K over the whole vocabulary
            else:
                ids = []
            step = {t: FakeLogprob(float(lp[t]), rank[t]) for t in [*ids, sampled]}
            text = self.scorer.tokenizer.decode([sampled])
            outs.append(FakeRequestOutput(p["prompt_token_ids"], [FakeCompletion(text, [sampled], [step])]))
        return outs


@pytest.fixture
def fake_vllm(monkeypatch, tiny_backend):
    module = types.ModuleType("vllm")
    module.LLM, module.SamplingParams, module.__version__ = FakeLLM, FakeSamplingParams, "0.0-fake"
    monkeypatch.setitem(sys.modules, "vllm", module)
    # The backend tokenizes with the Hugging Face tokenizer of the model; "org/model" is the tiny one here.
    from evaluator.backends import vllm_backend
    monkeypatch.setattr(vllm_backend, "_hf_tokenizer", lambda model, revision: tiny_backend.tokenizer)
    FakeLLM.scorer, FakeLLM.instances = tiny_backend, []
    return module


def test_it_builds_the_engine_with_prefix_caching_and_no_remote_code(fake_vllm):
    create_backend("vllm", "org/model", revision="abc123", dtype="bfloat16", seed=3)
    kwargs = FakeLLM.instances[-1].kwargs
    assert kwargs["model"] == "org/model" and kwargs["revision"] == "abc123" and kwargs["dtype"] == "bfloat16"
    assert kwargs["enable_prefix_caching"] is True and kwargs["trust_remote_code"] is False
    assert kwargs["seed"] == 3 and kwargs["max_logprobs"] >= 20


def test_it_requests_letter_ids_and_reads_them_like_transformers(fake_vllm, tiny_backend, demo_questions):
    backend = create_backend("vllm", "org/model")
    params = backend.letter_sampling_params()
    letter_ids = sorted(i for ids in backend.forms.values() for i in ids)
    assert params.max_tokens == 1 and params.temperature == 0
    assert params.logprob_token_ids == letter_ids and params.prompt_logprobs is None
    via_vllm = run_evaluation(backend, demo_questions[:10], variants=("original", "R1"), shots=0)
    via_hf = run_evaluation(tiny_backend, demo_questions[:10], variants=("original", "R1"))
    for a, b in zip(via_vllm.rows, via_hf.rows):
        assert a["predicted"] == b["predicted"]
        assert a["letter_probs"] == pytest.approx(b["letter_probs"], abs=1e-9)
        assert a["letter_mass"] == pytest.approx(b["letter_mass"], rel=1e-9)
    llm = FakeLLM.instances[-1]
    assert len(llm.calls) == 1  # one chunk -> one generate call with one SamplingParams
    assert all(set(p) == {"prompt_token_ids"} for p in llm.calls[0][0])


def test_it_falls_back_to_logprobs_with_allowed_token_ids(fake_vllm, tiny_backend, demo_questions):
    fake_vllm.SamplingParams = FakeOldSamplingParams
    backend = create_backend("vllm", "org/model")
    params = backend.letter_sampling_params()
    assert params.logprobs == 20 and params.allowed_token_ids == sorted(
        i for ids in backend.forms.values() for i in ids)
    rows = backend.letter_logprobs(["Q?\nA. x\nB. y\nAnswer:"])
    exact = tiny_backend.letter_logprobs(["Q?\nA. x\nB. y\nAnswer:"])
    # letters outside the raw top-K read as probability 0 (mass is a lower bound); the rest are exact
    for L, lp in rows[0].items():
        assert lp == -math.inf or lp <= exact[0][L] + 1e-9


def test_it_passes_chat_formatted_token_ids(fake_vllm, tiny_backend):
    backend = create_backend("vllm", "org/model")
    backend.letter_logprobs(["Hi?"], use_chat_template=True)
    ids = FakeLLM.instances[-1].calls[-1][0][0]["prompt_token_ids"]
    assert tiny_backend.tokenizer.decode(ids).startswith("<s><|user|>")
    assert ids.count(tiny_backend.tokenizer.bos_token_id) == 1  # not doubled


def test_generate_mode_sends_the_greedy_rule(fake_vllm):
    backend = create_backend("vllm", "org/model")
    assert len(backend.generate(["Q?\nA. x\nB. y\nAnswer:"], max_new_tokens=7)) == 1
    params = FakeLLM.instances[-1].calls[-1][1]
    assert params.max_tokens == 7 and params.temperature == GREEDY.temperature == 0.0
    assert params.repetition_penalty == GREEDY.repetition_penalty == 1.0
    assert params.presence_penalty == GREEDY.presence_penalty == 0.0
    assert params.frequency_penalty == GREEDY.frequency_penalty == 0.0
    assert params.min_tokens == GREEDY.min_new_tokens == 0
    assert params.skip_special_tokens is GREEDY.skip_special_tokens is True
    assert params.logprobs is None and params.allowed_token_ids is None  # nothing from letter scoring
    assert backend.describe()["decoding"] == GREEDY.describe()


def test_it_says_what_to_install_without_vllm(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` raise ImportError
    with pytest.raises(BackendUnavailable, match=r"pip install 'vllm>=0.18'"):
        create_backend("vllm", "org/model")


def test_real_vllm_sampling_params_accept_our_request():
    vllm = pytest.importorskip("vllm")
    from evaluator.backends.vllm_backend import _has_field
    assert _has_field(vllm.SamplingParams, "logprob_token_ids") or _has_field(vllm.SamplingParams, "allowed_token_ids")
    from evaluator.backends.vllm_backend import VLLMBackend
    backend = VLLMBackend.__new__(VLLMBackend)  # request building only: no engine, no GPU
    backend._vllm, backend.forms = vllm, {"A": [1, 2], "B": [3]}
    params = backend.letter_sampling_params()
    assert params.max_tokens == 1 and params.temperature == 0 and params.prompt_logprobs is None


def test_real_vllm_sampling_params_accept_the_greedy_rule():
    vllm = pytest.importorskip("vllm")
    params = vllm.SamplingParams(max_tokens=8, **GREEDY.vllm_kwargs())
    assert params.temperature == 0 and params.repetition_penalty == 1.0 and params.min_tokens == 0
