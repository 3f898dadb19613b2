"""Invented questions in the file layouts of other publishers, written with pyarrow in their real dtypes.

- MMLU-Pro (TIGER-Lab/MMLU-Pro): ``data/test-00000-of-00001.parquet`` and ``data/validation-00000-of-00001.parquet``,
  columns question_id (int64), question, options (list<string>, padded with "N/A"), answer (a letter),
  answer_index (int64), cot_content (empty in test, a worked answer in validation), category (lower case), src.
- MMLU-CF (microsoft/MMLU-CF): ``val/<Subject>_val.parquet`` (earlier ``.csv``) and ``dev/<Subject>_dev.parquet``,
  columns Question,A,B,C,D,Answer; the subject only in the file name, no question ids.
"""
import csv
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

PRO_CATEGORIES = ("biology", "business", "chemistry", "computer science", "economics", "engineering", "health",
                  "history", "law", "math", "other", "philosophy", "physics", "psychology")
CF_SUBJECTS = ("Biology", "Business", "Chemistry", "Computer_Science", "Economics", "Engineering", "Health",
               "History", "Law", "Math", "Other", "Philosophy", "Physics", "Psychology")
PRO_TEST = "data/test-00000-of-00001.parquet"
PRO_VALIDATION = "data/validation-00000-of-00001.parquet"
LETTERS = "ABCDEFGHIJ"


def pro_schema():
    return pa.schema([("question_id", pa.int64()), ("question", pa.string()), ("options", pa.list_(pa.string())),
                      ("answer", pa.string()), ("answer_index", pa.int64()), ("cot_content", pa.string()),
                      ("category", pa.string()), ("src", pa.string())])


def make_pro_rows(*, per_category=2, first_id=70, worked=False, categories=PRO_CATEGORIES):
    """Deterministic MMLU-Pro rows: 4 to 10 options; every third question padded with "N/A" options after its
    answer (as the real lists are); ``worked`` rows carry a chain of thought, as the validation split does."""
    rows = []
    for c_index, category in enumerate(categories):
        for i in range(per_category):
            n = c_index * per_category + i
            count = 4 + n % 7
            options = [f"{category} option {LETTERS[k]}{n}" for k in range(count)]
            index = n % 3
            if n % 3 == 0:
                options[-2:] = ["N/A", "N/A"]  # after the answer (index 0): dropped, no letter moves
            answer = LETTERS[index]
            rows.append({
                "question_id": first_id + n, "question": f"Invented {category} question {n}?", "options": options,
                "answer": answer, "answer_index": index,
                "cot_content": (f"A: Let's think step by step. Invented reasoning {n}. The answer is ({answer})."
                                if worked else ""),
                "category": category, "src": f"ori_mmlu-invented_{category.replace(' ', '_')}",
            })
    return rows


def write_pro_file(path: Path, rows):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=pro_schema()), path)
    return path


def write_mmlu_pro(root: Path, *, test_rows=None, validation_rows=None):
    """The dataset's own layout under ``root``: both splits as Parquet shards in data/."""
    root = Path(root)
    write_pro_file(root / PRO_TEST, make_pro_rows() if test_rows is None else test_rows)
    write_pro_file(root / PRO_VALIDATION,
                   make_pro_rows(per_category=1, first_id=0, worked=True) if validation_rows is None
                   else validation_rows)
    return root


def make_cf_rows(subject, n=2, part="val"):
    return [{"Question": f"Invented {subject} {part} question {i}?",
             **{letter: f"{subject} {part} option {letter}{i}" for letter in "ABCD"},
             "Answer": "ABCD"[(i + len(subject)) % 4]} for i in range(n)]


def write_cf_file(path: Path, rows):
    """One MMLU-CF subject file, Parquet (string columns) or CSV by its suffix."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["Question", "A", "B", "C", "D", "Answer"])
            writer.writeheader()
            writer.writerows(rows)
    else:
        schema = pa.schema([(name, pa.string()) for name in ("Question", "A", "B", "C", "D", "Answer")])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def write_mmlu_cf(root: Path, *, subjects=CF_SUBJECTS, n=2, csv_subjects=()):
    """val/<Subject>_val and dev/<Subject>_dev for each subject: Parquet, or CSV for ``csv_subjects`` (the
    publisher's earlier format), so a folder can mix both."""
    root = Path(root)
    for part in ("val", "dev"):
        for subject in subjects:
            suffix = ".csv" if subject in csv_subjects else ".parquet"
            write_cf_file(root / part / f"{subject}_{part}{suffix}", make_cf_rows(subject, n, part))
    return root
