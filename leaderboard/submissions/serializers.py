"""The submissions API's input and output: a submission and its runs as the author sees them (the status page
reads the same output)."""
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.contamination.ladder import withheld_test_runs
from leaderboard.evaluations.display import public_summary
from leaderboard.evaluations.models import RunStatus

from . import selectors
from .models import ModelType, Precision

WITHHELD_NOTE = ("not published: the Ladder rule publishes a later sealed test figure of a model only when its "
                 "paired gain over the model's best published one is significant, and each account has a budget "
                 "of published figures per window, so this test score stays sealed")


class SubmissionInputSerializer(serializers.Serializer):
    # Not trimmed: a hub id is checked exactly as sent (a trailing newline is refused, not fixed up).
    hub_id = serializers.CharField(max_length=200, trim_whitespace=False,
                                   help_text="namespace/name on the Hugging Face hub")
    revision = serializers.CharField(max_length=100, default="main", trim_whitespace=False,
                                     help_text="branch, tag or commit sha")
    precision = serializers.ChoiceField(choices=Precision.choices, default=Precision.BFLOAT16)
    model_type = serializers.ChoiceField(choices=ModelType.choices, default=ModelType.PRETRAINED)
    use_chat_template = serializers.BooleanField(required=False, allow_null=True, default=None,
                                                 help_text="default: on for instruct and reasoning models")
    benchmarks = serializers.ListField(child=serializers.SlugField(), required=False)
    webhook_url = serializers.URLField(required=False, allow_blank=True, default="")
    probe = serializers.BooleanField(default=False, help_text="also run the TS-Guessing memorization probe on "
                                     "validation (about one short generation per question more; the sealed "
                                     "test split is not probed)")
    gguf_file = serializers.CharField(max_length=200, required=False, allow_blank=True, default="",
                                      trim_whitespace=False,
                                      help_text="path of a GGUF file in the repository (e.g. model-Q4_K_M.gguf, "
                                                "or the first part of a split file): that file is evaluated with "
                                                "llama.cpp as a model of its own, and precision is ignored")
    ondevice_variants = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="also make the model's on-device variants here (Q8_0, Q4_K_M and Q4_0 GGUF files, llama.cpp's "
                  "converter and quantizer, no importance matrix) and evaluate each on the validation split beside "
                  "it; default: on for models up to 8B parameters. Not for a GGUF file")


class FailureSerializer(serializers.Serializer):
    code = serializers.CharField()
    reason = serializers.CharField()
    log_excerpt = serializers.CharField()


class RunStatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    benchmark = serializers.CharField()
    split = serializers.CharField()
    model = serializers.CharField(help_text="the model the run evaluates: the submission's, or an on-device variant "
                                            "made from it (org/model@Q4_K_M)")
    variants = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    queue_position = serializers.IntegerField(allow_null=True)
    eta_seconds = serializers.FloatField(allow_null=True)
    items_done = serializers.IntegerField()
    items_total = serializers.IntegerField()
    chunks_done = serializers.IntegerField()
    chunks_total = serializers.IntegerField(allow_null=True)
    accuracy = serializers.FloatField(allow_null=True, help_text="percent; sealed split rounded to 0.1")
    rerun_of = serializers.IntegerField(allow_null=True, help_text="the run this one repeats")
    accuracy_note = serializers.CharField(default="", help_text="why the accuracy is not published, if it is not")
    accuracy_change = serializers.FloatField(allow_null=True, help_text="points versus the run it repeats")
    failure = FailureSerializer(allow_null=True)

    def to_representation(self, run):
        failure = None
        if run.status in (RunStatus.FAILED, RunStatus.CANCELLED) or (run.failure_code
                                                                      and run.status == RunStatus.QUEUED):
            failure = {"code": run.failure_code or run.status.upper(), "reason": run.failure_reason,
                       "log_excerpt": run.log_excerpt}
        withheld = _withheld(run)
        previous = run.rerun_of
        accuracy = None if withheld else _accuracy(run)
        return super().to_representation({
            "id": run.pk, "benchmark": run.benchmark_version.benchmark.slug, "split": run.split,
            "model": run.model_ref,
            "variants": run.variants, "status": run.status, "attempts": run.attempts,
            **selectors.run_progress(run=run), "accuracy": accuracy, "rerun_of": previous.pk if previous else None,
            "accuracy_change": _change(run, accuracy, previous), "accuracy_note": WITHHELD_NOTE if withheld else "",
            "failure": failure})


def _change(run, accuracy, previous):
    """Points versus the run it repeats, when both figures are published."""
    before = None if previous is None or _withheld(previous) else _accuracy(previous)
    if accuracy is None or before is None:
        return None
    if run.split in SEALED_SPLITS:  # the difference of the two published figures, nothing finer
        return round(accuracy - before, 1)
    # open splits: from the unrounded fractions, so display rounding does not skew it
    return round(100 * (run.summary["overall"]["accuracy"] - previous.summary["overall"]["accuracy"]), 1)


def _withheld(run) -> bool:
    if run.split not in SEALED_SPLITS:
        return False
    return withheld_test_runs().filter(candidate_run_id=run.pk).exists()


def _accuracy(run):
    if run.status == RunStatus.SUCCEEDED and run.summary:
        return public_summary(split=run.split, summary=run.summary)["accuracy"]
    return None


class SubmissionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    hub_id = serializers.CharField(source="model.hub_id")
    revision = serializers.CharField()
    revision_sha = serializers.CharField()
    precision = serializers.CharField()
    model_type = serializers.CharField()
    use_chat_template = serializers.BooleanField()
    benchmarks = serializers.ListField(child=serializers.CharField())
    gguf_file = serializers.CharField(help_text="the GGUF file evaluated; empty for a safetensors checkpoint")
    gguf_sha256 = serializers.CharField(help_text="the pinned file's sha256")
    gguf_quantization = serializers.SerializerMethodField(help_text="the file's type (Q4_K_M, Q8_0, F16...)")
    ondevice_variants = serializers.BooleanField(help_text="on-device variants are made and evaluated")
    status = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    runs = serializers.SerializerMethodField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_gguf_quantization(self, submission) -> str | None:
        return (submission.gguf_facts or {}).get("quantization")

    @extend_schema_field(serializers.CharField())
    def get_status(self, submission) -> str:
        return selectors.submission_status(submission=submission)

    @extend_schema_field(RunStatusSerializer(many=True))
    def get_runs(self, submission) -> list:
        runs = submission.runs.select_related("benchmark_version__benchmark", "rerun_of").order_by("pk")
        return RunStatusSerializer(runs, many=True).data


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    hint = serializers.CharField()
    # Present with some codes only:
    existing_submission = serializers.IntegerField(required=False, help_text="DUPLICATE: the live submission")
    scope = serializers.ChoiceField(choices=["account", "namespace"], required=False,
                                    help_text="QUOTA_EXCEEDED: whose quota is spent")
    namespace = serializers.CharField(required=False, help_text="QUOTA_EXCEEDED with scope namespace: which one")
    frees_at = serializers.DateTimeField(required=False, help_text="QUOTA_EXCEEDED: when the next slot frees up")


class PredictionUploadInputSerializer(serializers.Serializer):
    # Not trimmed, as hub_id on submit: the name is checked exactly as sent (a trailing newline is refused).
    name = serializers.CharField(max_length=200, trim_whitespace=False,
                                 help_text="namespace/name the predictions are for; the namespace must be "
                                           "yours (your username) or granted to you by an admin")
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "dev"], default="validation")
    file = serializers.FileField(help_text="CSV with columns question_id,predicted_answer")
