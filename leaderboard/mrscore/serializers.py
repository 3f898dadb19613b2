"""Explicit output serializers for the MRScore API (and its OpenAPI schema)."""
from rest_framework import serializers


class ProvenanceSerializer(serializers.Serializer):
    job = serializers.IntegerField()
    benchmark = serializers.CharField()
    benchmark_version = serializers.IntegerField()
    judge_model = serializers.CharField()
    judge_revision = serializers.CharField()
    endpoint_kind = serializers.CharField(help_text="local-transformers or openai-compatible-http")
    prompt_version = serializers.CharField()
    prompt_hash = serializers.CharField(help_text="sha256 of the exact judge prompt template")
    scoring = serializers.CharField(help_text="logprobs (expected score), parsed (integer reply), or both")
    judged_at = serializers.DateTimeField(allow_null=True)
    splits = serializers.ListField(child=serializers.CharField())


class BinSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    share = serializers.FloatField(allow_null=True)


class ComparisonSerializer(serializers.Serializer):
    shown = serializers.BooleanField(help_text="true once a real judge scored a real benchmark")
    rho = serializers.FloatField(allow_null=True, help_text="Spearman rank correlation with the paper's Table 10")
    ci95 = serializers.ListField(child=serializers.FloatField(allow_null=True))
    n_topics = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True, help_text="why no correlation is shown")


class JobSummarySerializer(serializers.Serializer):
    n = serializers.IntegerField()
    n_scored = serializers.IntegerField()
    n_unparsable = serializers.IntegerField()
    unparsable_rate = serializers.FloatField(allow_null=True)
    mean = serializers.FloatField(allow_null=True, help_text="benchmark MRScore: mean over scored questions")
    ci95 = serializers.ListField(child=serializers.FloatField(allow_null=True))
    bins = serializers.DictField(child=BinSerializer(), help_text="paper Table 9 bins")
    histogram = serializers.ListField(child=serializers.IntegerField(), help_text="counts in [1,2) .. [9,10), 10")
    methods = serializers.DictField(child=serializers.IntegerField())
    comparison = ComparisonSerializer(required=False)


class JobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    attempts = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    failure_reason = serializers.CharField(allow_blank=True)
    provenance = ProvenanceSerializer()
    summary = JobSummarySerializer(allow_null=True)


class TopicScoreSerializer(serializers.Serializer):
    category = serializers.CharField()
    subcategory = serializers.CharField()
    topic = serializers.CharField()
    topic_slug = serializers.CharField()
    n = serializers.IntegerField(help_text="questions judged (all judged splits)")
    n_scored = serializers.IntegerField()
    n_unparsable = serializers.IntegerField()
    mrscore = serializers.FloatField(allow_null=True, help_text="mean over the topic's scored questions (Eq. 3)")
    ci95_low = serializers.FloatField(allow_null=True)
    ci95_high = serializers.FloatField(allow_null=True)
    bin = serializers.CharField(allow_null=True, help_text="paper Table 9 bin of the topic MRScore")
    published_mrscore = serializers.FloatField(allow_null=True, help_text="paper Appendix C Table 10")


class TopicScoresSerializer(serializers.Serializer):
    provenance = ProvenanceSerializer()
    summary = JobSummarySerializer()
    topics = TopicScoreSerializer(many=True)


class QuestionScoreSerializer(serializers.Serializer):
    uid = serializers.CharField()
    split = serializers.CharField()
    topic = serializers.CharField()
    question = serializers.CharField()
    mrscore = serializers.FloatField(allow_null=True)
    method = serializers.CharField()
    raw_reply = serializers.CharField(allow_blank=True)
    score_mass = serializers.FloatField(allow_null=True)


class QuestionScoresSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    provenance = ProvenanceSerializer()
    results = QuestionScoreSerializer(many=True)


class DistributionSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    provenance = ProvenanceSerializer()
    n_scored = serializers.IntegerField()
    mean = serializers.FloatField(allow_null=True)
    histogram = serializers.ListField(child=serializers.IntegerField())
    bins = serializers.DictField(child=BinSerializer())
