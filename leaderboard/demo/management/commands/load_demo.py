import time

from django.core.management.base import BaseCommand, CommandError

from leaderboard.benchmarks.demo import demo_import
from leaderboard.benchmarks.importers.errors import BenchmarkImportError
from leaderboard.core.progress import tqdm_progress
from leaderboard.demo.seed import demo_family_models_build, demo_models_build, demo_models_register


class Command(BaseCommand):
    help = ("Load the invented demo question bank (all 80 topics; dev, validation, sealed test) and build the "
            "demo models under var/demo/: tiny-random, tiny-val-memorizer (trained on the validation answers) and "
            "one untrained model of each other family (tiny-qwen2, tiny-gemma3, tiny-lfm2, tiny-mamba). Idempotent.")

    def add_arguments(self, parser):
        parser.add_argument("--skip-models", action="store_true", help="import the questions only")
        parser.add_argument("--rebuild-models", action="store_true", help="rebuild the demo models even if present")
        parser.add_argument("--untrained-only", action="store_true",
                            help="build only the models that need no training (seconds); tiny-val-memorizer later")

    def handle(self, *args, **options):
        try:
            results = demo_import(progress=tqdm_progress(enabled=options["verbosity"] > 0))
        except BenchmarkImportError as exc:
            raise CommandError(str(exc), returncode=2) from None
        for result in results:
            self.stdout.write(result.message)
        if options["skip_models"]:
            return
        try:
            import torch  # noqa: F401
        except ImportError:
            self.stderr.write("torch is not installed, so the demo models were not built: "
                              "pip install -r requirements-dev.txt (or requirements-gpu.txt).")
            return
        start = time.perf_counter()
        paths = demo_models_build(force=options["rebuild_models"], trained=not options["untrained_only"])
        paths.update(demo_family_models_build(force=options["rebuild_models"]))
        demo_models_register(paths)
        self.stdout.write(f"demo models ready in {time.perf_counter() - start:.0f} s: "
                          + ", ".join(str(p) for p in paths.values()))
