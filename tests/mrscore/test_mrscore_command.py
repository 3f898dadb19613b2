"""`manage.py mrscore`: the local judge end to end, the HTTP judge, resuming, provenance, refusals."""
import json
from collections import Counter

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from leaderboard.benchmarks.models import Question
from leaderboard.mrscore import services
from leaderboard.mrscore.models import JobStatus, MRScoreChunk, MRScoreJob, QuestionMRScore, TopicMRScore
from tests.support.refusals import refusal_of

pytestmark = pytest.mark.django_db


def run(*args):
    from io import StringIO

    out, err = StringIO(), StringIO()
    call_command("mrscore", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_works(demo_loaded, tiny_model_dir):
    out, _ = run("--benchmark", "mobile-mmlu", "--judge", str(tiny_model_dir), "--splits", "validation,test",
                 "--chunk-size", "128", "--batch-size", "64", "--json")
    data = json.loads(out)
    job = MRScoreJob.objects.get()
    assert job.status == JobStatus.SUCCEEDED and job.splits == ["validation", "test"]
    n = Question.objects.filter(version=job.benchmark_version, split__in=job.splits).count()
    assert QuestionMRScore.objects.filter(job=job).count() == n  # every judged question is stored
    # The summary is of the open split only: the sealed split's scores feed no published figure.
    n = Question.objects.filter(version=job.benchmark_version, split="validation").count()
    assert data["summary"]["n"] == n and set(data["summary"]["by_split"]) == {"validation"}
    assert TopicMRScore.objects.filter(job=job).count() == 80
    assert data["summary"]["n_unparsable"] == 0 and data["summary"]["methods"] == {"logprobs": n}
    assert 1 <= data["summary"]["mean"] <= 10
    assert sum(b["n"] for b in data["summary"]["bins"].values()) == n
    # Provenance: judge, revision (a fingerprint of the local folder), endpoint kind, prompt hash, date.
    p = data["provenance"]
    assert p["judge_model"] == str(tiny_model_dir) and p["judge_revision"].startswith("local-sha256:")
    assert p["endpoint_kind"] == "local-transformers" and len(p["prompt_hash"]) == 64
    assert p["judged_at"] and p["scoring"] == "logprobs"
    assert job.judge_details["prompt_hash"] == job.prompt_hash
    # A demo judge on the demo bank: the paper comparison is withheld, with the reason.
    assert data["summary"]["comparison"]["shown"] is False
    assert "demo" in data["summary"]["comparison"]["reason"]
    topic = TopicMRScore.objects.filter(job=job).first()
    assert topic.ci_low <= topic.mean <= topic.ci_high

    out, err = run("--benchmark", "mobile-mmlu", "--judge", str(tiny_model_dir), "--splits", "validation,test",
                   "--chunk-size", "128")
    assert "already scored" in err and MRScoreJob.objects.count() == 1
    assert "benchmark MRScore" in out and "local-transformers" in out


def test_it_handles_the_http_judge(demo_loaded, judge_server):
    judge_server.reply = lambda q: "8" if len(q) % 3 else "I'd rather not say."
    out, _ = run("--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--revision", "rev1", "--splits", "validation", "--json")
    data = json.loads(out)
    job = MRScoreJob.objects.get()
    unparsable = QuestionMRScore.objects.filter(job=job, method="unparsable")
    assert data["summary"]["n_unparsable"] == unparsable.count() > 0
    assert data["summary"]["unparsable_rate"] == pytest.approx(unparsable.count() / data["summary"]["n"])
    assert set(unparsable.values_list("raw_reply", flat=True)) == {"I'd rather not say."}
    assert unparsable.filter(score__isnull=False).count() == 0
    assert data["provenance"]["endpoint_kind"] == "openai-compatible-http"
    assert data["provenance"]["judge_revision"] == "rev1" and data["provenance"]["scoring"] == "parsed"
    assert services.job_queue_name(job=job) == "default"


def test_it_resumes_without_rejudging(demo_loaded, judge_server):
    state = {"fail": True, "served": 0}

    def status(question):
        if state["fail"] and state["served"] >= 100:
            return 400  # not retryable: the run stops mid-way
        state["served"] += 1
        return None

    judge_server.status_for = status
    args = ("--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
            "--splits", "validation", "--chunk-size", "32", "--concurrency", "1")
    with pytest.raises(CommandError, match="Run the same command again to resume"):
        run(*args)
    job = MRScoreJob.objects.get()
    assert job.status == JobStatus.FAILED and "HTTP 400" in job.failure_reason
    done_chunks = MRScoreChunk.objects.filter(job=job).count()
    assert done_chunks == 3  # 100 good replies = 3 whole chunks of 32
    first_questions = judge_server.questions()[:96]

    state["fail"] = False
    judge_server.requests.clear()
    _, err = run(*args, "--concurrency", "4")  # a speed knob may differ on resume
    assert "resuming job" in err
    job.refresh_from_db()
    n = Question.objects.filter(version=job.benchmark_version, split="validation").count()
    assert job.status == JobStatus.SUCCEEDED and MRScoreJob.objects.count() == 1
    rejudged = judge_server.questions()
    assert len(rejudged) == n - 96  # only the questions of the missing chunks
    texts = Question.objects.filter(version=job.benchmark_version, split="validation").values_list("text", flat=True)
    assert Counter(first_questions) + Counter(rejudged) == Counter(texts)  # each judged exactly once
    assert QuestionMRScore.objects.filter(job=job).count() == n


def test_it_handles_an_interrupted_chunk_write(demo_loaded, judge_server):
    """A chunk written twice (worker killed after the write, before its ack) stays written once."""
    spec = services.judge_spec_from_options(model="m", endpoint=judge_server.endpoint)
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, splits=["validation"], chunk_size=50)
    assert services.job_claim(job=job) and not services.job_claim(job=job)  # conditional update: one winner
    store = services._store_chunk(job)
    store(0, [{"uid": "x", "score": 7.0, "method": "parsed", "raw": "7"}])
    store(0, [{"uid": "x", "score": 1.0, "method": "parsed", "raw": "1"}])
    assert list(MRScoreChunk.objects.filter(job=job).values_list("rows", flat=True)) == [
        [{"uid": "x", "score": 7.0, "method": "parsed", "raw": "7"}]]


def test_it_handles_bad_arguments(demo_loaded, judge_server):
    def refused(code, *args) -> str:
        with pytest.raises(CommandError) as info:
            run(*args)
        assert refusal_of(info.value).code == code and info.value.returncode == 2
        return str(info.value)

    assert "'nope'" in refused("UNKNOWN_BENCHMARK", "--benchmark", "nope", "--judge", "m",
                               "--endpoint", judge_server.endpoint)
    assert "train" in refused("UNKNOWN_SPLIT", "--benchmark", "mobile-mmlu", "--judge", "m",
                              "--endpoint", judge_server.endpoint, "--splits", "train")
    assert "--include-sealed" in refused("SEALED_NEEDS_CONSENT", "--benchmark", "mobile-mmlu", "--judge", "m",
                                         "--endpoint", "https://api.example.com/v1", "--splits", "test")  # the fix
    assert MRScoreJob.objects.count() == 0


def test_it_keeps_sealed_questions_away_from_remote_endpoints(demo_loaded):
    spec = services.judge_spec_from_options(model="m", endpoint="https://api.example.com/v1")
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec)
    assert job.splits == ["dev", "validation"]
    job, _ = services.job_create(benchmark_slug="mobile-mmlu", spec=spec, include_sealed=True)
    assert job.splits == ["dev", "validation", "test"]
