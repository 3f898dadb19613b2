"""The demo models, built as load_demo builds them, become GGUF files through the project's own pipeline
(evaluator/gguf_convert.py: llama.cpp's converter, then its quantizer) and score in llama.cpp as in transformers: the
on-device variants `dev.sh serve` shows. Needs the llama.cpp environment (.venv-llamacpp).

Measured (12 questions): f32 within 2e-7 of transformers; q8_0 within 1.1e-3 and the same letters; q4_k_m within
1.7e-2, the memorizer's letters unchanged. The demo models' rows (64 and 128 values) are narrower than the K-quants'
256-value blocks, so llama.cpp's q4_k_m recipe falls back to q5_0 and q8_0 for most tensors (it warns per tensor).
"""
import pytest

from evaluator.backends import create_backend
from evaluator.engine import run_evaluation
from evaluator.gguf_convert import convert, quantize
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import Split
from leaderboard.evaluations.selectors import engine_questions
from tests.evaluator.test_llamacpp_backend import largest_difference, llamacpp

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow, pytest.mark.django_db]


def demo_questions(slug: str, n: int):
    version = bench_selectors.version_current(benchmark=bench_selectors.benchmark_get(slug=slug))
    return engine_questions(version=version, split=Split.VALIDATION)[:n]


def scored(path, questions, folder):
    """Rows of the llamacpp backend on a GGUF file, its prompts' token ids checked against the checkpoint's
    tokenizer (TOKENIZER_MISMATCH otherwise), and the file's quantization type."""
    backend = llamacpp(path, kv_cache_type="f32", tokenizer=str(folder))
    try:
        rows = run_evaluation(backend, questions).rows
        card = backend.describe()
    finally:
        backend.close()
    assert card["tokenizer_check"] == {"reference": str(folder), "checked": True}
    return rows, card["dtype"]


def test_the_demo_models_convert_quantize_and_score_as_in_transformers(demo_models_built, tmp_path):
    validation = demo_questions("mobile-mmlu", 8)
    questions = validation + demo_questions("mmlu-pro", 4)  # the memorizer's own questions, then unseen ones
    for name, folder in demo_models_built.items():
        hf = create_backend("transformers", str(folder), device="cpu", dtype="float32", batch_size=4)
        reference = run_evaluation(hf, questions).rows
        f32 = tmp_path / f"{name}-f32.gguf"
        assert convert(str(folder), f32, "f32")["steps"] == ["convert_hf_to_gguf.py --outtype f32"]
        rows, dtype = scored(f32, questions, folder)
        assert dtype == "F32" and largest_difference(rows, reference) <= 1e-4  # the same letters too
        if name == "tiny-val-memorizer":  # its GGUF file still knows the validation answers
            assert all(r["predicted"] in q.answer for r, q in zip(rows, validation))
        for quant, bound in (("q8_0", 5e-3), ("q4_k_m", 0.1)):
            quantize(f32, tmp_path / f"{name}-{quant}.gguf", quant)
            quantized, dtype = scored(tmp_path / f"{name}-{quant}.gguf", questions, folder)
            assert dtype == quant.upper()
            moved = max(abs(a["letter_probs"][L] - b["letter_probs"][L])
                        for a, b in zip(quantized, rows) for L in a["letter_probs"])
            print(f"{name} {quant}: largest letter-probability move from f32 {moved:.1e}")
            assert moved <= bound
            if quant == "q8_0" or name == "tiny-val-memorizer":
                assert [r["predicted"] for r in quantized] == [r["predicted"] for r in rows]
