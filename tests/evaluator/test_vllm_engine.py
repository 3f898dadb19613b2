"""The vLLM backend on the real engine (vLLM's CPU build, in .venv-vllm): one engine start for the module.

The model is tiny-random with head_dim 64 and grouped-query attention, in float32, so the two backends
must agree to rounding: the same letter probabilities, the same greedy text, the same judge replies.
"""
from __future__ import annotations

import math

import pytest

from evaluator.backends import create_backend
from evaluator.demo_models import generate_demo_questions
from evaluator.efficiency import measure_efficiency
from evaluator.engine import run_evaluation
from evaluator.judges.local import LocalJudge
from evaluator.questions import Question

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
CONTEXT = 1024


@pytest.fixture(scope="module")
def engine(gqa_model_dir):
    backend = create_backend("vllm", str(gqa_model_dir), device="cpu", dtype="float32", max_model_len=CONTEXT)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def reference(gqa_model_dir):
    return create_backend("transformers", str(gqa_model_dir), device="cpu", dtype="float32", batch_size=8)


@pytest.fixture(scope="module")
def dev_questions():
    return generate_demo_questions(40, seed=5, prefix="dev")


@pytest.mark.parametrize("shots", [0, 5])
def test_letter_probabilities_equal_the_transformers_backend(engine, reference, demo_questions, dev_questions, shots):
    kwargs = dict(variants=("original", "R1"), shots=shots, dev_questions=dev_questions if shots else None)
    via_vllm = run_evaluation(engine, demo_questions[:24], **kwargs)
    via_hf = run_evaluation(reference, demo_questions[:24], **kwargs)
    worst = 0.0
    for a, b in zip(via_vllm.rows, via_hf.rows):
        assert (a["question_id"], a["variant"]) == (b["question_id"], b["variant"])
        assert a["predicted"] == b["predicted"], (a, b)
        worst = max(worst, *(abs(a["letter_probs"][L] - b["letter_probs"][L]) for L in a["letter_probs"]))
        assert a["letter_mass"] == pytest.approx(b["letter_mass"], abs=1e-4)
    assert worst <= 1e-4, f"largest letter-probability difference {worst:.2e}"
    assert engine.describe()["dtype"] == "float32"  # never vLLM's "auto" (bfloat16 on CPU)


def test_generation_mode_gives_the_same_text(engine, reference, demo_questions):
    via_vllm = run_evaluation(engine, demo_questions[:8], mode="generate", max_new_tokens=12)
    via_hf = run_evaluation(reference, demo_questions[:8], mode="generate", max_new_tokens=12)
    assert [r["output"] for r in via_vllm.rows] == [r["output"] for r in via_hf.rows]
    assert [r["predicted"] for r in via_vllm.rows] == [r["predicted"] for r in via_hf.rows]
    assert engine.describe()["decoding"] == reference.describe()["decoding"]


def test_the_mrscore_judge_runs_through_vllm(engine, reference, gqa_model_dir):
    questions = ["How do I turn on battery saver?", "What is a good bread recipe?", "How do I cool a burn?"]
    on_vllm = LocalJudge(str(gqa_model_dir), backend="vllm", mode="generate", backend_obj=engine)
    on_hf = LocalJudge(str(gqa_model_dir), mode="generate", backend_obj=reference)
    assert [(j.score, j.method, j.raw) for j in on_vllm.judge(questions)] == \
           [(j.score, j.method, j.raw) for j in on_hf.judge(questions)]
    assert on_vllm.describe()["endpoint_kind"] == "local-vllm"


def test_a_prompt_longer_than_the_context_fails_that_question_only(engine, demo_questions):
    long = Question("too-long", "Why? " * (2 * CONTEXT), ("Yes", "No", "Maybe", "Later"), frozenset("A"), "Pet Care")
    result = run_evaluation(engine, [demo_questions[0], long, demo_questions[1]])
    by_id = {r["question_id"]: r for r in result.rows}  # rows come topic by topic
    short_a, failed, short_b = by_id[demo_questions[0].question_id], by_id["too-long"], by_id[demo_questions[1].question_id]
    assert failed["predicted"] is None and failed["correct"] is False
    assert failed["error"].startswith("prompt_too_long") and str(CONTEXT - 1) in failed["error"]
    assert short_a["predicted"] and short_b["predicted"] and "error" not in short_a


def test_timed_measurements_do_not_read_the_prefix_cache(engine, demo_questions):
    # Longer than a KV block (the prefix cache works in whole blocks), shorter than the context.
    prompt = "\n".join(f"Question: {q.question}" for q in demo_questions[:12]) + "\nAnswer:"
    params = engine.letter_sampling_params()
    engine._run([prompt], params, False, 1)
    warm = engine._run([prompt], params, False, 1)[0]
    assert warm.num_cached_tokens > 0  # the engine's prefix cache is on: a repeat is answered from it
    with engine.cold_cache():
        cold = engine._run([prompt], engine.letter_sampling_params(), False, 1)[0]
    assert cold.num_cached_tokens == 0

    figures = measure_efficiency(engine, [prompt] * 4)
    assert figures["param_count"] == sum(p.numel() for p in _weights(engine))
    assert figures["weight_bytes"] == 4 * figures["param_count"]  # float32 on disk
    assert figures["peak_memory_bytes"] > figures["weight_bytes"]
    assert figures["peak_memory_kind"] == "peak RSS of the engine processes"
    assert figures["prefill_tokens_per_s"] > 0 and not math.isnan(figures["batch1_latency_s"]["p50"])


def _weights(engine):
    from safetensors.torch import load_file

    from evaluator.checkpoint import model_folder

    folder = model_folder(engine.model_id)
    return [t for f in sorted(folder.glob("*.safetensors")) for t in load_file(f).values()]
