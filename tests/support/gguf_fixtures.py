"""Tiny GGUF files made by the project's own pipeline (evaluator/gguf_convert.py), once per test session.

Two families the pinned converter supports, Llama and Gemma, random and tiny (evaluator/spm_models.py), with a
SentencePiece vocabulary trained here on real-shaped prompts (bench/real_shapes.py: ~1,800 characters each).
Each is converted to f32 once; q8_0, q4_0 and q4_k_m are quantized from that file. Needs the llama.cpp
environment (.venv-llamacpp): only tests marked `llamacpp` use these fixtures.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.prompts import get_template
from tests.support.shared_build import once

GGUF_FAMILIES = ("llama", "gemma")
QUANTIZED = ("q8_0", "q4_0", "q4_k_m")


@pytest.fixture(scope="session")
def real_questions():
    """Invented questions with the published files' shapes (about 1,800 characters per 0-shot prompt)."""
    from bench.real_shapes import real_shaped_questions

    return real_shaped_questions(12, seed=3, prefix="gguf")


@pytest.fixture(scope="session")
def real_dev_questions(real_questions):
    from bench.real_shapes import dev_questions

    return dev_questions(sorted({q.topic for q in real_questions}), per_topic=5, seed=4)


@pytest.fixture(scope="session")
def spm_tokenizer_file(models_dir, real_questions, real_dev_questions) -> Path:
    from evaluator.spm_models import build_spm_tokenizer

    texts = [get_template(t).render(q.question, q.options) for q in real_questions + real_dev_questions
             for t in ("default", "mobile-mmlu-reference")]
    return once(models_dir, "spm", lambda: build_spm_tokenizer(texts, models_dir / "spm", vocab_size=1000))


@pytest.fixture(scope="session")
def spm_model_dirs(models_dir, spm_tokenizer_file) -> dict[str, Path]:
    """family -> a tiny random checkpoint folder (safetensors, tokenizer.model, tokenizer.json)."""
    from evaluator.spm_models import build_spm_model

    return once(models_dir, "spm-models", lambda: {
        family: build_spm_model(models_dir / f"spm-{family}", spm_tokenizer_file, family=family, seed=1)
        for family in GGUF_FAMILIES})


@pytest.fixture(scope="session")
def gguf_files(models_dir, spm_model_dirs) -> dict[tuple[str, str], Path]:
    """(family, quant) -> GGUF file: f32 converted from the checkpoint, the others quantized from it."""
    from evaluator.gguf_convert import convert, quantize

    def build():
        files = {}
        for family, folder in spm_model_dirs.items():
            f32 = models_dir / "gguf" / f"{family}-f32.gguf"
            convert(str(folder), f32, "f32")
            files[family, "f32"] = f32
            for quant in QUANTIZED:
                files[family, quant] = models_dir / "gguf" / f"{family}-{quant}.gguf"
                quantize(f32, files[family, quant], quant)
        return files

    return once(models_dir, "gguf", build)
