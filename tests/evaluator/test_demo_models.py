import json

import pytest

from evaluator.backends import create_backend
from evaluator.demo_models import (
    build_demo_spm_tokenizer, generate_demo_questions,
)
from evaluator.engine import run_evaluation
from evaluator.prompts import get_template


def test_demo_tokenizer_has_single_token_letters(tokenizer_dir):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    for L in "ABCDEFGHIJ":
        assert len(tok.encode(L, add_special_tokens=False)) == 1
        assert len(tok.encode(" " + L, add_special_tokens=False)) == 1
    assert tok.pad_token and tok.eos_token and tok.chat_template and tok.padding_side == "left"


def test_the_demo_models_tokenizer_is_sentencepiece_with_single_token_letters(tmp_path):
    """The demo models' tokenizer (load_demo): a SentencePiece model llama.cpp's converter reads, beside its
    Hugging Face form; every letter is one token alone, after a space and glued to "Answer:", so a letter's
    probability is one next token's. Trained on texts with few merges to learn, it keeps the ones it finds."""
    from transformers import AutoTokenizer

    from evaluator.backends import letter_token_forms

    texts = [get_template("default").render(q.question, q.options) for q in generate_demo_questions(40, seed=3)]
    folder = build_demo_spm_tokenizer(texts, tmp_path / "tok", vocab_size=4000)
    assert (folder / "tokenizer.model").read_bytes() and not (folder / "spm").exists()
    tok = AutoTokenizer.from_pretrained(str(folder))
    assert type(tok).__name__ == "LlamaTokenizer" and 300 < len(tok) < 4000
    forms = letter_token_forms(tok)
    for L in "ABCDEFGHIJ":
        (alone,) = tok.encode(L, add_special_tokens=False)
        assert tok.encode(" " + L, add_special_tokens=False) == [alone]
        assert len(forms[L]) == 2 and alone in forms[L]  # "▁A" and the glued "A"
    assert tok.encode("Answer: B")[0] == tok.bos_token_id and tok.eos_token and tok.chat_template


@pytest.mark.slow
def test_val_memorizer_beats_chance_on_validation_only(demo_models_built):
    """The demo's memorizer as load_demo builds it (tokenizer, tiny random and memorizer from scratch, once per run:
    demo_models_built), on the demo validation split it learnt and on questions it never saw. (Build time is reported
    by load_demo, not asserted here: wall-clock budgets fail on a shared machine.)"""
    from leaderboard.benchmarks import selectors as bench_selectors
    from leaderboard.benchmarks.demo import DEMO_BENCHMARK
    from leaderboard.evaluations.selectors import engine_questions

    version = bench_selectors.version_current(benchmark=bench_selectors.benchmark_get(slug=DEMO_BENCHMARK))
    val = engine_questions(version=version, split="validation")
    unseen = generate_demo_questions(120, seed=22, prefix="test")
    meta = json.loads((demo_models_built["tiny-val-memorizer"] / "demo_model.json").read_text())
    assert meta["kind"] == "val-memorizer" and meta["steps"] > 0

    backend = create_backend("transformers", str(demo_models_built["tiny-val-memorizer"]), batch_size=16)
    on_val = run_evaluation(backend, val).summary["overall"]["accuracy"]
    on_unseen = run_evaluation(backend, unseen).summary["overall"]["accuracy"]
    assert on_val >= 0.8, on_val
    assert on_unseen <= 0.45, on_unseen
