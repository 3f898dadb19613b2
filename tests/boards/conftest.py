"""General-knowledge boards beside the demo's Mobile-MMLU one: the demo's `mmlu-pro` (42 validation questions), or a
small invented question file imported as the open split of `mmlu-cf` through the real importer; scored runs on them
come from make_run's `benchmark=`."""
import csv

import pytest

from tests.results.conftest import make_run  # noqa: F401  (fixture)

GENERAL_QUESTIONS = 40


def general_import(tmp_path, slug):
    """`slug` with GENERAL_QUESTIONS questions on its validation split, in two topics (its own, when the benchmark
    already has a taxonomy)."""
    from leaderboard.benchmarks import selectors as bench_selectors
    from leaderboard.benchmarks.creation_services import benchmark_create
    from leaderboard.benchmarks.services import benchmark_import

    existing = bench_selectors.benchmark_get(slug=slug)
    topics = (list(existing.topics.order_by("order").values_list("hub_field", flat=True)[:2]) if existing
              else ["physics", "law"])
    path = tmp_path / f"{slug}.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "question", "A", "B", "C", "D", "answer", "topic"])
        for i in range(GENERAL_QUESTIONS):
            writer.writerow([f"{slug}-{i}", f"Invented general question {i} of {slug}?", f"first {i}",
                             f"second {i}", f"third {i}", f"fourth {i}", "ABCD"[i % 4], topics[i % 2]])
    if existing is None:
        benchmark_create(slug=slug, name={"mmlu-pro": "MMLU-Pro", "mmlu-cf": "MMLU-CF"}[slug], topics_from=path)
    return benchmark_import(benchmark_slug=slug, split="validation", path=path, sealed=False)


@pytest.fixture
def general_board(demo_loaded, tmp_path):
    """The demo's `mmlu-pro`; returns general_import, to add `mmlu-cf`."""
    return lambda slug: general_import(tmp_path, slug)
