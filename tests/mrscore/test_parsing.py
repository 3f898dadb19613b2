"""Reply parsing, expected scores, the prompt, and the aggregate statistics (no database, no model)."""
import math

import pytest

from evaluator.judges.parsing import judgement_from_openai, parse_score
from evaluator.judges.prompt import PROMPT_VERSION, prompt_hash, render
from evaluator.judges.stats import bin_counts, histogram
from evaluator.statistics import mean_ci, spearman


@pytest.mark.parametrize("reply, expected", [
    ("7", 7), (" 7\n", 7), ("7.", 7), ("7/10", 7), ("7 / 10", 7), ("Score: 7", 7), ("**7**", 7),
    ("7 out of 10", 7), ("10", 10), ("10/10", 10), ("1", 1),
    ("11", None), ("0", None), ("seven", None), ("", None), ("   ", None), (None, None), ("7.5", None),
    ("I'm sorry, I can't rate that.", None), ("7 or 8", None), ("-3", None), ("7/5", None),
])
def test_it_parses_replies(reply, expected):
    assert parse_score(reply) == expected


def test_it_works_with_logprobs():
    steps = [{"token": "8", "logprob": math.log(0.6),
              "top_logprobs": [{"token": "8", "logprob": math.log(0.6)}, {"token": " 7", "logprob": math.log(0.3)},
                               {"token": "Sure", "logprob": math.log(0.1)}]}]
    j = judgement_from_openai("8", steps)
    assert j.method == "logprobs"
    assert j.score == pytest.approx((8 * 0.6 + 7 * 0.3) / 0.9)
    assert j.mass == pytest.approx(0.9)
    assert sum(j.probs) == pytest.approx(1.0)


def test_it_handles_ten_as_two_tokens():
    # The judge's first token is "1"; the next step says "0" with 0.75, end of reply with the rest.
    steps = [{"token": "1", "logprob": math.log(0.5),
              "top_logprobs": [{"token": "1", "logprob": math.log(0.5)}, {"token": "9", "logprob": math.log(0.5)}]},
             {"token": "0", "logprob": math.log(0.75),
              "top_logprobs": [{"token": "0", "logprob": math.log(0.75)}, {"token": "5", "logprob": math.log(0.05)}]}]
    j = judgement_from_openai("10", steps)
    p1, p10, p9 = 0.5 * 0.2, 0.5 * 0.75, 0.5
    assert j.ten_split == "continuation"
    assert j.score == pytest.approx((1 * p1 + 10 * p10 + 9 * p9) / (p1 + p10 + p9))


def test_it_handles_unparsable_reply_despite_logprobs():
    steps = [{"token": "11", "logprob": -0.1, "top_logprobs": [{"token": "11", "logprob": -0.1},
                                                              {"token": "7", "logprob": -3.0}]}]
    j = judgement_from_openai("11", steps)
    assert (j.score, j.method, j.raw) == (None, "unparsable", "11")


def test_it_handles_no_logprobs():
    j = judgement_from_openai("Score: 6/10", None)
    assert (j.score, j.method, j.raw) == (6.0, "parsed", "Score: 6/10")


def test_it_versions_and_hashes_the_prompt():
    text = render("How do I pack a first-aid kit?")
    assert text.startswith("You are an expert in evaluating the relevance of different types of questions for "
                           "mobile devices. Assess a given question using the criteria of practical value, "
                           "mobile-friendliness, and usage patterns to return a relevance score from 1 to 10.")
    assert "Question: How do I pack a first-aid kit?" in text
    assert text.endswith("Return only the numeric score without explanation.")
    assert render("q", rendering="completion").endswith("\nScore:")
    assert PROMPT_VERSION and len(prompt_hash()) == 64 and prompt_hash("chat") != prompt_hash("completion")


def test_it_aggregates():
    block = mean_ci([6, 7, 8])
    assert block["mean"] == pytest.approx(7.0)
    assert block["ci95"] == pytest.approx([7 - 4.3027 / math.sqrt(3), 7 + 4.3027 / math.sqrt(3)], rel=1e-4)
    assert mean_ci([5.0])["ci95"] == [None, None]
    bins = bin_counts([7.0, 6.99, 5.0, 4.9, 3.0, 2.99, 10])
    assert {k: v["n"] for k, v in bins.items()} == {">= 7": 2, "5-6.9": 2, "3-4.9": 2, "< 3": 1}
    assert histogram([1, 1.5, 9.99, 10]) == [2, 0, 0, 0, 0, 0, 0, 0, 1, 1]


def test_it_computes_spearman():
    assert spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 9])["rho"] == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4, 5], [9, 8, 7, 6, 5])["rho"] == pytest.approx(-1.0)
    result = spearman([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])  # ties-free: 1 - 6*6/(6*35)
    assert result["rho"] == pytest.approx(1 - 6 * 6 / (6 * 35))
    low, high = result["ci95"]
    assert low < result["rho"] < high
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4])["rho"] == pytest.approx(0.9486832980505138)  # scipy's value
    assert spearman([1, 2], [1, 2])["rho"] is None
