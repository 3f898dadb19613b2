from rest_framework import serializers

from .models import ModelType, Precision


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
                                     "validation and test (about one short generation per question more)")


class FailureSerializer(serializers.Serializer):
    code = serializers.CharField()
    reason = serializers.CharField()
    log_excerpt = serializers.CharField()


class RunStatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    benchmark = serializers.CharField()
    split = serializers.CharField()
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


class SubmissionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    hub_id = serializers.CharField()
    revision = serializers.CharField()
    revision_sha = serializers.CharField()
    precision = serializers.CharField()
    model_type = serializers.CharField()
    use_chat_template = serializers.BooleanField()
    benchmarks = serializers.ListField(child=serializers.CharField())
    status = serializers.CharField()
    created_at = serializers.DateTimeField()
    runs = RunStatusSerializer(many=True)


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    hint = serializers.CharField()


class PredictionUploadInputSerializer(serializers.Serializer):
    # Not trimmed, as hub_id on submit: the name is checked exactly as sent (a trailing newline is refused).
    name = serializers.CharField(max_length=200, trim_whitespace=False,
                                 help_text="namespace/name the predictions are for; the namespace must be "
                                           "yours (your username) or granted to you by an admin")
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "dev"], default="validation")
    file = serializers.FileField(help_text="CSV with columns question_id,predicted_answer")
