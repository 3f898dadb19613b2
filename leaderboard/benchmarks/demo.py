"""The invented demo question bank shipped in the repo, in the hub layout plus answer keys, and where the demo
models live (leaderboard/demo/ builds and registers them)."""
from pathlib import Path

from django.conf import settings

from .models import SEALED_SPLITS, Split
from .services import benchmark_import

DEMO_DIR = Path(__file__).resolve().parent / "demo_data" / "mobile-mmlu"
DEMO_BENCHMARK = "mobile-mmlu"


def demo_import(*, progress=None):
    """Import dev, validation and the sealed test split through the real importer (idempotent)."""
    results = []
    for split in (Split.DEV, Split.VALIDATION, Split.TEST):
        kwargs = {"progress": progress} if progress else {}
        results.append(benchmark_import(
            benchmark_slug=DEMO_BENCHMARK, split=split, path=DEMO_DIR / split,
            answers_path=DEMO_DIR / "answers" / f"{split}.csv", sealed=split in SEALED_SPLITS, **kwargs,
        ))
    return results


DEMO_MODELS = ("tiny-random", "tiny-val-memorizer")


def demo_models_dir():
    """Where load_demo builds the demo models (leaderboard/demo/seed.py); evaluations loads them from here."""
    return Path(settings.VAR_DIR) / "demo"
