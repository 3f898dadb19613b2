"""The demo models: built locally as transformers folders and registered as board entries `demo/<name>`: the two
of the contamination story (tiny-random, tiny-val-memorizer) and one untrained model of each other family
(DEMO_FAMILY_MODELS), so the board ranks several.

Above the apps it seeds (docs/ARCHITECTURE.md §7): it reads questions through evaluations and writes model
entries of submissions. The demo question bank itself is leaderboard/benchmarks/demo.py.
"""
import json
from pathlib import Path

from evaluator.demo_families import build_family_model
from evaluator.demo_models import build_demo_spm_tokenizer, build_tiny_random, build_val_memorizer
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.demo import DEMO_BENCHMARK, DEMO_FAMILY_MODELS, DEMO_MODELS, demo_models_dir
from leaderboard.benchmarks.models import Split
from leaderboard.evaluations.selectors import engine_questions
from leaderboard.submissions.models import ModelEntry


def demo_models_register(paths: dict[str, Path]):
    """Board entries `demo/<name>` for the built demo models (evaluate --model demo/<name> loads them locally)."""
    for name, path in paths.items():
        meta = json.loads((path / "demo_model.json").read_text())
        architecture = json.loads((path / "config.json").read_text()).get("architectures", ["LlamaForCausalLM"])[0]
        facts = {"namespace": "demo", "params": meta.get("params"), "model_type": "pretrained", "license": "mit",
                 "architecture": architecture}
        # Hub ids are unique case-insensitively: an entry stored as DEMO/<name> is this one, spelling kept.
        ModelEntry.objects.update_or_create(hub_id__iexact=f"demo/{name}", defaults=facts,
                                            create_defaults={**facts, "hub_id": f"demo/{name}"})


def demo_models_build(*, out_dir: Path | None = None, force: bool = False, trained: bool = True) -> dict[str, Path]:
    """Build the two demo models as ordinary transformers folders (each skipped when already built); trained=False:
    tiny-random only, which needs no training (./dev.sh serve ranks the untrained models first, then trains).

    Their tokenizer is a Llama-style SentencePiece model (tokenizer.model), which llama.cpp's converter reads, so
    the demo models convert to GGUF files (python -m evaluator convert); folders built before, with a byte-level
    BPE tokenizer the converter refuses, are rebuilt. It is trained on the public dev and validation text only, so
    nothing derived from the sealed split leaves the database. tiny-val-memorizer
    learns the validation answers: well above chance there, near chance on test.
    """
    out_dir = Path(out_dir or demo_models_dir())
    paths = {name: out_dir / name for name in DEMO_MODELS if trained or name == "tiny-random"}
    missing = [name for name, path in paths.items()
               if force or not all((path / file).exists() for file in ("config.json", "tokenizer.model"))]
    if not missing:
        return paths
    version = bench_selectors.version_current(benchmark=bench_selectors.benchmark_get(slug=DEMO_BENCHMARK))
    dev = engine_questions(version=version, split=Split.DEV)
    validation = engine_questions(version=version, split=Split.VALIDATION)
    tokenizer_dir = out_dir / "tokenizer"
    if force or not (tokenizer_dir / "tokenizer.model").exists():
        texts = [q.question for q in dev + validation] + [o for q in dev + validation for o in q.options]
        build_demo_spm_tokenizer(texts, tokenizer_dir)
        missing = list(paths)  # a new tokenizer: every model is built again on it
    if "tiny-random" in missing:
        build_tiny_random(paths["tiny-random"], tokenizer_dir, seed=0)
    if "tiny-val-memorizer" in missing:
        build_val_memorizer(paths["tiny-val-memorizer"], tokenizer_dir, validation, seed=0)
    return paths


def demo_family_models_build(*, out_dir: Path | None = None, force: bool = False) -> dict[str, Path]:
    """Build the demo's models of other families (DEMO_FAMILY_MODELS) with the demo tokenizer, which
    demo_models_build made first; untrained, so seconds. Skipped when already built."""
    out_dir = Path(out_dir or demo_models_dir())
    paths = {name: out_dir / name for name in DEMO_FAMILY_MODELS}
    for seed, (name, family) in enumerate(DEMO_FAMILY_MODELS.items(), start=1):
        if force or not all((paths[name] / file).exists() for file in ("config.json", "tokenizer.model")):
            build_family_model(paths[name], out_dir / "tokenizer", family, seed=seed)
    return paths
