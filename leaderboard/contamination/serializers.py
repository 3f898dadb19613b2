"""Explicit serializers of the contamination API. Figures are percentage points; sealed rules applied."""
from rest_framework import serializers

from leaderboard.benchmarks.shots import shots_field
from leaderboard.results.serializers import _Figures  # the same figure block as the results API


class BoardQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    shots = shots_field()
    flagged = serializers.BooleanField(required=False, allow_null=True, default=None)


class _ProbeSplit(serializers.Serializer):
    n = serializers.IntegerField(help_text="probed questions whose masked option was a wrong one")
    exact = serializers.IntegerField(help_text="masked options reproduced exactly")
    rate = serializers.FloatField(help_text="percent")
    ci95_low = serializers.FloatField(help_text="Wilson interval, percent")
    ci95_high = serializers.FloatField()


class _Probe(serializers.Serializer):
    validation = _ProbeSplit(help_text="the open split only: the sealed split is not probed (its outcome would be a "
                                       "second sealed figure)")


class _Topic(serializers.Serializer):
    topic_slug = serializers.CharField(help_text="the unit's key: a topic slug, or the subcategory ('category/"
                                                 "subcategory') or category slug of pooled small topics")
    topic = serializers.CharField(help_text="the unit's name")
    level = serializers.ChoiceField(choices=["topic", "subcategory", "category"])
    members = serializers.ListField(child=serializers.CharField(), help_text="the topic slugs in the unit")


class _Topics(serializers.Serializer):
    tested = serializers.IntegerField(help_text="units tested (topics, or small topics pooled by subcategory or "
                                                "category): the size of the Holm family")
    alpha = serializers.FloatField(help_text="family-wise error rate")
    correction = serializers.CharField()
    test = serializers.CharField(help_text="the exact binomial test, one-sided: a unit's validation count against "
                                           "`expected`")
    topics = serializers.IntegerField(help_text="topics with both validation and test questions")
    pooled = serializers.IntegerField(help_text="topics tested inside a pooled unit")
    untested = serializers.IntegerField(help_text="topics too small to test even pooled by category")
    expected = serializers.FloatField(allow_null=True, help_text="percent: the validation accuracy the published "
                                      "test accuracy (the top of its grid bin) and δ₀ predict; null when the model "
                                      "is not flagged, and then no unit is named")
    significant = _Topic(many=True, help_text="units of a flagged model whose validation accuracy is significantly "
                                               "above `expected` after the Holm correction; no per-topic test "
                                               "figure enters (it would be pinned by the names)")


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
    delta = serializers.FloatField(help_text="test − validation accuracy, points (MMLU-CF's sign), the validation "
                                             "accuracy reweighted to the test split's topic mix")
    se = serializers.FloatField(help_text="standard error of Δ, points (Agresti–Caffo-adjusted proportions)")
    ci95_low = serializers.FloatField(help_text="Newcombe hybrid score interval")
    ci95_high = serializers.FloatField()
    delta0 = serializers.FloatField(help_text="δ₀ in force (points): the Δ expected without contamination (for a "
                                              "reference model, the mean of the other reference models)")
    delta0_se = serializers.FloatField(help_text="standard error of δ₀, points; added to SE in z")
    z = serializers.FloatField(help_text="(Δ − δ₀) / √(SE² + SE_δ₀²)")
    p_value = serializers.FloatField(help_text="one-sided p = Φ(z): small when validation is above test")
    q_value = serializers.FloatField(help_text="Benjamini–Hochberg q-value across the board's models")
    flagged = serializers.BooleanField(help_text="possible contamination: −z > 3 and q < 0.05")
    validation_reweighted = serializers.FloatField(help_text="validation accuracy reweighted to the test split's "
                                                             "topic mix, percent")
    delta_unweighted = serializers.FloatField(help_text="test − validation accuracy without the reweighting, points")
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
    q_value = serializers.FloatField(help_text="as if this point stood for its model on today's board")
    flagged = serializers.BooleanField()


class ModelContaminationSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    latest = DeltaRowSerializer(many=True)
    history = ModelHistoryPointSerializer(many=True)
