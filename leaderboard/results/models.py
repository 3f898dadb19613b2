"""Aggregates that pages and the API read (never the per-question chunks), and the paper's figures.

RunResult is one row per scored run (who, what, which settings); ResultAggregate holds
(variant, level, key) -> n, correct under it. Accuracy and the Wilson interval derive from
n and correct. Sealed (test) aggregates are stored whole; display.py applies the display rules.
"""
from django.db import models

from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion, Split


class Level(models.TextChoices):
    OVERALL = "overall"
    CATEGORY = "category"
    SUBCATEGORY = "subcategory"
    TOPIC = "topic"


class RunResult(models.Model):
    run = models.OneToOneField("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="result")
    model = models.ForeignKey("submissions.ModelEntry", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="results")
    hub_id = models.CharField(max_length=300, help_text="model entry hub id, else the run's model_ref")
    revision = models.CharField(max_length=100, blank=True)
    precision = models.CharField(max_length=20)
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="run_results")
    benchmark_version = models.ForeignKey(BenchmarkVersion, on_delete=models.CASCADE, related_name="run_results")
    split = models.CharField(max_length=12, choices=Split.choices)
    shots = models.PositiveSmallIntegerField()
    primary_variant = models.CharField(max_length=20)
    scored_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["benchmark_version", "split", "shots"]), models.Index(fields=["hub_id"])]

    def __str__(self):
        return f"results of run {self.run_id}"


class ResultAggregate(models.Model):
    result = models.ForeignKey(RunResult, on_delete=models.CASCADE, related_name="aggregates")
    variant = models.CharField(max_length=20)
    level = models.CharField(max_length=12, choices=Level.choices)
    key = models.CharField(max_length=210, blank=True, help_text="slug path ('' for overall)")
    name = models.CharField(max_length=100, blank=True)
    n = models.PositiveIntegerField()
    correct = models.PositiveIntegerField()

    class Meta:
        ordering = ["result", "variant", "level", "key"]
        constraints = [models.UniqueConstraint(fields=["result", "variant", "level", "key"],
                                               name="unique_aggregate_cell")]
        indexes = [models.Index(fields=["level", "variant"])]

    @property
    def accuracy(self):
        return self.correct / self.n if self.n else None


class ReportedSource(models.TextChoices):
    TABLE2 = "paper-table2", "Mobile-MMLU paper (arXiv 2503.20786), Table 2"
    ORDER_BIAS = "paper-order-bias", "Mobile-MMLU paper (arXiv 2503.20786), Tables 3-4"


class ReportedResult(models.Model):
    """An accuracy as published by the paper: labelled, never measured by us."""

    source = models.CharField(max_length=20, choices=ReportedSource.choices)
    benchmark_slug = models.CharField(max_length=64, help_text="may name a benchmark not hosted here (mmlu)")
    hub_id = models.CharField(max_length=200)
    group = models.CharField(max_length=40, blank=True)
    shots = models.PositiveSmallIntegerField(default=0)
    variant = models.CharField(max_length=20, default="original")
    accuracy = models.FloatField(help_text="percent, as printed")

    class Meta:
        ordering = ["benchmark_slug", "source", "hub_id", "variant"]
        constraints = [models.UniqueConstraint(fields=["source", "benchmark_slug", "hub_id", "shots", "variant"],
                                               name="unique_reported_result")]
