"""MRScore jobs: one judge scoring the questions of a benchmark version, with provenance.

A job pins the benchmark version, the judge (kind, model, revision, endpoint,
settings) and the prompt (version + sha256). Verdicts are written in chunks, each
once (unique (job, chunk)), so an interrupted job resumes without re-judging.
When every chunk is in, the job is finalised in one transaction: per-question
rows (QuestionMRScore) and per-topic aggregates (TopicMRScore) that the API
reads, and the benchmark-level summary; the aggregates and the summary are of the
open splits only (aggregates.py).
"""
from django.db import models

from leaderboard.benchmarks.models import BenchmarkVersion, Question, Split, Topic
from leaderboard.core.leases import LeasedJob, job_statuses

JobStatus = job_statuses("JobStatus", __name__)



class JudgeKind(models.TextChoices):
    LOCAL = "local", "local model (evaluator backend)"
    HTTP = "http", "OpenAI-compatible HTTP endpoint"


class ScoreMethod(models.TextChoices):
    LOGPROBS = "logprobs", "expected score from log-probabilities"
    PARSED = "parsed", "integer parsed from the reply"
    UNPARSABLE = "unparsable", "reply was not a score in 1..10"


class MRScoreJob(LeasedJob):
    benchmark_version = models.ForeignKey(BenchmarkVersion, on_delete=models.PROTECT, related_name="mrscore_jobs")
    splits = models.JSONField(default=list, help_text="splits judged, in order")

    judge_kind = models.CharField(max_length=10, choices=JudgeKind.choices)
    judge_model = models.CharField(max_length=300, help_text="hub id, local folder, or the served model name")
    judge_revision = models.CharField(max_length=100, blank=True)
    judge_endpoint = models.CharField(max_length=300, blank=True,
                                      help_text="http: base URL (never a key); local: the backend name")
    judge_settings = models.JSONField(default=dict, blank=True, help_text="arguments the judge is built with")
    judge_details = models.JSONField(default=dict, blank=True, help_text="the judge's describe() after judging")
    judge_is_demo = models.BooleanField(default=False, help_text="a demo/test model: no comparison with the paper")
    prompt_version = models.CharField(max_length=50)
    prompt_hash = models.CharField(max_length=64)
    chunk_size = models.PositiveIntegerField(default=64)
    plan_hash = models.CharField(max_length=64, blank=True, help_text="sha256 of the judged uids and chunking")

    status = models.CharField(max_length=12, choices=JobStatus.choices, default=JobStatus.QUEUED)
    failure_reason = models.TextField(blank=True)
    summary = models.JSONField(default=dict, blank=True)

    class Meta(LeasedJob.Meta):
        indexes = [models.Index(fields=["benchmark_version", "status"])]
        verbose_name = "MRScore job"

    def __str__(self):
        return f"MRScore job {self.pk}: {self.judge_model} on {self.benchmark_version}"

    @property
    def endpoint_kind(self) -> str:
        return "openai-compatible-http" if self.judge_kind == JudgeKind.HTTP else f"local-{self.judge_endpoint}"


class MRScoreChunk(models.Model):
    """One chunk of a job's verdicts, written once: [{uid, score, method, raw, mass?, probs?}]."""

    job = models.ForeignKey(MRScoreJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    rows = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="unique_mrscore_chunk_per_job")]


class QuestionMRScore(models.Model):
    """A finalised per-question verdict. Rows of the sealed split exist (the job judged them) but feed no
    published figure and are never served: aggregates leave them out, selectors refuse them."""

    job = models.ForeignKey(MRScoreJob, on_delete=models.CASCADE, related_name="question_scores")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="mrscores")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    split = models.CharField(max_length=12, choices=Split.choices)
    score = models.FloatField(null=True, blank=True)
    method = models.CharField(max_length=12, choices=ScoreMethod.choices)
    raw_reply = models.CharField(max_length=500, blank=True)
    score_mass = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["job", "question"]
        constraints = [
            models.UniqueConstraint(fields=["job", "question"], name="unique_mrscore_per_job_question"),
            models.CheckConstraint(condition=models.Q(score__isnull=True) | models.Q(score__gte=1, score__lte=10),
                                   name="mrscore_in_range"),
        ]
        indexes = [models.Index(fields=["job", "split", "topic"])]


class TopicMRScore(models.Model):
    """Topic MRScore = mean over its judged open-split questions (paper Eq. 3), with a 95% t-interval. The sealed
    split's scores are left out: with the open ones public, they could be read back from the mean."""

    job = models.ForeignKey(MRScoreJob, on_delete=models.CASCADE, related_name="topic_scores")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="mrscores")
    n = models.PositiveIntegerField(help_text="open-split questions judged")
    n_scored = models.PositiveIntegerField()
    n_unparsable = models.PositiveIntegerField()
    mean = models.FloatField(null=True, blank=True)
    sd = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["job", "topic__order"]
        constraints = [models.UniqueConstraint(fields=["job", "topic"], name="unique_topic_mrscore_per_job")]
