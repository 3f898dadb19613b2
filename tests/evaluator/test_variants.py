import pytest

from evaluator.demo_models import generate_demo_questions
from evaluator.questions import Question
from evaluator.variants import (FIXED, VARIANTS, VariantError, derive_seed, make_view, parse_variants,
                                variant_applies)

QS = generate_demo_questions(50, seed=3, multi_correct_every=5, n_options=4) + [
    Question("five", "Q?", tuple("vwxyz"), frozenset({"E", "B"})),
]


@pytest.mark.parametrize("variant", FIXED)
def test_fixed_variants_put_the_correct_option_at_their_letter(variant):
    letter = variant[-1]
    for q in QS:
        v = make_view(q, variant, run_seed=0)
        first_correct = q.options["ABCDEFGHIJ".index(min(q.answer))]
        assert v.options["ABCD".index(letter)] == first_correct
        assert letter in v.answer
        # the answer set follows the options: same texts marked correct
        shown = {v.options["ABCDEFGHIJ".index(L)] for L in v.answer}
        assert shown == {q.options["ABCDEFGHIJ".index(L)] for L in q.answer}
        assert sorted(v.perm) == list(range(len(q.options)))
        assert v.original_letter(letter) == min(q.answer)


def test_original_keeps_the_order():
    v = make_view(QS[0], "original", 0)
    assert v.options == QS[0].options and v.answer == QS[0].answer and v.seed is None


def test_seeds_reproduce_and_differ():
    assert derive_seed(0, "R1", "q1") == derive_seed(0, "R1", "q1") == 5708205182851112462
    assert len({derive_seed(s, v, "q1") for s in (0, 1) for v in VARIANTS}) == 2 * len(VARIANTS)
    for q in QS:
        assert make_view(q, "R2", 7) == make_view(q, "R2", 7)
    perms = {v: [make_view(q, v, 0).perm for q in QS] for v in ("R1", "R2", "R3", "R4")}
    assert len({tuple(p) for p in perms.values()}) == 4
    assert [make_view(q, "R1", 0).perm for q in QS] != [make_view(q, "R1", 1).perm for q in QS]


def test_fixed_variants_need_an_answer_and_enough_options():
    q = Question("q", "Q?", ("a", "b", "c"), None)
    with pytest.raises(VariantError, match="needs the answer"):
        make_view(q, "fixed-A", 0)
    three = Question("q", "Q?", ("a", "b", "c"), frozenset("A"))
    assert not variant_applies(three, "fixed-D") and variant_applies(three, "fixed-C")


def test_parse_variants():
    assert parse_variants("all") == VARIANTS
    assert parse_variants("original, fixed, R1") == ("original", *FIXED, "R1")
    with pytest.raises(VariantError, match="unknown variant 'R9'"):
        parse_variants("R9")
