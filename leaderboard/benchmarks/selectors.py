"""Reads of the question bank. Nothing here returns sealed answers."""
from django.db.models import Count, Prefetch, Q

from leaderboard.core.errors import SealedSplitError

from .models import Benchmark, BenchmarkVersion, Category, Question, Split, Subcategory, Topic


def benchmark_get(*, slug: str) -> Benchmark | None:
    return Benchmark.objects.filter(slug=slug).first()


def benchmark_list():
    return Benchmark.objects.all().order_by("slug")


def version_current(*, benchmark: Benchmark) -> BenchmarkVersion | None:
    return benchmark.versions.order_by("-number").first()


def version_has_runs(*, version: BenchmarkVersion) -> bool:
    return version.runs.exists()


def version_split_counts(*, version: BenchmarkVersion | None) -> dict[str, int]:
    counts = {split.value: 0 for split in Split}
    if version is not None:
        for row in version.questions.values("split").annotate(n=Count("id")):
            counts[row["split"]] = row["n"]
    return counts


def topic_index(*, benchmark: Benchmark) -> list[Topic]:
    return list(Topic.objects.filter(benchmark=benchmark).select_related("subcategory__category"))


def taxonomy_tree(*, benchmark: Benchmark, version: BenchmarkVersion | None = None):
    """Categories with their subcategories and topics, each topic annotated with open-question counts."""
    topics = Topic.objects.order_by("order")
    if version is not None:
        topics = topics.annotate(
            n_dev=Count("questions", filter=Q(questions__version=version, questions__split=Split.DEV)),
            n_validation=Count("questions", filter=Q(questions__version=version, questions__split=Split.VALIDATION)),
            n_test=Count("questions", filter=Q(questions__version=version, questions__split=Split.TEST)),
        )
    subcategories = Subcategory.objects.order_by("order").prefetch_related(Prefetch("topics", queryset=topics))
    return (
        Category.objects.filter(benchmark=benchmark)
        .order_by("order")
        .prefetch_related(Prefetch("subcategories", queryset=subcategories))
    )


def open_questions(*, version: BenchmarkVersion, split: str):
    """Questions of an open split. Refuses the sealed split outright."""
    if split == Split.TEST:
        raise SealedSplitError("The test split is sealed; its questions are not served.")
    return Question.objects.filter(version=version, split=split).select_related("topic")
