import json

import pytest

from evaluator.backends import create_backend
from evaluator.demo_models import build_demo_tokenizer, build_tiny_random, build_val_memorizer, generate_demo_questions
from evaluator.engine import run_evaluation
from evaluator.prompts import get_template


def test_demo_tokenizer_has_single_token_letters(tokenizer_dir):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    for L in "ABCDEFGHIJ":
        assert len(tok.encode(L, add_special_tokens=False)) == 1
        assert len(tok.encode(" " + L, add_special_tokens=False)) == 1
    assert tok.pad_token and tok.eos_token and tok.chat_template and tok.padding_side == "left"


@pytest.mark.slow
def test_val_memorizer_beats_chance_on_validation_only(tmp_path):
    """Builds tokenizer + tiny random + memorizer from scratch. (Build time is reported by load_demo, not
    asserted here: wall-clock budgets fail on a shared machine.)"""
    val = generate_demo_questions(120, seed=21, prefix="val")
    unseen = generate_demo_questions(120, seed=22, prefix="test")
    tmpl = get_template("default")
    tok = build_demo_tokenizer([tmpl.render(q.question, q.options) for q in val + unseen], tmp_path / "tok")
    build_tiny_random(tmp_path / "tiny", tok)
    build_val_memorizer(tmp_path / "mem", tok, val, steps=250)
    meta = json.loads((tmp_path / "mem" / "demo_model.json").read_text())
    assert meta["kind"] == "val-memorizer" and meta["steps"] == 250

    backend = create_backend("transformers", str(tmp_path / "mem"), batch_size=16)
    on_val = run_evaluation(backend, val).summary["overall"]["accuracy"]
    on_unseen = run_evaluation(backend, unseen).summary["overall"]["accuracy"]
    assert on_val >= 0.8, on_val
    assert on_unseen <= 0.45, on_unseen
