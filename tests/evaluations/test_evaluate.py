"""`manage.py evaluate`: a stored, reproducible run; sealed answers scored on the trusted side only."""
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from evaluator.backends import create_backend
from leaderboard.benchmarks.models import BenchmarkVersion, Question
from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.evaluations import lifecycle, selectors, services
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, FailureCode, PredictionChunk, RunStatus
from tests.support.refusals import refusal_of
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def evaluate(model_dir, capsys, *args):
    call_command("evaluate", "--model", str(model_dir), "--no-efficiency", "--batch-size", "16", *args, verbosity=0)
    return json.loads(capsys.readouterr().out)


def expected_accuracy_of_always_c(split):
    """The biased model always answers C; so accuracy = share of questions whose answer set holds C."""
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    key = selectors.answer_key(version=version, split=split)
    return 100 * sum("C" in letters for letters in key.values()) / len(key)


def test_it_works(demo_loaded, biased_model_dir, capsys):
    out = evaluate(biased_model_dir, capsys, "--split", "validation")
    run = EvaluationRun.objects.get(pk=out["run"])
    assert run.status == RunStatus.SUCCEEDED and run.attempts == 1
    assert out["n"] == 480 and out["accuracy"] == round(expected_accuracy_of_always_c("validation"), 1)
    assert run.progress_done == run.progress_total == 480
    assert PredictionChunk.objects.filter(run=run).count() == 2  # 480 rows in chunks of 256
    rows = selectors.run_rows(run=run)
    key = selectors.answer_key(version=run.benchmark_version, split="validation")
    assert {r["predicted"] for r in rows} == {"C"}
    assert all(r["correct"] == ("C" in key[r["question_id"]]) for r in rows)
    # Reproducibility card.
    assert len(run.template_hash) == 64 and run.dataset_hash == run.benchmark_version.split_hashes["validation"]
    assert run.library_versions["torch"] and run.hardware["backend"]["backend"] == "transformers"


def test_it_scores_the_sealed_split_without_giving_the_model_the_answers(demo_loaded, biased_model_dir, capsys):
    out = evaluate(biased_model_dir, capsys, "--split", "test", "--variants", "original,R1")
    run = EvaluationRun.objects.get(pk=out["run"])
    # Printed as published: 128 of 480 (26.67%) on the 2-point grid of a 480-question split.
    assert out["accuracy"] == publish(round(expected_accuracy_of_always_c("test") * 480 / 100), 480).percent == 26.0
    # What the predicting side produced holds no answers and no outcomes.
    for chunk in PredictionChunk.objects.filter(run=run):
        for row in chunk.rows:
            assert "correct" not in row and "answer" not in row
    # The command's output is rounded aggregates, no question text, no per-topic figures.
    printed = json.dumps(out)
    assert "per_topic" not in printed
    assert_no_sealed_content(printed)


def test_it_refuses_answer_dependent_variants_on_the_sealed_split(demo_loaded, biased_model_dir, snapshot):
    before = snapshot()
    with pytest.raises(CommandError) as info:
        call_command("evaluate", "--model", str(biased_model_dir), "--split", "test", "--variants", "fixed-A",
                     verbosity=0)
    assert refusal_of(info.value).code == "SEALED_VARIANTS" and info.value.returncode == 2
    assert snapshot() == before


def test_it_handles_a_model_that_cannot_load(demo_loaded, tmp_path):
    (tmp_path / "no-model").mkdir()  # a folder with no model in it (a path to nothing is refused before any run)
    with pytest.raises(CommandError) as info:
        call_command("evaluate", "--model", str(tmp_path / "no-model"), "--no-efficiency", verbosity=0)
    run = EvaluationRun.objects.get()
    assert info.value.returncode == 1 and f"run {run.pk}" in str(info.value)
    assert run.status == RunStatus.FAILED and run.failure_code == FailureCode.MODEL_LOAD_ERROR and run.failure_reason


def test_it_handles_a_benchmark_without_questions(db):
    with pytest.raises(CommandError) as info:  # a refusal of the command itself: it has no code
        call_command("evaluate", "--model", "x", "--benchmark", "mobile-mmlu-pro", verbosity=0)
    assert info.value.returncode == 2 and "'mobile-mmlu-pro'" in str(info.value)
    assert not EvaluationRun.objects.exists()


class CrashAfter:
    """Wraps a backend and dies after n calls, as a killed GPU worker would."""

    def __init__(self, backend, n):
        self.backend, self.left = backend, n

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def letter_logprobs(self, prompts, **kw):
        if self.left == 0:
            raise RuntimeError("worker lost")
        self.left -= 1
        return self.backend.letter_logprobs(prompts, **kw)


def test_a_resumed_run_equals_an_uninterrupted_one(demo_loaded, tiny_model_dir):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    backend = create_backend("transformers", str(tiny_model_dir), batch_size=16)

    def new_run():
        run = services.run_create(version=version, split="validation", model_ref=str(tiny_model_dir),
                                  variants=["original", "R2"], chunk_size=100)
        services.run_claim(run=run)
        return run

    straight = new_run()
    services.run_predict(run=straight, backend=backend, measure=False)
    scoring.run_score(run=straight)

    crashed = new_run()
    with pytest.raises(RuntimeError, match="worker lost"):
        services.run_predict(run=crashed, backend=CrashAfter(backend, 4), measure=False)
    assert 0 < PredictionChunk.objects.filter(run=crashed).count() < 10
    with override_settings(RUN_CHUNK_SIZE=64):  # a worker configured otherwise resumes the stored plan
        services.run_predict(run=crashed, backend=backend, measure=False)
    scoring.run_score(run=crashed)
    assert crashed.chunk_size == 100 and crashed.progress_total == 960
    assert sorted(PredictionChunk.objects.filter(run=crashed).values_list("index", flat=True)) == list(range(10))

    assert selectors.run_rows(run=crashed) == selectors.run_rows(run=straight)
    assert crashed.summary == straight.summary


def test_only_one_claim_wins(demo_loaded):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref="m")
    assert services.run_claim(run=run) is True
    assert services.run_claim(run=run) is False
    assert run.attempts == 1 and Question.objects.exists()


def test_it_reuses_an_earlier_identical_run_when_asked(demo_loaded, biased_model_dir, capsys):
    first = evaluate(biased_model_dir, capsys, "--split", "validation")
    again = evaluate(biased_model_dir, capsys, "--split", "validation", "--skip-if-done")
    assert again == first and EvaluationRun.objects.count() == 1
    other = evaluate(biased_model_dir, capsys, "--split", "validation", "--skip-if-done", "--seed", "1")
    assert other["run"] != first["run"]  # different settings: a new run


def test_a_chunk_of_another_plan_is_refused_not_merged(demo_loaded, tiny_model_dir):
    """A chunk written under another layout (say a worker with another chunk size) would shift or repeat
    answers: the run fails PLAN_MISMATCH instead of publishing a mixed result."""
    from leaderboard.evaluations import runner

    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref=str(tiny_model_dir), chunk_size=100)
    assert len(run.plan_fingerprint) == 64 and run.progress_total == 480
    PredictionChunk.objects.create(run=run, index=0, fingerprint="f" * 64, rows=[{"question_id": "x"}] * 48)
    claimed = lifecycle.run_claim_for_worker(run_id=run.pk)
    outcome = runner.predict_claimed(run_id=run.pk, attempt=claimed.attempts)
    assert outcome.code == FailureCode.PLAN_MISMATCH
    assert runner.record(run_id=run.pk, attempt=claimed.attempts, outcome=outcome)["status"] == RunStatus.FAILED
    run.refresh_from_db()
    assert run.attempts == 1 and run.failure_code == FailureCode.PLAN_MISMATCH
    assert PredictionChunk.objects.filter(run=run).count() == 1


class AlwaysA:
    """A backend that prefers A everywhere: no model to load."""

    name, load_seconds = "always-a", 0.0

    def letter_logprobs(self, prompts, *, use_chat_template=False):
        return [{L: (-0.1 if L == "A" else -5.0) for L in "ABCDEFGHIJ"} for _ in prompts]

    def describe(self):
        return {"backend": self.name}


def test_predicting_plans_once_and_summarises_nothing(demo_loaded, monkeypatch):
    """The GPU side makes the run's plan once (the engine does not make it again) and leaves the summary to
    the trusted scoring step, which gives the same figures."""
    import evaluator.engine

    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref="org/always-a", chunk_size=100)
    services.run_claim(run=run)
    plans, summaries = [], []
    real_plan, real_summarize = services.plan_evaluation, evaluator.engine.summarize
    monkeypatch.setattr(services, "plan_evaluation", lambda *a, **k: plans.append(1) or real_plan(*a, **k))
    monkeypatch.setattr(evaluator.engine, "plan_evaluation", lambda *a, **k: pytest.fail("planned again"))
    monkeypatch.setattr(evaluator.engine, "summarize", lambda *a: summaries.append(1) or real_summarize(*a))
    seen = []
    result = services.run_predict(run=run, backend=AlwaysA(), measure=False, progress=lambda d, t: seen.append(t))
    assert plans == [1] and summaries == [] and set(seen) == {run.progress_total} == {480}
    scoring.run_score(run=run)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and summaries == []
    assert run.summary["overall"] == result.summary["overall"]  # read here: the same figures
