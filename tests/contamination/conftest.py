"""Scored runs built from constructed predictions and scored by the real trusted path (run_score)."""
import pytest

from leaderboard.benchmarks.models import OPTION_LETTERS, Benchmark
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.submissions.models import ModelEntry, Submission


def _wrong(options, key):
    return next(L for L in OPTION_LETTERS[:len(options)] if L not in key)


@pytest.fixture
def version(demo_loaded):
    return Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()


@pytest.fixture
def questions(version):
    """split -> [(uid, topic hub field, topic slug)] in position order."""
    return {split: list(version.questions.filter(split=split).order_by("position")
                        .values_list("uid", "topic__hub_field", "topic__slug"))
            for split in ("validation", "test")}


@pytest.fixture
def make_run(version):
    """make_run(hub_id, split, correct) — `correct`: the first k questions, or a predicate on (index, uid, topic);
    `submitter`: the account whose submission the run belongs to (none: an operator's run)."""

    def make(hub_id, split, correct, *, revision="a" * 40, precision="bfloat16", probe_rows=(), submitter=None):
        entry = (ModelEntry.objects.filter(hub_id__iexact=hub_id).first()
                 or ModelEntry.objects.create(hub_id=hub_id, namespace=hub_id.split("/")[0].lower(),
                                              params=1_000_000_000))
        submission = submitter and Submission.objects.create(submitter=submitter, model=entry, revision_sha=revision,
                                                             precision=precision, benchmarks=["mobile-mmlu"])
        key = run_selectors.answer_key(version=version, split=split)
        rows = []
        qs = version.questions.filter(split=split).order_by("position").values_list(
            "uid", "options", "topic__hub_field", "topic__slug")
        for i, (uid, options, topic, slug) in enumerate(qs):
            ok = i < correct if isinstance(correct, int) else correct(i, uid, slug)
            letter = sorted(key[uid])[0] if ok else _wrong(options, key[uid])
            rows.append({"question_id": uid, "variant": "original", "topic": topic, "predicted_original": letter,
                         "predicted": letter})
        run = EvaluationRun.objects.create(
            benchmark_version=version, split=split, model_ref=hub_id, model_revision=revision, precision=precision,
            variants=["original"], status=RunStatus.SCORING, dataset_hash=version.split_hashes[split],
            probe=bool(probe_rows), probe_rows=list(probe_rows), submission=submission or None)
        PredictionChunk.objects.create(run=run, index=0, rows=rows)
        return scoring.run_score(run=run)

    return make
