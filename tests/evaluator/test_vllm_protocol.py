"""The MMLU-Pro protocol on the real vLLM engine (its CPU build, in .venv-vllm) gives the transformers backend's
generations: the same fitted prompts, the same greedy text cut at "Question:", the same letters."""
from __future__ import annotations

import pytest

from evaluator.backends import create_backend
from evaluator.engine import run_evaluation

from .test_mmlu_pro_protocol import DEV_QUESTIONS, QUESTIONS

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


def both_backends(model_dir):
    engine = create_backend("vllm", str(model_dir), device="cpu", dtype="float32", max_model_len=2048)
    return engine, create_backend("transformers", str(model_dir), device="cpu", dtype="float32", batch_size=4)


@pytest.mark.parametrize("model", ["gqa_model_dir", "cot_reply_model_dir"])
def test_the_protocol_generates_the_same_text_on_vllm(model, request):
    engine, reference = both_backends(request.getfixturevalue(model))
    try:
        kwargs = dict(dev_questions=DEV_QUESTIONS, protocol="mmlu-pro-cot", max_new_tokens=24)
        via_vllm, via_hf = run_evaluation(engine, QUESTIONS, **kwargs), run_evaluation(reference, QUESTIONS, **kwargs)
    finally:
        engine.close()
    fields = ("question_id", "shots", "output", "predicted", "parsed")
    assert [[r.get(f) for f in fields] for r in via_vllm.rows] == [[r.get(f) for f in fields] for r in via_hf.rows]
    assert all("error" not in r for r in via_vllm.rows)
    assert engine.describe()["decoding"] == reference.describe()["decoding"]
    assert engine.describe()["decoding"]["stop"] == ["Question:"]
    if model == "cot_reply_model_dir":  # vLLM stopped at the stop string and left it out, as transformers' text is cut
        assert {r["output"] for r in via_vllm.rows} == {" The answer is (B)\n"}
