"""Explicit input/output serializers of the results API (percent figures; sealed rules already applied)."""
from rest_framework import serializers

from .selectors import SIZE_CLASSES


class _Figures(serializers.Serializer):
    n = serializers.IntegerField(allow_null=True)
    correct = serializers.IntegerField(allow_null=True, help_text="withheld (null) on the sealed test split")
    accuracy = serializers.FloatField(allow_null=True, help_text="percent; 0.1 point on the sealed split")
    ci95_low = serializers.FloatField(allow_null=True)
    ci95_high = serializers.FloatField(allow_null=True)


class LeaderboardQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "test"], default="validation")
    shots = serializers.IntegerField(min_value=0, default=0)
    variant = serializers.CharField(default="original")
    size_class = serializers.ChoiceField(choices=SIZE_CLASSES, required=False)
    on_device = serializers.BooleanField(default=False, help_text="params ≤ 3B")
    model_type = serializers.CharField(required=False)
    precision = serializers.CharField(required=False)
    flagged = serializers.BooleanField(required=False, allow_null=True, default=None)
    include_reported = serializers.BooleanField(default=False)
    search = serializers.CharField(required=False)
    sort = serializers.ChoiceField(choices=["rank", "-rank", "accuracy", "-accuracy", "name", "-name", "params",
                                            "-params"], default="rank")


class TopicsQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField()
    split = serializers.ChoiceField(choices=["validation"], default="validation",
                                    help_text="open split only: per-topic test figures are not published")
    shots = serializers.IntegerField(min_value=0, default=0)
    variant = serializers.CharField(default="original")


class LeaderboardRowSerializer(_Figures):
    rank = serializers.IntegerField(help_text="1 + models significantly better (two-proportion z-test, 95%)")
    tied = serializers.BooleanField()
    hub_id = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    params = serializers.IntegerField(allow_null=True)
    size_class = serializers.CharField(allow_null=True)
    model_type = serializers.CharField()
    flagged = serializers.BooleanField()
    reported = serializers.BooleanField(help_text="true: reported by the paper, not measured here")
    source = serializers.CharField()
    run_id = serializers.IntegerField(allow_null=True)


class CellSerializer(_Figures):
    variant = serializers.CharField()
    level = serializers.CharField()
    key = serializers.CharField()
    name = serializers.CharField()


class ReproducibilitySerializer(serializers.Serializer):
    library_versions = serializers.DictField()
    template = serializers.CharField()
    template_hash = serializers.CharField()
    dataset_hash = serializers.CharField()
    seed = serializers.IntegerField()
    hardware = serializers.DictField()
    backend = serializers.CharField()
    mode = serializers.CharField()
    use_chat_template = serializers.BooleanField()


class ModelRunSerializer(serializers.Serializer):
    run_id = serializers.IntegerField()
    benchmark = serializers.CharField()
    benchmark_version = serializers.IntegerField()
    split = serializers.CharField()
    shots = serializers.IntegerField()
    variants = serializers.ListField(child=serializers.CharField())
    primary_variant = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    scored_at = serializers.DateTimeField()
    breakdown_note = serializers.CharField(allow_blank=True)
    results = CellSerializer(many=True)
    efficiency = serializers.DictField(help_text="measured on the evaluating server")
    reproducibility = ReproducibilitySerializer()


class ModelDetailSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    params = serializers.IntegerField(allow_null=True)
    size_class = serializers.CharField(allow_null=True)
    model_type = serializers.CharField()
    license = serializers.CharField()
    architecture = serializers.CharField()
    flagged = serializers.BooleanField()
    runs = ModelRunSerializer(many=True)


class HistoryRowSerializer(_Figures):
    run_id = serializers.IntegerField()
    benchmark = serializers.CharField()
    benchmark_version = serializers.IntegerField()
    split = serializers.CharField()
    shots = serializers.IntegerField()
    variant = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    scored_at = serializers.DateTimeField()
    previous_run_id = serializers.IntegerField(allow_null=True)
    accuracy_change = serializers.FloatField(allow_null=True, help_text="points vs the previous run (same "
                                             "benchmark, split, shots)")
