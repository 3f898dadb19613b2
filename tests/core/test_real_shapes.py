"""The benches time scoring on invented questions shaped like the published Mobile-MMLU files
(bench/real_shapes.py): the bank must have the published topic counts, per-topic bytes per row and
per-column lengths, and render to prompts of the published length that tokenize like English."""
import csv
import statistics
from collections import Counter

import pytest

from bench import real_shapes
from evaluator.prompts import get_template

REFERENCE = real_shapes.HUB_FILES


@pytest.fixture(scope="module")
def bank():
    return real_shapes.real_shaped_questions()


def published():
    with open(REFERENCE, newline="", encoding="utf-8") as fh:
        return {r["hub_file"].removeprefix("test/").removesuffix(".csv"): (int(r["rows"]), int(r["bytes"]))
                for r in csv.DictReader(fh)}


def test_the_full_bank_has_every_published_file_with_its_row_count(bank):
    counts = Counter(q.topic for q in bank)
    assert dict(counts) == {field: rows for field, (rows, _) in published().items()}
    assert len(bank) == 16_186 and len({q.question_id for q in bank}) == len(bank)


def test_question_and_option_lengths_follow_the_published_column_means(bank):
    assert statistics.mean(len(q.question) for q in bank) == pytest.approx(171.5, rel=0.02)
    for i, letter in enumerate("ABCD"):
        assert statistics.mean(len(q.options[i]) for q in bank) == pytest.approx(
            real_shapes.CELL_MEANS[letter], rel=0.02)


def test_each_topic_has_its_files_bytes_per_row(bank):
    """Cell characters plus the CSV overhead (question_id, commas, quotes, line end) per row, as published."""
    by_topic: dict[str, list[int]] = {}
    for q in bank:
        by_topic.setdefault(q.topic, []).append(len(q.question) + sum(map(len, q.options)))
    overhead = real_shapes.row_overhead(real_shapes.reference_files())
    assert 15 < overhead < 40
    for field, (rows, size) in published().items():
        assert statistics.mean(by_topic[field]) + overhead == pytest.approx(size / rows, rel=0.02), field
    lengths = sorted(n for v in by_topic.values() for n in v)  # rows differ, as real rows do
    assert lengths[len(lengths) // 10] < 0.75 * statistics.mean(lengths) < lengths[len(lengths) // 2]


def test_a_sample_spreads_over_the_topics_by_their_size():
    sample = real_shapes.real_shaped_questions(800, seed=3)
    counts = Counter(q.topic for q in sample)
    assert len(counts) == 80 and sum(counts.values()) == 800
    assert {field: round(800 * rows / 16_186) for field, (rows, _) in published().items()} == pytest.approx(
        dict(counts), abs=1)
    assert len({q.topic for q in sample[:100]}) > 40  # shuffled: a prefix is a sample of every topic
    three = real_shapes.typical_topics(3)
    few = Counter(q.topic for q in real_shapes.real_shaped_questions(60, topics=three))
    sizes = {field: rows for field, (rows, _) in published().items() if field in three}
    assert set(few) == set(three) and sum(few.values()) == 60
    assert dict(few) == pytest.approx({t: 60 * rows / sum(sizes.values()) for t, rows in sizes.items()}, abs=1)
    dev = real_shapes.dev_questions(real_shapes.typical_topics(3))
    assert Counter(q.topic for q in dev) == {t: 5 for t in three}
    assert all(q.answer for q in dev)
    with pytest.raises(ValueError, match="unknown topics"):
        real_shapes.real_shaped_questions(4, topics=["no_such_field"])


def test_a_rendered_prompt_has_the_published_length_and_tokenizes_like_english(bank, tmp_path):
    from transformers import AutoTokenizer

    template = get_template("mobile-mmlu-reference")
    prompts = [template.render(q.question, q.options) for q in bank[::20]]
    chars = statistics.mean(map(len, prompts))
    # header + question + 4 x "X. option\n" + answer cue, at the published means: ~1,880 (the published
    # "about 1,800" counts the cells only)
    expected = (len(template.render("", [""] * 4)) + sum(real_shapes.CELL_MEANS.values()))
    assert chars == pytest.approx(expected, rel=0.02) and 1_750 < chars < 1_950
    tok = AutoTokenizer.from_pretrained(str(real_shapes.tokenizer(tmp_path / "tok")))
    ids = [tok.encode(p) for p in prompts[:200]]
    assert 400 <= statistics.mean(map(len, ids)) <= 470  # as common tokenizers count the published prompts
    words = Counter(i for row in ids for i in row)
    assert len(words) > 1_000 and words.most_common(1)[0][1] < 0.1 * sum(words.values())
    assert real_shapes.sizes_label(prompts[:5], lambda p: len(tok.encode(p))).startswith("mean prompt characters")
