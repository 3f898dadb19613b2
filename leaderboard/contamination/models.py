"""Contamination monitor state: Δ history points, the δ₀ offsets admins set, and the Ladder rule's
choice of which sealed-split run the board shows for a model.

Points store counts only (never per-question data); Δ, SE, z and the flags are computed from
them when read, with the δ₀ in force then, so changing δ₀ re-judges the whole board at once.
"""
from django.conf import settings
from django.db import models

from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion


class DeltaPoint(models.Model):
    """One Δ measurement: a model revision's validation and test results, added whenever either is scored."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="delta_points")
    benchmark_version = models.ForeignKey(BenchmarkVersion, null=True, on_delete=models.CASCADE, related_name="+",
                                          help_text="both runs are of this version (the splits are paired per version)")
    shots = models.PositiveSmallIntegerField()
    hub_id = models.CharField(max_length=300)
    revision = models.CharField(max_length=100, blank=True)
    precision = models.CharField(max_length=20)
    validation_run = models.ForeignKey("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="+")
    test_run = models.ForeignKey("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="+")
    correct_v = models.PositiveIntegerField()
    n_v = models.PositiveIntegerField()
    correct_t = models.PositiveIntegerField()
    n_t = models.PositiveIntegerField()
    topic_counts = models.JSONField(default=dict, help_text="topic slug -> [name, correct_v, n_v, correct_t, n_t]")
    probe = models.JSONField(default=dict, blank=True, help_text="{validation: {n, exact, generated}}: the "
                             "memorization probe of the open split (the sealed split is not probed)")
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["-computed_at", "-pk"]
        indexes = [models.Index(fields=["benchmark", "shots", "computed_at"]), models.Index(fields=["hub_id"])]

    def __str__(self):
        return f"Δ of {self.hub_id}@{self.revision[:12]} on {self.benchmark.slug} ({self.computed_at:%Y-%m-%d})"


class DeltaOffset(models.Model):
    """δ₀: the Δ expected of an uncontaminated model (validation and test differ a little in difficulty).

    Rows are history. For a point, the newest row of its benchmark version and shots is in force, else the newest
    row of its benchmark and shots that names no version. Set by staff, audited. `se` is δ₀'s standard error
    (added to each model's SE in z); `reference_deltas` keeps each reference model's published Δ so that a
    reference model is judged against the mean of the others (never against itself).
    """

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="delta_offsets")
    benchmark_version = models.ForeignKey(BenchmarkVersion, null=True, blank=True, on_delete=models.CASCADE,
                                          related_name="+", help_text="empty: every version without its own δ₀")
    shots = models.PositiveSmallIntegerField(default=0)
    value = models.FloatField(help_text="fraction, e.g. -0.012 for -1.2 points")
    se = models.FloatField(default=0.0, blank=True,
                           help_text="standard error of δ₀, fraction (0 when typed in without one)")
    reason = models.TextField()
    reference_models = models.JSONField(default=list, blank=True)
    reference_deltas = models.JSONField(default=list, blank=True,
                                        help_text="[{model: hub@revision, precision, delta, se}] as published")
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    set_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-set_at", "-pk"]

    def __str__(self):
        return f"δ₀ = {100 * self.value:+.2f} pt for {self.benchmark.slug} {self.shots}-shot"


class TestScoreDisplay(models.Model):
    """Which sealed-split run the board shows for (model, precision, benchmark, shots): the Ladder rule's choice."""

    hub_id = models.CharField(max_length=300)
    precision = models.CharField(max_length=20)
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    shots = models.PositiveSmallIntegerField()
    run = models.ForeignKey("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["hub_id", "precision", "benchmark", "shots"],
                                               name="one_displayed_test_run")]

    def __str__(self):
        return f"shown test run of {self.hub_id} ({self.precision}, {self.benchmark.slug}, {self.shots}-shot)"


class LadderReason(models.TextChoices):
    FIRST = "first", "the model's first sealed run: published"
    GAIN = "gain", "a significant paired gain over the model's best published run: published"
    NO_GAIN = "no-gain", "no significant paired gain over the model's best published run: withheld"
    BUDGET = "budget", "the submitter's or the namespace's sealed releases for this window are used up: withheld"


class LadderDecision(models.Model):
    """The Ladder rule's judgement of one sealed-split run. A model's (`family`: its id, lower case; a GGUF file's,
    its base model and quantization) revisions and precisions are compared with its best published run on one
    benchmark and shot setting; every published ("moved") run counts against the submitting account's release budget
    per window and its model's namespace's, so neither a new repository or precision nor a new account adds to what
    can be learnt. Operators' runs (no submitter) have no budget."""

    display = models.ForeignKey(TestScoreDisplay, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="decisions", help_text="the board entry of the candidate's model")
    shown_run = models.ForeignKey("evaluations.EvaluationRun", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="+", help_text="the family's best published run it was judged against")
    candidate_run = models.ForeignKey("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", help_text="the submitting account (none: an operator's run)")
    family = models.CharField(max_length=300, blank=True, default="",
                              help_text="the model id, lower case (a GGUF file's: its base model, else repository, "
                                        "@ its quantization): its revisions, precisions and copies are compared with "
                                        "its best published run")
    namespace = models.CharField(max_length=100, blank=True, default="",
                                 help_text="the model's hub namespace (canonical): whose budget a publication spends "
                                           "besides the submitter's")
    reason = models.CharField(max_length=10, choices=LadderReason.choices, default=LadderReason.NO_GAIN)
    n = models.PositiveIntegerField()
    mean_diff = models.FloatField()
    sd = models.FloatField()
    threshold = models.FloatField()
    moved = models.BooleanField(help_text="published (the board shows it)")
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-pk"]
        indexes = [models.Index(fields=["family"]), models.Index(fields=["account", "decided_at"]),
                   models.Index(fields=["namespace", "decided_at"])]
