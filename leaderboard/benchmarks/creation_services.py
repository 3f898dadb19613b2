"""Writes that create a benchmark with its own taxonomy (MMLU, MMLU-Pro, ...) from a taxonomy CSV or a question
file."""
import csv
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from .importers.errors import BenchmarkImportError, ImportProblem, ProblemCollector
from .importers.readers import TOPIC_COLUMNS, read_folder, read_table_file
from .models import Benchmark, Category, Subcategory, Topic


@dataclass(frozen=True)
class CreateResult:
    benchmark: str
    created: bool
    topics: int
    message: str


def _taxonomy_csv_rows(path: Path, problems: ProblemCollector) -> list[tuple]:
    rows = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip().lower() for h in (reader.fieldnames or [])]
            if "topic" not in header:
                problems.add(path, "no 'topic' column", row=1,
                             hint="columns: topic, and optionally category, subcategory, hub_field")
                problems.raise_if_any()
            for number, raw in enumerate(reader, start=2):
                record = {(k or "").strip().lower(): (v or "").strip() for k, v in raw.items()}
                if not record.get("topic"):
                    problems.add(path, "empty topic", row=number, column="topic")
                    continue
                rows.append((record.get("category") or "General", record.get("subcategory") or "",
                             record["topic"], record.get("hub_field") or ""))
    except OSError as exc:
        problems.add(path, f"cannot read the file: {exc.strerror or exc}")
    return rows


def _question_file_rows(path: Path, problems: ProblemCollector) -> list[tuple]:
    """One row per distinct topic of a question file or folder: a topic/field/subject/category value, or the
    subject a file name gives (MMLU-CF's ``Computer_Science_val.parquet``: the topic "Computer Science", its hub
    field the name's own spelling)."""
    limit = settings.IMPORT_MAX_FILE_BYTES
    if path.is_dir():  # the files an import of the validation split would read
        records = read_folder(path, "validation", max_bytes=limit, problems=problems, progress=lambda files, _: files)
    elif path.is_file():
        records = read_table_file(path, max_bytes=limit, problems=problems)
    else:
        records = problems.add(path, "no such file or folder") or []
    seen = {}
    for record in records:
        if record.topic_label:
            seen.setdefault((re.sub(r"[\s_]+", " ", record.topic_label).strip(), record.topic_label), None)
            continue
        label = next((str(record.values[c]).strip() for c in TOPIC_COLUMNS if record.values.get(c)), "")
        if label:
            seen.setdefault((label, ""), None)
        else:
            problems.add(record.file, "no topic/field/subject/category", row=record.row, column="topic",
                         hint="give each question a topic, or name the files after their subject")
    return [("General", "", label, hub_field) for label, hub_field in seen]


def _unique_topics(rows, path: Path, problems: ProblemCollector) -> list[tuple]:
    """Rows with their hub field and subcategory filled in; a topic whose slug or hub field is taken is a problem."""
    names, fields = {}, {}
    cleaned = []
    for category, subcategory, topic, hub_field in rows:
        hub_field = hub_field or slugify(topic).replace("-", "_")
        subcategory = subcategory or category
        if slugify(topic) in names or hub_field in fields:
            problems.add(path, f"topic {topic!r} appears twice (or two topics share a slug / hub field)")
            continue
        names[slugify(topic)], fields[hub_field] = topic, topic
        cleaned.append((category, subcategory, topic, hub_field))
    return cleaned


def _taxonomy_rows(*, taxonomy_path=None, topics_from=None):
    """[(category, subcategory, topic, hub_field)] from a taxonomy CSV (columns topic[, category, subcategory,
    hub_field]) or from the distinct topic/field/subject values of a question file."""
    problems = ProblemCollector()
    if taxonomy_path is not None:
        path = Path(taxonomy_path)
        rows = _taxonomy_csv_rows(path, problems)
    else:
        path = Path(topics_from)
        rows = _question_file_rows(path, problems)
    if not rows and not problems.problems:
        problems.add(path, "no topics found")
    cleaned = _unique_topics(rows, path, problems)
    problems.raise_if_any()
    return cleaned


def _check_create_arguments(slug, taxonomy_path, topics_from):
    if (taxonomy_path is None) == (topics_from is None):
        raise BenchmarkImportError([ImportProblem("--taxonomy", "give exactly one of a taxonomy CSV or a "
                                                  "question file to take the topics from")])
    if not slug or slugify(slug) != slug:
        raise BenchmarkImportError([ImportProblem("--slug", f"{slug!r} is not a slug",
                                                  hint=f"use lower-case letters, digits and dashes, e.g. "
                                                       f"{slugify(slug) or 'mmlu'!r}")])


def _existing_result(existing: Benchmark, slug: str, rows) -> CreateResult:
    """A no-op for the same taxonomy; a different one is refused."""
    have = sorted((t.subcategory.category.name, t.subcategory.name, t.name, t.hub_field)
                  for t in Topic.objects.filter(benchmark=existing).select_related("subcategory__category"))
    if have == sorted(rows):
        return CreateResult(slug, False, len(rows), f"{slug}: exists with this taxonomy ({len(rows)} topics); "
                                                    "nothing changed.")
    raise BenchmarkImportError([ImportProblem("--slug", f"benchmark {slug!r} exists with a different "
                                              f"taxonomy ({len(have)} topics)",
                                              hint="use another slug; an existing taxonomy is never rewritten")])


def _create_taxonomy(benchmark: Benchmark, rows) -> tuple[int, int]:
    """Category -> Subcategory -> Topic rows in file order; returns the numbers of categories and subcategories."""
    categories, subcategories = {}, {}
    for order, (cat_name, sub_name, topic, hub_field) in enumerate(rows):
        if cat_name not in categories:
            categories[cat_name] = Category.objects.create(benchmark=benchmark, name=cat_name,
                                                           slug=slugify(cat_name) or f"c{len(categories)}",
                                                           order=len(categories))
        if (cat_name, sub_name) not in subcategories:
            subcategories[cat_name, sub_name] = Subcategory.objects.create(
                category=categories[cat_name], name=sub_name, slug=slugify(sub_name) or f"s{len(subcategories)}",
                order=len(subcategories))
        Topic.objects.create(benchmark=benchmark, subcategory=subcategories[cat_name, sub_name], name=topic,
                             slug=slugify(topic), hub_field=hub_field, order=order)
    return len(categories), len(subcategories)


@transaction.atomic
def benchmark_create(*, slug: str, name: str = "", taxonomy_path=None, topics_from=None, description: str = "",
                     source_repo: str = "") -> CreateResult:
    """Create a benchmark (Category -> Subcategory -> Topic) other than the built-in Mobile-MMLU ones.

    Idempotent: the same slug with the same taxonomy is a no-op; a different taxonomy for an existing
    slug is refused (nothing is changed)."""
    _check_create_arguments(slug, taxonomy_path, topics_from)
    rows = _taxonomy_rows(taxonomy_path=taxonomy_path, topics_from=topics_from)
    existing = Benchmark.objects.select_for_update().filter(slug=slug).first()
    if existing is not None:
        return _existing_result(existing, slug, rows)
    benchmark = Benchmark.objects.create(slug=slug, name=name or slug, description=description,
                                         source_repo=source_repo)
    categories, subcategories = _create_taxonomy(benchmark, rows)
    return CreateResult(slug, True, len(rows), f"{slug}: created with {categories} categories, "
                                               f"{subcategories} subcategories, {len(rows)} topics.")
