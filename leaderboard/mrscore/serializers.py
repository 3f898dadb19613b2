"""Explicit query and output serializers for the MRScore API (and its OpenAPI schema)."""
import re

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from evaluator.judges.stats import bin_label

from leaderboard.benchmarks.models import Split
from leaderboard.core.api import Repeated
from leaderboard.core.converters import MAX_ID

from . import selectors

SLUG = re.compile(r"[-a-zA-Z0-9_]+")


class JobListQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(required=False, help_text="benchmark slug (default: every benchmark)")


class JobQuerySerializer(serializers.Serializer):
    job = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, help_text="a succeeded job id "
                                   "(default: the newest on the benchmark's current version)")


class QuestionScoresQuerySerializer(JobQuerySerializer):
    split = serializers.ChoiceField(choices=Split.values, required=False,
                                    help_text="open splits only; the sealed test split is refused (404)")
    topic = serializers.SlugField(required=False, help_text="topic slug")


class DistributionQuerySerializer(serializers.Serializer):
    benchmark = Repeated(required=False, default=list, help_text="benchmark slug(s), comma-separated or repeated "
                         "(default: all with scores)")

    def validate_benchmark(self, slugs):
        # A NUL byte or a quote is a 400 here, never a query (a NUL used to reach PostgreSQL: a 500).
        if any(not SLUG.fullmatch(s) for s in slugs):
            raise serializers.ValidationError("a slug: letters, digits, '-' and '_', comma-separated")
        return slugs


class Rounded(serializers.FloatField):
    """A float shown to `digits` places; null stays null."""

    def __init__(self, digits=4, **kwargs):
        self.digits = digits
        super().__init__(allow_null=True, **kwargs)

    def to_representation(self, value):
        return round(float(value), self.digits)


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
    mean = serializers.FloatField(allow_null=True, help_text="benchmark MRScore: mean over the open splits' scored "
                                                             "questions")
    ci95 = serializers.ListField(child=serializers.FloatField(allow_null=True))
    bins = serializers.DictField(child=BinSerializer(), help_text="paper Table 9 bins")
    histogram = serializers.ListField(child=serializers.IntegerField(), help_text="counts in [1,2) .. [9,10), 10")
    methods = serializers.DictField(child=serializers.IntegerField())
    comparison = ComparisonSerializer(required=False)


class JobSerializer(serializers.Serializer):
    # From an MRScoreJob (a comment, not a docstring: that would be the schema's description).
    id = serializers.IntegerField()
    status = serializers.CharField()
    progress_done = serializers.IntegerField()
    progress_total = serializers.IntegerField()
    attempts = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    failure_reason = serializers.CharField(allow_blank=True)
    provenance = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()

    @extend_schema_field(ProvenanceSerializer)
    def get_provenance(self, job):
        return ProvenanceSerializer(selectors.provenance(job=job)).data

    @extend_schema_field(JobSummarySerializer(allow_null=True))
    def get_summary(self, job):
        return JobSummarySerializer(job.summary).data if job.summary else None


class TopicScoreSerializer(serializers.Serializer):
    # A TopicMRScore row.
    category = serializers.CharField(source="topic.subcategory.category.name")
    subcategory = serializers.CharField(source="topic.subcategory.name")
    topic = serializers.CharField(source="topic.name")
    topic_slug = serializers.CharField(source="topic.slug")
    n = serializers.IntegerField(help_text="open-split questions judged: the sealed split's scores are never "
                                           "aggregated (they could be read back from the mean)")
    n_scored = serializers.IntegerField()
    n_unparsable = serializers.IntegerField()
    mrscore = Rounded(source="mean", help_text="mean over the topic's scored open-split questions (Eq. 3)")
    ci95_low = Rounded(source="ci_low")
    ci95_high = Rounded(source="ci_high")
    bin = serializers.SerializerMethodField(help_text="paper Table 9 bin of the topic MRScore")
    published_mrscore = serializers.FloatField(source="topic.published_mrscore", allow_null=True,
                                               help_text="paper Appendix C Table 10")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_bin(self, row):
        return bin_label(row.mean) if row.mean is not None else None


class TopicScoresSerializer(serializers.Serializer):
    provenance = ProvenanceSerializer()
    summary = JobSummarySerializer()
    topics = TopicScoreSerializer(many=True)


class QuestionScoreSerializer(serializers.Serializer):
    # A QuestionMRScore row (open splits only: the selector refuses the sealed one).
    uid = serializers.CharField(source="question.uid")
    split = serializers.CharField()
    topic = serializers.CharField(source="topic.slug")
    question = serializers.CharField(source="question.text")
    mrscore = Rounded(source="score")
    method = serializers.CharField()
    raw_reply = serializers.CharField(allow_blank=True)
    score_mass = Rounded(6)


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
