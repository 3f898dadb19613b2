"""Batched sequences in the llamacpp backend (issue 33, section 3): several prompts per llama_decode, each its own
sequence, give one prompt at a time's letter probabilities within 1e-4 on f32 toys (Llama, and Gemma with its
sliding window), on the CPU where batching is allowed when asked; how many fit a GPU's memory. The real quantized
file: tests/evaluator/test_real_gguf.py."""
import math

import pytest

from evaluator.backends.llamacpp_sequences import GPU_SEQUENCES_UNKNOWN, MAX_SEQUENCES, sequences_for_memory
from evaluator.prompts import get_template


def test_the_sequences_a_gpu_holds():
    assert sequences_for_memory(80 * 2**30, 100 * 2**20) == MAX_SEQUENCES  # capped
    assert sequences_for_memory(2 * 2**30, 100 * 2**20) == 10  # half of 2 GiB in 100 MiB sequences
    assert sequences_for_memory(10 * 2**20, 100 * 2**20) == 1  # never fewer than one
    assert sequences_for_memory(None, 100 * 2**20) == GPU_SEQUENCES_UNKNOWN


@pytest.mark.llamacpp
@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_batched_sequences_equal_one_at_a_time_on_an_f32_toy(gguf_files, real_questions, family):
    from evaluator.backends import create_backend

    template = get_template("default")
    prompts = [template.render(q.question, q.options) for q in real_questions[:7]]
    path = str(gguf_files[family, "f32"])
    one = create_backend("llamacpp", path, threads=2, sizing_prompts=prompts, kv_cache_type="f32")
    batched = create_backend("llamacpp", path, threads=2, sizing_prompts=prompts, kv_cache_type="f32", sequences=3)
    try:
        alone, together = one.letter_logprobs(prompts), batched.letter_logprobs(prompts)
        assert one.describe()["sequences"]["per_decode"] == 1 and batched.stats["decodes"] == 3  # 3 + 3 + 1
        assert batched.describe()["prefix_reuse"]["used"] is False
    finally:
        one.close()
        batched.close()
    worst = max(abs(math.exp(a[k]) - math.exp(b[k])) for a, b in zip(alone, together) for k in a)
    assert worst < 1e-4, worst


@pytest.mark.llamacpp
def test_sequences_below_one_are_refused(gguf_files):
    from evaluator.backends import BackendError, create_backend

    with pytest.raises(BackendError, match="sequences 0: at least 1"):
        create_backend("llamacpp", str(gguf_files["llama", "f32"]), sequences=0)


@pytest.mark.llamacpp
def test_one_prompt_at_a_time_unless_a_count_or_auto_is_asked_for(gguf_files):
    from evaluator.backends import create_backend

    path = str(gguf_files["llama", "f32"])
    default, auto = create_backend("llamacpp", path), create_backend("llamacpp", path, sequences="auto")
    try:
        assert default.describe()["sequences"]["per_decode"] == 1 == auto.describe()["sequences"]["per_decode"]
        assert "until batching is timed" in default.describe()["sequences"]["why"]  # the GPU worker's default too
        assert "on the CPU" in auto.describe()["sequences"]["why"]
    finally:
        default.close()
        auto.close()
