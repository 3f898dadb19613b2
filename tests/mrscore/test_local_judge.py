"""The local judge through the transformers backend, with the tiny demo model."""
import pytest
from transformers import AutoTokenizer

from evaluator.judges import create_judge
from evaluator.judges.local import score_token_forms


def test_it_finds_score_tokens(tokenizer_dir):
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    forms = score_token_forms(tok)
    assert set(forms) >= set(range(1, 10))
    # The demo tokenizer splits "10" into "1" + "0" (only " 10" is one token): the continuation covers it.
    assert len(tok.encode("10", add_special_tokens=False)) == 2
    for k, ids in forms.items():
        assert all(tok.decode([i]).strip() == str(k) for i in ids)


def test_it_works(tiny_model_dir):
    judge = create_judge("local", str(tiny_model_dir), batch_size=8)
    questions = [f"How do I keep a phone cool in summer, case {i}?" for i in range(10)]
    verdicts = judge.judge(questions)
    assert len(verdicts) == 10
    for v in verdicts:
        assert v.method == "logprobs" and 1.0 <= v.score <= 10.0
        assert sum(v.probs) == pytest.approx(1.0) and 0 < v.mass < 1
        assert v.score == pytest.approx(sum((k + 1) * p for k, p in enumerate(v.probs)))
    assert any(v.ten_split == "continuation" for v in verdicts)
    described = judge.describe()
    assert described["endpoint_kind"] == "local-transformers" and described["prompt_rendering"] == "chat"
    assert len(described["prompt_hash"]) == 64


def test_it_handles_batch_sizes_identically(tiny_model_dir):
    questions = [f"Where do I find the train timetable offline, case {i}?" for i in range(6)]
    one = create_judge("local", str(tiny_model_dir), batch_size=1).judge(questions)
    many = create_judge("local", str(tiny_model_dir), batch_size=6).judge(questions)
    assert [v.score for v in one] == pytest.approx([v.score for v in many], abs=1e-4)


def test_it_handles_generate_mode(tiny_model_dir):
    verdicts = create_judge("local", str(tiny_model_dir), mode="generate").judge(["How do I charge a phone?"])
    (v,) = verdicts
    # An untrained model replies with noise: recorded as unparsable with the raw reply, never guessed.
    assert v.method in ("parsed", "unparsable") and (v.score is None) == (v.method == "unparsable")
    assert v.raw
