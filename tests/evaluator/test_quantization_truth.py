"""The paired comparison of a quantized file with its 16-bit model (evaluator/quantization_truth.py) on tables
worked out by hand."""
import math

import pytest

from evaluator.quantization_truth import compare, letter_kl
from evaluator.statistics import newcombe_paired, wilson_interval


def row(predicted, correct, probs=None):
    return {"predicted": predicted, "correct": correct, **({"letter_probs": probs} if probs else {})}


def test_letter_kl_is_in_nats_from_the_16_bit_distribution_and_renormalises():
    p, q = {"A": 0.5, "B": 0.5}, {"A": 0.9, "B": 0.1}
    assert letter_kl(p, q) == pytest.approx(0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(0.5 / 0.1))
    assert letter_kl(q, p) != pytest.approx(letter_kl(p, q))  # the direction matters
    assert letter_kl(p, {"A": 1.8, "B": 0.2}) == pytest.approx(letter_kl(p, q))  # unnormalised q: same
    assert letter_kl(p, p) == 0.0
    assert letter_kl({"A": 1.0, "B": 0.0}, {"A": 0.0, "B": 1.0}) == pytest.approx(-math.log(1e-12))


def test_compare_counts_flips_both_ways_and_pairs_the_interval():
    # 10 questions: 5 right in both, 2 right→wrong, 1 wrong→right, 1 wrong in both with another letter,
    # 1 wrong in both with the same letter.
    sure = {"A": 0.9, "B": 0.1}
    pairs = ([(row("A", True, sure), row("A", True, sure))] * 5
             + [(row("A", True, sure), row("B", False, {"A": 0.4, "B": 0.6}))] * 2
             + [(row("B", False, sure), row("A", True, sure))]
             + [(row("C", False), row("D", False))]
             + [(row("C", False), row("C", False))])
    report = compare(pairs)
    assert (report.n, report.base_correct, report.file_correct) == (10, 7, 6)
    assert (report.changed, report.right_to_wrong, report.wrong_to_right) == (4, 2, 1)
    assert report.share(report.changed) == 0.4 and report.change == pytest.approx(-0.1)
    assert report.change_ci95 == newcombe_paired(5, 1, 2, 2)  # (both, file only, 16-bit only, neither)
    assert report.file_ci95 == wilson_interval(6, 10)
    # KL only where both rows carry probabilities (8 pairs): 5 identical, 2 moved, 1 identical.
    moved = letter_kl(sure, {"A": 0.4, "B": 0.6})
    assert report.kl_n == 8 and report.mean_kl == pytest.approx(2 * moved / 8)


def test_compare_of_nothing_and_of_generation_rows():
    empty = compare([])
    assert empty.n == 0 and empty.change is None and empty.change_ci95 is None and empty.mean_kl is None
    generated = compare([(row("A", True), row("A", True))])
    assert generated.kl_n == 0 and generated.mean_kl is None and generated.change == 0
