import sys

from django.core.management.base import BaseCommand, CommandError

from leaderboard.benchmarks.importers.errors import BenchmarkImportError
from leaderboard.benchmarks.models import Split
from leaderboard.benchmarks.services import benchmark_import
from leaderboard.core.progress import tqdm_progress


class Command(BaseCommand):
    help = (
        "Import one split of a benchmark from a folder (Mobile-MMLU's one CSV per field, MMLU-CF's "
        "<Subject>_val files, MMLU-Pro's Parquet), a .csv/.jsonl/.parquet file, or the Hugging Face hub at a "
        "pinned revision. All or nothing; identical content is a no-op."
    )

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True, help="benchmark slug, e.g. mobile-mmlu")
        parser.add_argument("--split", required=True, choices=Split.values)
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--path", help="a folder (hub layout, MMLU-CF val/ or dev/), or a .csv/.jsonl/.parquet "
                            "file")
        source.add_argument("--hub", metavar="REPO", help="hub dataset repo id, e.g. MBZUAI-LLM/Mobile-MMLU")
        parser.add_argument("--revision", default="", help="hub branch, tag or commit sha (with --hub); pinned as a sha")
        parser.add_argument("--files", metavar="GLOB",
                            help="which files of the folder or hub dataset to read, relative to its root, e.g. "
                                 "'data/test-*.parquet' (MMLU-Pro); default: <split>/, val/ for validation, test/, "
                                 "data/ or the root")
        parser.add_argument("--answers", metavar="FILE", help="answer key CSV with columns question_id,answer")
        parser.add_argument("--sealed", action="store_true",
                            help="required for the test split: its answers are encrypted and never served")

    def handle(self, *args, **options):
        try:
            result = benchmark_import(
                benchmark_slug=options["benchmark"], split=options["split"], path=options["path"],
                hub_repo=options["hub"], revision=options["revision"], answers_path=options["answers"],
                sealed=options["sealed"], files=options["files"], progress=tqdm_progress(enabled=options["verbosity"] > 0),
            )
        except BenchmarkImportError as exc:
            raise CommandError(str(exc), returncode=2) from None
        style = self.style.SUCCESS if result.outcome != "unchanged" else self.style.WARNING
        self.stdout.write(style(result.message))
        if result.outcome != "unchanged":
            self.stdout.write(f"content hash {result.content_hash}")
        sys.stdout.flush()
