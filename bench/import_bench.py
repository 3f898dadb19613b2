"""Importer throughput: the real importer vs a naive one-save()-per-row loop, in one run.

Generates a 16,186-question set in the hub layout (80 field files with the published files'
row counts and lengths, bench/real_shapes.py: 28.9 MB) plus an answer key, imports it with `benchmark_import`, then
imports the same files again with a naive loop. Prints questions/s and the ratio.

    python bench/import_bench.py            # full size (16,186 questions)
    python bench/import_bench.py --scale 0.1
"""
import argparse
import csv
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._django import bench_database  # noqa: E402


def generate(root: Path, scale: float, seed=7):
    """The hub layout with the published files' row counts and lengths (bench/real_shapes.py: 1,786 bytes per row,
    28.9 MB at full size), about 5.8% of the questions with two correct letters in the key."""
    from bench.real_shapes import real_shaped_questions

    rng = random.Random(seed)
    folder = root / "test"
    folder.mkdir(parents=True)
    questions = real_shaped_questions(None if scale == 1 else max(80, round(16_186 * scale)), seed=seed,
                                      prefix="import", with_answers=False)
    by_field: dict[str, list] = {}
    for q in questions:
        by_field.setdefault(q.topic, []).append(q)
    key_rows = []
    for field, rows in by_field.items():
        with open(folder / f"{field}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["question_id", "Question", "A", "B", "C", "D"])
            for q in rows:
                writer.writerow([q.question_id, q.question, *q.options])
                letters = rng.sample("ABCD", 2) if rng.random() < 0.058 else [rng.choice("ABCD")]
                key_rows.append((q.question_id, ",".join(sorted(letters))))
    with open(root / "answers.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "answer"])
        writer.writerows(key_rows)
    return len(questions)


def naive_import(folder: Path, answers: Path, version):
    """What a first draft looks like: csv.DictReader, a topic lookup and a save() per row."""
    from leaderboard.benchmarks.models import Question, Topic

    key = {row["question_id"]: row["answer"] for row in csv.DictReader(open(answers, newline=""))}
    position = 0
    for path in sorted((folder / "test").glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                topic = Topic.objects.get(benchmark=version.benchmark, hub_field=path.stem)
                Question(version=version, uid=row["question_id"], topic=topic, split="validation",
                         position=position, text=row["Question"], options=[row[c] for c in "ABCD"],
                         answer=key[row["question_id"]]).save()
                position += 1
    return position


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 16,186 questions to generate")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, bench_database():
        from leaderboard.benchmarks.models import BenchmarkVersion
        from leaderboard.benchmarks.services import benchmark_import

        root = Path(tmp)
        total = generate(root, args.scale)
        files = list((root / "test").glob("*.csv"))
        size = sum(f.stat().st_size for f in files)
        print(f"generated {total:,} questions in {len(files)} field files, {size / 1e6:.1f} MB "
              f"({size / total:,.0f} bytes per row)")

        start = time.perf_counter()
        result = benchmark_import(benchmark_slug="mobile-mmlu", split="validation", path=root,
                                  answers_path=root / "answers.csv")
        real = time.perf_counter() - start
        assert result.questions == total, result

        start = time.perf_counter()
        again = benchmark_import(benchmark_slug="mobile-mmlu", split="validation", path=root,
                                 answers_path=root / "answers.csv")
        noop = time.perf_counter() - start
        assert again.outcome == "unchanged"

        version = BenchmarkVersion.objects.create(benchmark_id=result and BenchmarkVersion.objects.get(
            benchmark__slug="mobile-mmlu").benchmark_id, number=99)
        start = time.perf_counter()
        naive_count = naive_import(root, root / "answers.csv", version)
        naive = time.perf_counter() - start
        assert naive_count == total

    print(f"{'method':<32}{'seconds':>10}{'questions/s':>14}")
    print(f"{'importer (bulk, validated)':<32}{real:>10.2f}{total / real:>14,.0f}")
    print(f"{'identical re-import (no-op)':<32}{noop:>10.2f}{total / noop:>14,.0f}")
    print(f"{'naive save() per row':<32}{naive:>10.2f}{total / naive:>14,.0f}")
    print(f"ratio importer / naive: {naive / real:.1f}x  (aim: >= 10x; importer under 20 s for 16,186 on 2 cores)")


if __name__ == "__main__":
    main()
