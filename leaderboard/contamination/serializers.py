"""Explicit serializers of the contamination API. Figures are percentage points; sealed rules applied."""
from rest_framework import serializers

from leaderboard.results.serializers import _Figures  # the same figure block as the results API


class BoardQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    shots = serializers.IntegerField(min_value=0, default=0)
    flagged = serializers.BooleanField(required=False, allow_null=True, default=None)


class _ProbeSplit(serializers.Serializer):
    n = serializers.IntegerField(help_text="probed questions whose masked option was a wrong one")
    exact = serializers.IntegerField(help_text="masked options reproduced exactly")
    rate = serializers.FloatField(help_text="percent")
    ci95_low = serializers.FloatField()
    ci95_high = serializers.FloatField()


class _Probe(serializers.Serializer):
    validation = _ProbeSplit(allow_null=True)
    test = _ProbeSplit(allow_null=True)
    excess = serializers.FloatField(allow_null=True, help_text="validation rate − test rate, points")
    z = serializers.FloatField(allow_null=True, help_text="pooled two-proportion z of the excess")


class _Topic(serializers.Serializer):
    topic_slug = serializers.CharField()
    topic = serializers.CharField()


class _Topics(serializers.Serializer):
    tested = serializers.IntegerField(help_text="topics with both validation and test questions")
    alpha = serializers.FloatField(help_text="family-wise error rate")
    correction = serializers.CharField()
    significant = _Topic(many=True, help_text="topics where validation is significantly above test after the "
                                               "Holm correction (their Δ values are withheld: they would give "
                                               "per-topic test accuracy)")


class DeltaRowSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    benchmark = serializers.CharField()
    shots = serializers.IntegerField()
    variant = serializers.CharField()
    validation_run_id = serializers.IntegerField()
    test_run_id = serializers.IntegerField()
    validation = _Figures()
    test = _Figures()
    delta = serializers.FloatField(help_text="test − validation accuracy, points (MMLU-CF's sign)")
    se = serializers.FloatField(help_text="standard error of Δ, points")
    ci95_low = serializers.FloatField()
    ci95_high = serializers.FloatField()
    delta0 = serializers.FloatField(help_text="δ₀ in force (points): the Δ expected without contamination")
    z = serializers.FloatField(help_text="(Δ − δ₀) / SE")
    flagged = serializers.BooleanField(help_text="possible contamination: −z > 3")
    flag_reasons = serializers.ListField(child=serializers.CharField())
    topics = _Topics()
    probe = _Probe(allow_null=True)
    computed_at = serializers.DateTimeField()


class BoardHistoryPointSerializer(serializers.Serializer):
    date = serializers.DateField()
    mean_delta = serializers.FloatField(help_text="mean of each model revision's latest Δ as of that day, points")
    models = serializers.IntegerField()


class ModelHistoryPointSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    benchmark = serializers.CharField()
    shots = serializers.IntegerField()
    delta = serializers.FloatField()
    se = serializers.FloatField()
    z = serializers.FloatField()
    flagged = serializers.BooleanField()


class ModelContaminationSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    latest = DeltaRowSerializer(many=True)
    history = ModelHistoryPointSerializer(many=True)
