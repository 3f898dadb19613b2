"""Invented questions written to the real file layouts (hub folder, CSV, JSONL, Parquet, answer key)."""
import csv
import json
from pathlib import Path

FIELDS = ("first_aid", "pet_care", "marketing__and_sales_strarigies")


def make_questions(n_per_field=3, prefix="q", fields=FIELDS):
    """Deterministic invented questions; every 5th has two correct answers."""
    rows = []
    for f_index, field in enumerate(fields):
        for i in range(n_per_field):
            n = f_index * n_per_field + i
            answer = "ABCD"[n % 4] if n % 5 else "A,C"
            rows.append({
                "question_id": f"{prefix}-{field[:8]}-{i}",
                "topic": field,
                "question": f"Invented question {n} about {field.replace('_', ' ')}?",
                "options": [f"option {letter}{n}" for letter in "ABCD"],
                "answer": answer,
            })
    return rows


def write_hub_folder(root: Path, rows, *, with_answers=False, sub="test"):
    """The MBZUAI-LLM/Mobile-MMLU layout: <root>/test/<field>.csv with question_id,Question,A,B,C,D."""
    folder = Path(root) / sub
    folder.mkdir(parents=True, exist_ok=True)
    by_field = {}
    for row in rows:
        by_field.setdefault(row["topic"], []).append(row)
    for field, items in by_field.items():
        with open(folder / f"{field}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["question_id", "Question", "A", "B", "C", "D"] + (["answer"] if with_answers else []))
            for row in items:
                writer.writerow([row["question_id"], row["question"], *row["options"]]
                                + ([row["answer"]] if with_answers else []))
    return Path(root)


def write_answer_key(path: Path, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "answer"])
        for row in rows:
            writer.writerow([row["question_id"], row["answer"]])
    return Path(path)


def write_csv(path: Path, rows, *, answers=True):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "topic", "question", "A", "B", "C", "D"] + (["answer"] if answers else []))
        for row in rows:
            writer.writerow([row["question_id"], row["topic"], row["question"], *row["options"]]
                            + ([row["answer"]] if answers else []))
    return Path(path)


def write_jsonl(path: Path, rows):
    with open(path, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return Path(path)


def write_parquet(path: Path, rows):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), path)
    return Path(path)
