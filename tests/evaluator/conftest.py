"""Evaluator fixtures. The tiny models themselves live in tests/support/model_fixtures.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.model_fixtures import BIAS_FORMS, expected_biased_probs  # noqa: F401  (re-exported)


@pytest.fixture(scope="session")
def biased_backend(biased_model_dir):
    from evaluator.backends import create_backend
    return create_backend("transformers", str(biased_model_dir), device="cpu", batch_size=4)


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_dir):
    from evaluator.backends import create_backend
    return create_backend("transformers", str(tiny_model_dir), device="cpu", batch_size=4)


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def question_records(questions):
    return [{"question_id": q.question_id, "question": q.question, "options": list(q.options),
             "answer": ",".join(sorted(q.answer)) if q.answer else None, "topic": q.topic} for q in questions]
