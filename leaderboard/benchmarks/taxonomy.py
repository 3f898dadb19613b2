"""The published Mobile-MMLU taxonomy (paper Appendix B Table 8) and topic MRScores (Table 10).

Called from a data migration with historical models, so it takes the model
classes as arguments rather than importing them.
"""
import csv
from pathlib import Path

from django.utils.text import slugify

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
TAXONOMY_CSV = REFERENCE_DIR / "mobile_mmlu_taxonomy.csv"
MRSCORE_CSV = REFERENCE_DIR / "mobile_mmlu_mrscore_by_topic.csv"

MOBILE_MMLU_BENCHMARKS = [
    {
        "slug": "mobile-mmlu",
        "name": "Mobile-MMLU",
        "source_repo": "MBZUAI-LLM/Mobile-MMLU",
        "description": "16,186 multiple-choice questions of everyday phone use in 80 topics (arXiv 2503.20786).",
        "with_populations": True,
    },
    {
        "slug": "mobile-mmlu-pro",
        "name": "Mobile-MMLU-Pro",
        "source_repo": "MBZUAI-LLM/Mobile-MMLU-Pro",
        "description": "The harder 9,497-question subset of Mobile-MMLU (arXiv 2503.20786).",
        "with_populations": False,  # the paper publishes populations for Mobile-MMLU only
    },
]


def _read_csv(path):
    # The reference files have CRLF line endings; csv with newline="" handles them.
    with open(path, newline="", encoding="utf-8") as handle:
        return [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]


def read_taxonomy():
    return _read_csv(TAXONOMY_CSV)


def read_published_mrscores():
    return {row["topic"]: float(row["published_mrscore"]) for row in _read_csv(MRSCORE_CSV)}


def load_mobile_mmlu_taxonomy(Benchmark, Category, Subcategory, Topic):
    rows = read_taxonomy()
    mrscores = read_published_mrscores()
    for spec in MOBILE_MMLU_BENCHMARKS:
        benchmark, _ = Benchmark.objects.get_or_create(
            slug=spec["slug"],
            defaults={k: spec[k] for k in ("name", "source_repo", "description")},
        )
        categories, subcategories = {}, {}
        for order, row in enumerate(rows):
            cat_name, sub_name = row["category"], row["subcategory"]
            if cat_name not in categories:
                categories[cat_name] = Category.objects.create(
                    benchmark=benchmark, name=cat_name, slug=slugify(cat_name), order=len(categories)
                )
            if (cat_name, sub_name) not in subcategories:
                subcategories[cat_name, sub_name] = Subcategory.objects.create(
                    category=categories[cat_name], name=sub_name, slug=slugify(sub_name),
                    order=len(subcategories),
                )
            Topic.objects.create(
                benchmark=benchmark,
                subcategory=subcategories[cat_name, sub_name],
                name=row["topic"],
                slug=slugify(row["topic"]),
                hub_field=row["likely_hub_field"],
                order=order,
                published_population=int(row["population"]) if spec["with_populations"] else None,
                published_mrscore=mrscores.get(row["topic"]),
            )
