"""Create a benchmark with its own taxonomy (e.g. MMLU or MMLU-Pro), to import and judge its questions."""
from django.core.management.base import BaseCommand, CommandError

from leaderboard.benchmarks.importers.errors import BenchmarkImportError
from leaderboard.benchmarks.creation_services import benchmark_create


class Command(BaseCommand):
    help = ("Create a benchmark other than Mobile-MMLU with its own taxonomy, from a CSV with columns topic "
            "[, category, subcategory, hub_field] or from the topics of a question file or folder (its topic, "
            "field, subject or category column, or its file names: MMLU-CF's val/<Subject>_val.parquet). "
            "Idempotent; an existing benchmark's taxonomy is never rewritten. Then: import_benchmark --benchmark "
            "SLUG ... and mrscore --benchmark SLUG ...")

    def add_arguments(self, parser):
        parser.add_argument("--slug", required=True, help="e.g. mmlu")
        parser.add_argument("--name", default="", help="display name (default: the slug)")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--taxonomy", help="CSV: topic[, category, subcategory, hub_field]")
        source.add_argument("--topics-from", help="a question file (.csv/.jsonl/.parquet) or folder; one topic per "
                            "distinct topic/field/subject/category value or file-name subject, all in one category")
        parser.add_argument("--description", default="")
        parser.add_argument("--source-repo", default="", help="hub dataset id, e.g. cais/mmlu")

    def handle(self, *args, **o):
        try:
            result = benchmark_create(slug=o["slug"], name=o["name"], taxonomy_path=o["taxonomy"],
                                      topics_from=o["topics_from"], description=o["description"],
                                      source_repo=o["source_repo"])
        except BenchmarkImportError as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(result.message)
