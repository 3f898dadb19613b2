import csv
from collections import Counter

import pytest
from django.core.management import call_command

from leaderboard.benchmarks.crypto import decrypt_answer
from leaderboard.benchmarks.demo import DEMO_DIR, DEMO_PRO_DIR
from leaderboard.benchmarks.models import Question, Topic

pytestmark = pytest.mark.django_db


def test_it_covers_every_topic_with_dev_validation_and_sealed_test(demo_loaded):
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    per_split = Counter(questions.values_list("split", flat=True))
    assert per_split["validation"] >= 400 and per_split["test"] >= 400
    assert abs(per_split["validation"] - per_split["test"]) <= 0.1 * per_split["validation"]
    dev_per_topic = Counter(questions.filter(split="dev").values_list("topic_id", flat=True))
    topics = Topic.objects.filter(benchmark__slug="mobile-mmlu")
    assert len(dev_per_topic) == topics.count() == 80 and min(dev_per_topic.values()) >= 3
    for split in ("validation", "test"):
        assert questions.filter(split=split).values("topic").distinct().count() == 80


def test_it_includes_multi_correct_questions_in_both_open_and_sealed_splits(demo_loaded):
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    assert questions.filter(split="validation", answer__contains=",").count() >= 10
    sealed = [decrypt_answer(q.answer_sealed) for q in questions.filter(split="test")]
    assert sum("," in a for a in sealed) >= 10
    # Balanced first letters: no letter is the answer to more than 35% of validation questions.
    first = Counter(a[0] for a in questions.filter(split="validation").values_list("answer", flat=True))
    assert max(first.values()) / sum(first.values()) < 0.35


def test_it_is_idempotent(demo_loaded, snapshot, capsys):
    before = snapshot()
    call_command("load_demo", "--skip-models", verbosity=0)
    assert snapshot() == before
    assert capsys.readouterr().out.count("identical content already imported") == len(demo_loaded)  # every split


def test_no_sealed_question_repeats_an_open_one(demo_loaded):
    """A sealed question whose text is also in dev or validation would already be public."""
    questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu")
    open_texts = {t.strip().lower() for t in questions.exclude(split="test").values_list("text", flat=True)}
    sealed = [t for t in questions.filter(split="test").values_list("text", flat=True) if t.strip().lower() in open_texts]
    assert sealed == []


def _rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_pro_subset_is_in_the_published_pro_layout_and_a_subset_of_the_full_set(demo_loaded):
    """MBZUAI-LLM/Mobile-MMLU-Pro: one root file, question_id,Question,A,B,C,D,Field (Field: the full set's file
    stems), every id in the full set with the same options in the same order; here a subset of validation."""
    pro_file = DEMO_PRO_DIR / "mobile-mmlu-pro.csv"
    assert pro_file.read_text(encoding="utf-8").split("\n", 1)[0] == "question_id,Question,A,B,C,D,Field"
    full = {row["question_id"]: (path.stem, row) for path in sorted((DEMO_DIR / "validation").glob("*.csv"))
            for row in _rows(path)}
    pro = _rows(pro_file)
    assert 0 < len(pro) < len(full) and len({row["question_id"] for row in pro}) == len(pro)
    for row in pro:
        stem, original = full[row["question_id"]]
        assert row["Field"] == stem
        assert [row[c] for c in ("Question", "A", "B", "C", "D")] == [original[c] for c in ("Question", "A", "B", "C",
                                                                                           "D")]
    full_key = {r["question_id"]: r["answer"] for r in _rows(DEMO_DIR / "answers" / "validation.csv")}
    pro_key = {r["question_id"]: r["answer"] for r in _rows(DEMO_PRO_DIR / "answers" / "validation.csv")}
    assert pro_key == {uid: full_key[uid] for uid in pro_key} and set(pro_key) == {r["question_id"] for r in pro}
    # Imported as Mobile-MMLU-Pro's open split, each question under the topic of its field in the full set.
    imported = Question.objects.filter(version__benchmark__slug="mobile-mmlu-pro")
    assert imported.filter(split="validation").count() == len(pro) and imported.exclude(split="validation").count() == 0
    topics = dict(Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation")
                  .values_list("uid", "topic__slug"))
    assert all(topics[uid] == slug for uid, slug in imported.values_list("uid", "topic__slug"))


def test_the_general_benchmark_is_mmlu_pro_s_layout_imported_as_docs_operations_maps_it(demo_loaded):
    """TIGER-Lab/MMLU-Pro's Parquet columns and dtypes; its worked exemplars are the dev split, its test file the open
    validation split; categories (lower case) are the topics."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from leaderboard.benchmarks.demo import DEMO_GENERAL_DIR

    expected = pa.schema([("question_id", pa.int64()), ("question", pa.string()), ("options", pa.list_(pa.string())),
                          ("answer", pa.string()), ("answer_index", pa.int64()), ("cot_content", pa.string()),
                          ("category", pa.string()), ("src", pa.string())])
    files = {split: pq.read_table(DEMO_GENERAL_DIR / f"{split}-00000-of-00001.parquet") for split in ("validation",
                                                                                                      "test")}
    assert all(table.schema.equals(expected) for table in files.values())
    test_rows = files["test"].to_pylist()
    assert 20 <= len(test_rows) <= 60 and all(r["category"] == r["category"].lower() for r in test_rows)
    assert all(r["cot_content"] for r in files["validation"].to_pylist())
    questions = Question.objects.filter(version__benchmark__slug="mmlu-pro")
    assert Counter(questions.values_list("split", flat=True)) == {"dev": files["validation"].num_rows,
                                                                 "validation": len(test_rows)}
    topics = set(Topic.objects.filter(benchmark__slug="mmlu-pro").values_list("name", flat=True))
    assert topics == {r["category"] for r in test_rows}
    padded = next(r for r in test_rows if "N/A" in r["options"])
    stored = questions.get(split="validation", uid=str(padded["question_id"]))
    assert stored.options == [o for o in padded["options"] if o != "N/A"] and stored.answer == padded["answer"]
    assert all(q.extra.get("cot_content") for q in questions.filter(split="dev"))
