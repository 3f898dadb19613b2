"""The invented demo question bank shipped in the repo, in the publishers' layouts plus answer keys, and where the
demo models live (leaderboard/demo/ builds and registers them).

- Mobile-MMLU (`demo_data/mobile-mmlu/`): the hub layout, one CSV per field, dev, validation and the sealed test.
- Mobile-MMLU-Pro (`demo_data/mobile-mmlu-pro/`): as MBZUAI-LLM/Mobile-MMLU-Pro publishes it, one root file
  `mobile-mmlu-pro.csv` (question_id,Question,A,B,C,D,Field; Field = the full set's file stems) holding a subset of
  the full set, every question id in it with the same options in the same order: here 160 of the demo's 480
  validation questions (the 1st and 4th of each field file), imported as Pro's validation split with their answers.
- MMLU-Pro (`demo_data/mmlu-pro/data/`): invented general-knowledge questions in TIGER-Lab/MMLU-Pro's Parquet
  files and dtypes (question_id int64, question, options list<string> padded with "N/A", answer, answer_index
  int64, cot_content, category, src): the 14 worked exemplars of `validation-*` are our dev split, the 42 questions
  of `test-*` our open validation split, as docs/operations.md maps the real dataset. The demo's general board, for
  the mobile-vs-general view.
"""
from pathlib import Path

from django.conf import settings

from .creation_services import benchmark_create
from .models import SEALED_SPLITS, Split
from .services import benchmark_import

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"
DEMO_DIR = DEMO_DATA / "mobile-mmlu"
DEMO_BENCHMARK = "mobile-mmlu"
DEMO_PRO_DIR = DEMO_DATA / "mobile-mmlu-pro"
DEMO_PRO_BENCHMARK = "mobile-mmlu-pro"
DEMO_GENERAL_DIR = DEMO_DATA / "mmlu-pro" / "data"
DEMO_GENERAL_BENCHMARK = "mmlu-pro"


def demo_import(*, progress=None):
    """Import every demo split through the real importer (idempotent): Mobile-MMLU's dev, validation and sealed test,
    Mobile-MMLU-Pro's validation subset, then MMLU-Pro (created with its categories as topics) dev and validation."""
    kwargs = {"progress": progress} if progress else {}
    results = []
    for split in (Split.DEV, Split.VALIDATION, Split.TEST):
        results.append(benchmark_import(
            benchmark_slug=DEMO_BENCHMARK, split=split, path=DEMO_DIR / split,
            answers_path=DEMO_DIR / "answers" / f"{split}.csv", sealed=split in SEALED_SPLITS, **kwargs,
        ))
    results.append(benchmark_import(
        benchmark_slug=DEMO_PRO_BENCHMARK, split=Split.VALIDATION, path=DEMO_PRO_DIR / "mobile-mmlu-pro.csv",
        answers_path=DEMO_PRO_DIR / "answers" / "validation.csv", sealed=False, **kwargs))
    test_file = DEMO_GENERAL_DIR / "test-00000-of-00001.parquet"
    benchmark_create(slug=DEMO_GENERAL_BENCHMARK, name="MMLU-Pro", source_repo="TIGER-Lab/MMLU-Pro",
                     description="Invented demo questions in MMLU-Pro's layout (arXiv 2406.01574).",
                     topics_from=test_file)
    exemplars = DEMO_GENERAL_DIR / "validation-00000-of-00001.parquet"
    for split, path in ((Split.DEV, exemplars), (Split.VALIDATION, test_file)):
        results.append(benchmark_import(benchmark_slug=DEMO_GENERAL_BENCHMARK, split=split, path=path, sealed=False,
                                        **kwargs))
    return results


DEMO_MODELS = ("tiny-random", "tiny-val-memorizer")
# The demo's models of other families (evaluator/demo_families.py), so the board ranks several: name -> family.
DEMO_FAMILY_MODELS = {"tiny-qwen2": "qwen2", "tiny-gemma3": "gemma3", "tiny-lfm2": "lfm2", "tiny-mamba": "mamba"}


def demo_models_dir():
    """Where load_demo builds the demo models (leaderboard/demo/seed.py); evaluations loads them from here."""
    return Path(settings.VAR_DIR) / "demo"
