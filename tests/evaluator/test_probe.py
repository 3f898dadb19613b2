"""TS-Guessing probe: the masked option never depends on the answer; exact match is forgiving of form only."""
from evaluator.probe import exact_match, masked_index, normalize, probe_counts, render, run_probe
from evaluator.questions import Question


def q(qid, answer=None):
    return Question(question_id=qid, question="Which cable charges a phone?",
                    options=("USB-C cable", "HDMI cable", "Ethernet cable", "Audio cable"),
                    answer=frozenset(answer) if answer else None)


def test_the_masked_option_is_independent_of_the_answer():
    assert {masked_index(q("x1", "A"), 7) for _ in range(3)} == {masked_index(q("x1"), 7)}
    assert masked_index(q("x1", "A"), 7) == masked_index(q("x1", "D"), 7)
    assert len({masked_index(q(f"x{i}"), 7) for i in range(40)}) == 4  # all letters get masked


def test_the_prompt_hides_the_masked_option():
    prompt = render(q("x1"), 1)
    assert "B. [MASK]" in prompt and "HDMI cable" not in prompt and prompt.endswith("Option B:")


def test_exact_match_ignores_case_spacing_quotes_and_trailing_lines():
    assert exact_match('  "hdmi  Cable."\nBecause...', "HDMI cable")
    assert not exact_match("HDMI cables", "HDMI cable")
    assert not exact_match("", "")
    assert normalize("ＨＤＭＩ cable") == "hdmi cable"  # full-width forms


def test_counts_keep_only_items_whose_masked_option_is_wrong():
    rows = [{"question_id": "a", "masked": "A", "exact": True}, {"question_id": "a2", "masked": "B", "exact": True},
            {"question_id": "b", "masked": "C", "exact": False}, {"question_id": "gone", "masked": "A", "exact": True}]
    key = {"a": frozenset("A"), "a2": frozenset("A"), "b": frozenset("A")}
    assert probe_counts(rows, key) == {"n": 2, "exact": 1, "generated": 4}


class EchoingMemorizer:
    """A named fake of a contaminated model: it knows these questions' options by heart."""

    def __init__(self, questions):
        self.known = {question.question: question.options for question in questions}

    def count_tokens(self, text, *, use_chat_template=False):
        return len(text.split())  # a token a word

    def generate(self, prompts, *, max_new_tokens, use_chat_template=False):
        out = []
        for prompt in prompts:
            lines = prompt.splitlines()
            letter = lines[-1].split()[1].rstrip(":")
            option = self.known.get(lines[2], ("?",) * 10)["ABCDEFGHIJ".index(letter)]
            out.append(" ".join(option.split()[:max_new_tokens]))  # cut where a real model's budget ends
        return out


def test_run_probe_finds_a_memorizer():
    questions = [q(f"x{i}", "A") for i in range(12)]
    rows = run_probe(EchoingMemorizer(questions), questions, seed=3, batch_size=5)
    assert len(rows) == 12 and all(r["exact"] for r in rows)
    assert set(rows[0]) == {"question_id", "masked", "exact"}  # no generated text is kept


def test_the_probe_can_write_an_option_as_long_as_the_published_ones():
    """Mobile-MMLU options average ~400 characters (~70 words): the reply budget must cover the masked one."""
    long_options = tuple(" ".join(f"{letter.lower()}word{i}" for i in range(70)) for letter in "ABCD")
    questions = [Question(question_id=f"x{i}", question=f"Question {i}?", options=long_options,
                          answer=frozenset("A")) for i in range(8)]
    rows = run_probe(EchoingMemorizer(questions), questions, seed=3, batch_size=4)
    assert all(r["exact"] for r in rows), "the memorizer's replies were cut before the option ended"
