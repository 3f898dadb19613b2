"""Evaluation runs and their per-question predictions.

A run pins the benchmark version (hence the dataset hash) it measured; a
re-run is a new row and the old one stays. Predictions are stored in chunks,
each written once (unique (run, chunk)), so a killed run resumes where it was.
"""
from django.db import models

from leaderboard.benchmarks.models import SEALED_SPLITS, BenchmarkVersion, Split
from leaderboard.core.leases import LeasedJob, job_statuses

# A leased job's states, and scoring: predicted, waiting for or being scored by the trusted worker.
RunStatus = job_statuses("RunStatus", __name__, "scoring")

TERMINAL_STATUSES = frozenset({RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED})


class FailureCode(models.TextChoices):
    MODEL_NOT_FOUND = "MODEL_NOT_FOUND"
    GATED = "GATED"
    UNSUPPORTED_ARCHITECTURE = "UNSUPPORTED_ARCHITECTURE"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    MODEL_LOAD_ERROR = "MODEL_LOAD_ERROR"
    EVALUATION_ERROR = "EVALUATION_ERROR"
    WORKER_LOST = "WORKER_LOST"
    TIMEOUT = "TIMEOUT"
    CANCELLED = "CANCELLED"
    SCORING_ERROR = "SCORING_ERROR"
    PLAN_MISMATCH = "PLAN_MISMATCH"
    INFRASTRUCTURE_ERROR = "INFRASTRUCTURE_ERROR"


UPLOAD_BACKEND = "upload"  # a run made from uploaded predictions: never paired with a sealed run


class EvaluationRun(LeasedJob):
    submission = models.ForeignKey("submissions.Submission", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="runs")
    rerun_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns")
    benchmark_version = models.ForeignKey(BenchmarkVersion, on_delete=models.PROTECT, related_name="runs")
    split = models.CharField(max_length=12, choices=Split.choices)
    model_ref = models.CharField(max_length=300, help_text="hub id or local path of the model")
    model_revision = models.CharField(max_length=100, blank=True, help_text="commit sha the run used")
    model_files = models.JSONField(
        default=list, blank=True,
        help_text="the files a GGUF run loads, pinned: [{file, size, sha256}] of each part, checked after download "
                  "(evaluations/gguf_fetch.py); empty for a checkpoint, which its commit sha pins")
    gguf_recipe = models.JSONField(
        default=dict, blank=True,
        help_text="a GGUF file this server makes from a 16-bit checkpoint (evaluations/gguf_make.py): {quant, "
                  "source} when queued; the worker adds how it was made (steps, llama.cpp commit, sha256, bytes) "
                  "and model_files; empty for a submitted file")
    precision = models.CharField(max_length=20, default="auto")
    backend = models.CharField(max_length=20, default="transformers")
    mode = models.CharField(max_length=20, default="logprobs")
    template = models.CharField(max_length=50, default="default")
    template_hash = models.CharField(max_length=64, blank=True)
    protocol = models.CharField(
        max_length=40, blank=True, default="",
        help_text="a publisher's own protocol (evaluator/protocols.py, e.g. mmlu-pro-cot) that fixes prompt, shots, "
                  "decoding and answer reading; template and template_hash then name it and its hash. '' = the "
                  "leaderboard's own settings. Part of every board's key: runs of two protocols are never ranked "
                  "together")
    use_chat_template = models.BooleanField(default=False)
    shots = models.PositiveSmallIntegerField(default=0)
    variants = models.JSONField(default=list)
    probe = models.BooleanField(default=False, help_text="also run the TS-Guessing memorization probe")
    probe_rows = models.JSONField(default=list, blank=True,
                                  help_text="[{question_id, masked, exact}]; per question, never published")
    seed = models.BigIntegerField(default=0)
    dataset_hash = models.CharField(max_length=64, blank=True)
    library_versions = models.JSONField(default=dict, blank=True)
    hardware = models.JSONField(default=dict, blank=True)

    status = models.CharField(max_length=12, choices=RunStatus.choices, default=RunStatus.QUEUED)
    chunk_size = models.PositiveIntegerField(default=256, help_text="fixed at creation: part of the plan")
    plan_fingerprint = models.CharField(max_length=64, blank=True,
                                        help_text="the engine's plan (questions, variants, seed, template, chunk "
                                                  "size), fixed at creation; chunks of another plan are refused")
    scoring_attempts = models.PositiveSmallIntegerField(default=0)
    infra_retries = models.PositiveSmallIntegerField(
        default=0, help_text="retries after infrastructure errors (hub, database, disk): not the model's attempts")
    published_at = models.DateTimeField(null=True, blank=True,
                                        help_text="last time a predict message was published (enqueued_at is "
                                                  "when the run joined the queue)")
    failure_code = models.CharField(max_length=30, choices=FailureCode.choices, blank=True)
    failure_reason = models.TextField(blank=True)
    log_excerpt = models.TextField(blank=True)
    queue = models.CharField(max_length=20, default="gpu")
    enqueued_at = models.DateTimeField(null=True, blank=True)
    hidden = models.BooleanField(default=False)
    flagged = models.BooleanField(default=False)
    summary = models.JSONField(default=dict, blank=True)
    efficiency = models.JSONField(default=dict, blank=True)

    class Meta(LeasedJob.Meta):
        indexes = [models.Index(fields=["status", "lease_expires_at"]), models.Index(fields=["status", "enqueued_at"])]

    @property
    def probed(self) -> bool:
        """Whether the memorization probe runs: on open splits only. A sealed split's probe outcome would be a
        second sealed figure per run (it counts sealed option texts and which masked options are wrong)."""
        return self.probe and self.split not in SEALED_SPLITS

    @property
    def resolved_load(self) -> dict:
        """The dtype and quantization the engine computed in (evaluator/precisions.py), as its card recorded;
        `precision` is what the submission asked for."""
        card = (self.hardware or {}).get("backend") or {}
        return {"dtype": card.get("dtype"), "quantization": card.get("quantization")}

    def __str__(self):
        return f"run {self.pk}: {self.model_ref} on {self.benchmark_version} {self.split}"


class PredictionChunk(models.Model):
    """One chunk of a run's per-question predictions, written once."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, blank=True, help_text="the plan the chunk was computed under")
    rows = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_chunk_per_run")]
