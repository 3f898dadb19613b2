import pytest

from evaluator.prompts import TEMPLATES, PromptTemplate, get_template, select_exemplars, exemplar_shots, template_hash
from evaluator.questions import Question

Q = Question("q1", "  What keeps a phone cool?\n", ("Shade", "Sun", "A blanket", "An oven"), frozenset("A"), "T")


def test_mobile_mmlu_reference_prompt_is_exact():
    expected = (
        "Answer the following multiple choice question and provide only letter of the correct answer.\n"
        "What keeps a phone cool?\n"
        "A. Shade\nB. Sun\nC. A blanket\nD. An oven\n"
        "Answer\uff1a\n"
    )
    assert get_template("mobile-mmlu-reference").render(Q.question, Q.options) == expected
    # the official script's construction, literally
    question, options = Q.question, Q.options
    official = ("Answer the following multiple choice question and provide only letter of the correct answer.\n"
                + question.strip() + "\n" + "".join(f"{L}. {o}\n" for L, o in zip("ABCD", options)) + "Answer：\n")
    assert get_template("mobile-mmlu-reference").render(Q.question, Q.options) == official


def test_default_prompt():
    assert get_template("default").render(Q.question, Q.options) == (
        "What keeps a phone cool?\nA. Shade\nB. Sun\nC. A blanket\nD. An oven\nAnswer:")


def test_template_hash_is_stable():
    # Pinned: if this changes, stored runs no longer match their template. Bump `version` instead.
    assert template_hash("default") == "9c3bb7ed6ac1f95afae98c77752ea5e59f73b56b8adf571fb80bf6b5dcb4711f"
    assert template_hash("mobile-mmlu-reference") == template_hash("mobile-mmlu-reference")
    assert len({template_hash(n) for n in TEMPLATES}) == len(TEMPLATES)


def test_template_hash_follows_the_definition(monkeypatch):
    before = template_hash("default")
    t = get_template("default")
    monkeypatch.setitem(TEMPLATES, "default", PromptTemplate(**{**t.__dict__, "answer_cue": "Answer: "}))
    assert template_hash("default") != before


def test_unknown_template_says_which_exist():
    with pytest.raises(KeyError, match="default"):
        get_template("nope")


def test_exemplars_come_first_are_per_topic_and_sorted():
    dev = [Question(f"d{i}", f"Dev {i}?", ("x", "y"), frozenset("B" if i % 2 else "A"), "T" if i < 4 else "U")
           for i in (3, 1, 2, 0, 5)]
    ex = select_exemplars(dev, "T", 3)
    assert [q.question_id for q in ex] == ["d0", "d1", "d2"]
    prompt = get_template("default").render(Q.question, Q.options, exemplar_shots(ex))
    assert prompt.startswith("Dev 0?\nA. x\nB. y\nAnswer: A\n\nDev 1?\nA. x\nB. y\nAnswer: B\n\nDev 2?")
    assert prompt.endswith(get_template("default").render(Q.question, Q.options))
    ref = get_template("mobile-mmlu-reference").render(Q.question, Q.options, exemplar_shots(ex[:1]))
    assert ref.startswith("Answer the following") and "Answer\uff1a\nA\n\nWhat keeps" in ref
    assert select_exemplars(dev, "U", 5) == [dev[4]]  # fewer than k available: use what exists
