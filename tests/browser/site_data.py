"""A small but complete site for the browser tests: scored runs through the real scoring path.

Six models of every size class, model type and a few precisions; one model with all nine
order variants and a sealed test run (so the model page has its heatmap and Δ); one model
whose validation score is far above its test score (a contamination flag); an MRScore job.
"""
import random
from dataclasses import dataclass

from leaderboard.benchmarks.models import OPTION_LETTERS, Benchmark
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.submissions.models import ModelEntry

VARIANTS = ("original", "fixed-A", "fixed-B", "fixed-C", "fixed-D", "R1", "R2", "R3", "R4")


@dataclass(frozen=True)
class SeedModel:
    hub_id: str
    params: int
    model_type: str
    precision: str
    correct: int  # of the 480 demo validation questions, `original` variant
    test_correct: int | None = None  # of the 480 sealed test questions
    all_variants: bool = False

    @property
    def size_class(self):
        billions = self.params / 1e9
        return "mini" if billions < 5 else "small" if billions < 13 else "medium" if billions < 50 else "large"


# Sizes, names and scores are in different orders: sorting by any of them changes the rows.
MODELS = (
    SeedModel("demo-org/phone-mini-1b", 1_100_000_000, "instruct", "bfloat16", 300, test_correct=290,
              all_variants=True),
    SeedModel("demo-org/pocket-2b", 2_600_000_000, "pretrained", "bfloat16", 250),
    SeedModel("acme/edge-4b", 4_200_000_000, "instruct", "int8", 330),
    SeedModel("acme/small-8b", 8_000_000_000, "instruct", "bfloat16", 380, test_correct=250),  # Δ ≈ -27 points
    SeedModel("bigco/medium-30b", 30_000_000_000, "pretrained", "float16", 360),
    SeedModel("bigco/large-70b", 70_000_000_000, "reasoning", "bfloat16", 430),
)
MODEL_WITH_EVERYTHING = MODELS[0].hub_id


def _wrong(options, key):
    return next(letter for letter in OPTION_LETTERS[:len(options)] if letter not in key)


def scored_run(version, model: SeedModel, *, split="validation", correct=None, variants=("original",)):
    """An EvaluationRun with one prediction chunk, scored by run_score (aggregates, Δ points) like a worker's."""
    key = run_selectors.answer_key(version=version, split=split)
    questions = list(version.questions.filter(split=split).order_by("position")
                     .values_list("uid", "options", "topic__hub_field"))
    rows = []
    for v_index, variant in enumerate(variants):
        k = correct - 6 * v_index if variant != "original" else correct  # order bias: shuffles score lower
        right = set(random.Random(f"{model.hub_id}/{split}/{variant}").sample(range(len(questions)), k))
        for i, (uid, options, topic) in enumerate(questions):
            letter = sorted(key[uid])[0] if i in right else _wrong(options, key[uid])
            rows.append({"question_id": uid, "variant": variant, "topic": topic, "predicted_original": letter,
                         "predicted": letter, "letter_mass": 0.9})
    run = EvaluationRun.objects.create(
        benchmark_version=version, split=split, model_ref=model.hub_id, model_revision="a" * 40,
        precision=model.precision, variants=list(variants), status=RunStatus.SCORING, template_hash="f" * 64,
        seed=1234, dataset_hash=version.split_hashes[split], library_versions={"python": "3.11", "torch": "2.13.0"},
        hardware={"gpu": "H100"}, efficiency={"prefill_tokens_per_s": 1000.0, "load_seconds": 3.2},
        progress_done=len(rows), progress_total=len(rows))
    PredictionChunk.objects.create(run=run, index=0, rows=rows)
    return scoring.run_score(run=run)


def mrscore_job(version):
    """A finished MRScore job of a (demo) judge over the open splits: scores spread over 1..10."""
    from leaderboard.mrscore import services
    from leaderboard.mrscore.models import MRScoreChunk

    spec = services.JudgeSpec(kind="http", model="demo/judge", revision="r1", endpoint="http://127.0.0.1:9/v1",
                              is_demo=True)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["dev", "validation"])
    services.job_claim(job=job)
    uids = list(version.questions.filter(split__in=job.splits).order_by("position").values_list("uid", flat=True))
    rows = [{"uid": uid, "score": float(1 + (i * 7) % 10), "method": "parsed", "raw": str(1 + (i * 7) % 10)}
            for i, uid in enumerate(uids)]
    MRScoreChunk.objects.create(job=job, index=0, rows=rows)
    return services.job_finalize(job=job)


def site_seed():
    """Every model's validation run (+ test runs where given), a run on the demo's MMLU-Pro (the mobile-vs-general
    page) and an MRScore job. Needs the demo bank."""
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    general = Benchmark.objects.get(slug="mmlu-pro").versions.order_by("-number").first()
    n_general = general.questions.filter(split="validation").count()
    for index, model in enumerate(MODELS):
        ModelEntry.objects.update_or_create(hub_id=model.hub_id, defaults={
            "namespace": model.hub_id.split("/")[0], "params": model.params, "model_type": model.model_type})
        scored_run(version, model, correct=model.correct,
                   variants=VARIANTS if model.all_variants else ("original",))
        if model.test_correct is not None:
            scored_run(version, model, split="test", correct=model.test_correct)
        # General knowledge in another order than mobile knowledge: the page has rank changes to show.
        scored_run(general, model, correct=min(n_general, model.correct * n_general // 480 + 4 * (index % 3) - 4))
    mrscore_job(version)
    return version
