"""The invented demo question bank shipped in the repo, in the hub layout plus answer keys."""
from pathlib import Path

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
    from django.conf import settings

    return Path(settings.VAR_DIR) / "demo"


def demo_models_register(paths: dict[str, Path]):
    """Board entries `demo/<name>` for the built demo models (evaluate --model demo/<name> loads them locally)."""
    import json

    from leaderboard.submissions.models import ModelEntry

    for name, path in paths.items():
        meta = json.loads((path / "demo_model.json").read_text())
        facts = {"namespace": "demo", "params": meta.get("params"), "model_type": "pretrained", "license": "mit",
                 "architecture": "LlamaForCausalLM"}
        # Hub ids are unique case-insensitively: an entry stored as DEMO/<name> is this one, spelling kept.
        ModelEntry.objects.update_or_create(hub_id__iexact=f"demo/{name}", defaults=facts,
                                            create_defaults={**facts, "hub_id": f"demo/{name}"})


def demo_models_build(*, out_dir: Path | None = None, force: bool = False) -> dict[str, Path]:
    """Build the two demo models as ordinary transformers folders (skipped when already built).

    The tokenizer is trained on the public dev and validation text only, so
    nothing derived from the sealed split leaves the database. tiny-val-memorizer
    learns the validation answers: well above chance there, near chance on test.
    """
    from evaluator.demo_models import build_demo_tokenizer, build_tiny_random, build_val_memorizer
    from leaderboard.evaluations.selectors import engine_questions

    from . import selectors

    out_dir = Path(out_dir or demo_models_dir())
    paths = {name: out_dir / name for name in DEMO_MODELS}
    if not force and all((path / "config.json").exists() for path in paths.values()):
        return paths
    version = selectors.version_current(benchmark=selectors.benchmark_get(slug=DEMO_BENCHMARK))
    dev = engine_questions(version=version, split=Split.DEV)
    validation = engine_questions(version=version, split=Split.VALIDATION)
    texts = [q.question for q in dev + validation] + [o for q in dev + validation for o in q.options]
    tokenizer_dir = build_demo_tokenizer(texts, out_dir / "tokenizer")
    build_tiny_random(paths["tiny-random"], tokenizer_dir, seed=0)
    build_val_memorizer(paths["tiny-val-memorizer"], tokenizer_dir, validation, seed=0)
    return paths
