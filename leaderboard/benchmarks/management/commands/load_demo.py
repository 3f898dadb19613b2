from django.core.management.base import BaseCommand, CommandError

from leaderboard.benchmarks.demo import demo_import
from leaderboard.benchmarks.importers.errors import BenchmarkImportError
from leaderboard.core.progress import tqdm_progress


class Command(BaseCommand):
    help = "Load the invented demo question bank (all 80 topics; dev, validation, sealed test). Idempotent."

    def handle(self, *args, **options):
        try:
            results = demo_import(progress=tqdm_progress(enabled=options["verbosity"] > 0))
        except BenchmarkImportError as exc:
            raise CommandError(str(exc), returncode=2) from None
        for result in results:
            self.stdout.write(result.message)
