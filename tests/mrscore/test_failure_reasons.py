"""A judge's error that quotes a sealed question in any form (other case, other spacing, an excerpt, its
options) leaves nothing of it in the job's failure reason: a job that judges the sealed split keeps the
exception's type only. Jobs on open splits keep their messages."""
import pytest

from evaluator.judges.base import JudgeError
from leaderboard.benchmarks.models import Question
from leaderboard.mrscore import services
from leaderboard.mrscore.models import JobStatus, MRScoreJob

pytestmark = pytest.mark.django_db


class LeakyJudge:
    """Wraps a real judge; fails on the first sealed question, quoting it the way `quote` says."""

    def __init__(self, real, sealed_texts, quote):
        self.real, self.sealed, self.quote = real, sealed_texts, quote

    def describe(self):
        return self.real.describe()

    def judge(self, questions):
        for question in questions:
            if question in self.sealed:
                raise JudgeError(f"the upstream model refused the prompt: {self.quote(question)!r}")
        return self.real.judge(questions)


def sealed_questions(job):
    return {q.text: q for q in Question.objects.filter(version=job.benchmark_version, split="test")}


@pytest.mark.parametrize("quote", [
    str.upper,
    lambda text: "  ".join(text.lower().split()),
    lambda text: text[5:-3],
    lambda text: "\n".join(text.split(" ")),
], ids=["upper-case", "respaced", "excerpt", "newlines"])
def test_a_sealed_job_keeps_only_the_exception_type(demo_loaded, judge_server, monkeypatch, settings, quote):
    settings.RUN_MAX_ATTEMPTS = 1
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation", "test"],
                                 include_sealed=True)
    sealed = sealed_questions(job)
    real_build = services.job_build_judge
    monkeypatch.setattr(services, "job_build_judge",
                        lambda job: LeakyJudge(real_build(job=job), sealed, quote))
    from leaderboard.mrscore.tasks import judge_job

    assert judge_job.run(job.pk)["status"] == "failed"
    job = MRScoreJob.objects.get(pk=job.pk)
    assert job.status == JobStatus.FAILED
    assert "JudgeError" in job.failure_reason and "withheld" in job.failure_reason
    reason = job.failure_reason.lower()
    assert "refused the prompt" not in reason
    for text, question in sealed.items():
        words = [w for w in text.lower().split() if len(w) > 6]
        assert text.lower() not in reason and not any(w in reason for w in words), text
        assert not any(option.lower() in reason for option in question.options if len(option) > 6)


def test_safe_reason_of_a_sealed_job(demo_loaded, judge_server):
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["test"], include_sealed=True)
    question = Question.objects.filter(version=job.benchmark_version, split="test").first()
    for message in (question.text.upper(), f"options: {question.options}", question.text[: len(question.text) // 2]):
        reason = services.safe_reason(job=job, exc=ValueError(message))
        assert reason == "ValueError (details withheld: this job judges the sealed test split)"


def test_an_open_job_keeps_its_message(demo_loaded, judge_server):
    spec = services.judge_spec_from_options(model="judge-x", endpoint=judge_server.endpoint)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"])
    reason = services.safe_reason(job=job, exc=JudgeError("HTTP 401 from the judge endpoint: check the API key"))
    assert reason == "JudgeError: HTTP 401 from the judge endpoint: check the API key"
