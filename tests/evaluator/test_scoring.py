import math

import pytest

from evaluator.metrics import aggregate_counts, summarize
from evaluator.scoring import decide_letters, extract_answer, is_correct


def test_decide_letters_renormalises_and_reports_mass():
    lp = {"A": math.log(0.1), "B": math.log(0.3), "C": math.log(0.05), "D": math.log(0.05), "E": math.log(0.4)}
    d = decide_letters(lp, "ABCD")
    assert d.predicted == "B" and not d.tie
    assert d.letter_mass == pytest.approx(0.5)
    assert d.letter_probs == pytest.approx({"A": 0.2, "B": 0.6, "C": 0.1, "D": 0.1})
    assert sum(d.letter_probs.values()) == pytest.approx(1.0)


def test_ties_go_to_the_first_letter_and_are_reported():
    d = decide_letters({"A": -2.0, "B": -1.0, "C": -1.0, "D": -3.0}, "ABCD")
    assert d.predicted == "B" and d.tie
    d = decide_letters({L: -math.inf for L in "ABCD"}, "ABCD")
    assert d.predicted == "A" and d.tie and d.letter_mass == 0.0


def test_tiny_masses_do_not_underflow():
    d = decide_letters({"A": -900.0, "B": -901.0}, "AB")
    assert d.predicted == "A" and d.letter_probs["A"] == pytest.approx(1 / (1 + math.exp(-1)))


def test_multi_correct_counts_when_prediction_is_in_the_set():
    assert is_correct("A", frozenset("AC")) and is_correct("C", frozenset("AC"))
    assert not is_correct("B", frozenset("AC"))
    assert is_correct(None, frozenset("A")) is False
    assert is_correct("A", None) is None


@pytest.mark.parametrize("text,letters,expected", [
    ("The answer is (C).", "ABCD", "C"),
    ("so the answer is B because", "ABCD", "B"),
    ("Answer: D", "ABCD", "D"),
    ("answer: A ... final Answer:  C", "ABCD", "C"),   # greedy .* -> the last "Answer:"
    ("I think B. Actually D is right", "ABCD", "D"),  # last standalone letter
    ("A", "ABCD", "A"),
    ("the answer is (F)", "ABCD", None),               # not one of this question's letters
    ("I cannot decide", "ABCD", None),                 # unparsed: never a random guess
    ("Because APPLES are red", "ABCD", None),          # letters inside words do not count
    ("The answer is J", "ABCDEFGHIJ", "J"),
    # leading option marker, tried after the two "answer" rules and before the last letter
    ("B. A dog", "ABCD", "B"),                         # not the article "A"
    ("(C) because it is cheaper", "ABCD", "C"),
    ("D", "ABCD", "D"),
    ("B)", "ABCD", "B"),
    ("  B:  see above", "ABCD", "B"),
    ("\n**C**. A cloth is gentler", "ABCD", "C"),
    ("**D. A**", "ABCD", "D"),
    ("C \n", "ABCD", "C"),                             # whitespace, then the end
    ("B\nA dog would not", "ABCD", "B"),               # the letter alone on the first line
    ("B. A dog. The answer is (C)", "ABCD", "C"),      # "answer is" still wins
    ("C) Answer: D", "ABCD", "D"),                     # so does "Answer:"
    ("E. none of these, so B", "ABCD", "B"),           # not this question's letter: fall through
    ("A dog is not a cat", "ABCD", "A"),               # a sentence: last-letter fallback, as before
    ("A dog, so B", "ABCD", "B"),                      # ... which takes the last letter
    ("I think B", "ABCDEFGHIJ", "B"),                  # nor is the pronoun "I"
    ("Apples. B", "ABCD", "B"),                        # a word starting with a letter is no marker
    ("AB. C", "ABCD", "C"),
])
def test_extraction_cascade(text, letters, expected):
    assert extract_answer(text, letters) == expected


def test_summary_robustness_and_aggregates():
    rows = []
    for i in range(10):
        rows.append({"question_id": f"q{i}", "variant": "original", "topic": "T" if i < 5 else "U",
                     "correct": i < 6, "letter_mass": 0.5, "tie": i == 0})
        rows.append({"question_id": f"q{i}", "variant": "R1", "topic": "T" if i < 5 else "U",
                     "correct": i < 2, "letter_mass": 1.0})
    s = summarize(rows, ["original", "R1"])
    assert s["overall"]["accuracy"] == 0.6 and s["primary_variant"] == "original"
    assert s["per_topic"]["T"]["accuracy"] == 1.0 and s["per_topic"]["U"]["accuracy"] == 0.2
    assert s["per_variant"]["R1"]["accuracy"] == 0.2
    assert s["order_robustness"]["max_minus_min"] == pytest.approx(0.4)
    assert s["order_robustness"]["std"] == pytest.approx(0.2)
    assert s["letter_mass"]["mean"] == 0.75 and s["ties"] == 1
    assert {"topic": "U", "variant": "R1", "n": 5, "correct": 0} in aggregate_counts(rows)


def test_a_letter_without_a_single_token_is_a_clear_error():
    with pytest.raises(ValueError, match="letter\\(s\\) E.*generate"):
        decide_letters({"A": -1.0, "B": -1.0, "C": -1.0, "D": -1.0}, "ABCDE")
