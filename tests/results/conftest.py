"""Scored runs built straight from EvaluationRun + PredictionChunk rows, then run_score."""
import pytest

from leaderboard.benchmarks.models import OPTION_LETTERS
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.submissions.models import ModelEntry


def _wrong(options, key):
    return next(L for L in OPTION_LETTERS[:len(options)] if L not in key)


@pytest.fixture
def make_run(demo_loaded):
    from leaderboard.benchmarks.models import Benchmark

    def make(hub_id, correct, *, split="validation", variants=("original",), revision="a" * 40,
             precision="bfloat16", params=2_000_000_000, model_type="instruct", extra_correct=None,
             benchmark="mobile-mmlu"):
        version = Benchmark.objects.get(slug=benchmark).versions.order_by("-number").first()
        ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={
            "namespace": hub_id.split("/")[0], "params": params, "model_type": model_type})
        key = run_selectors.answer_key(version=version, split=split)
        questions = list(version.questions.filter(split=split).order_by("position")
                         .values_list("uid", "options", "topic__hub_field"))
        rows = []
        for variant in variants:
            k = correct if variant == variants[0] else (extra_correct or {}).get(variant, correct)
            for i, (uid, options, topic) in enumerate(questions):
                letter = sorted(key[uid])[0] if i < k else _wrong(options, key[uid])
                rows.append({"question_id": uid, "variant": variant, "topic": topic, "predicted_original": letter,
                             "predicted": letter, "letter_mass": 0.9})
        run = EvaluationRun.objects.create(
            benchmark_version=version, split=split, model_ref=hub_id, model_revision=revision, precision=precision,
            variants=list(variants), status=RunStatus.SCORING, template_hash="f" * 64, seed=1234,
            dataset_hash=version.split_hashes[split], library_versions={"python": "3.12", "torch": "2.5.0"},
            hardware={"gpu": "H100"}, efficiency={"prefill_tokens_per_s": 1000.0})
        PredictionChunk.objects.create(run=run, index=0, rows=rows)
        return scoring.run_score(run=run)

    return make
