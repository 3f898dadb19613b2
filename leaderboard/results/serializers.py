"""Explicit input/output serializers of the results API (percent figures; sealed rules already applied)."""
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from .board import SIZE_CLASSES, sort_names


class _Figures(serializers.Serializer):
    n = serializers.IntegerField(allow_null=True)
    correct = serializers.IntegerField(allow_null=True, help_text="withheld (null) on the sealed test split")
    accuracy = serializers.FloatField(allow_null=True, help_text="percent; on the sealed split, on its published "
                                                                 "grid (see `grid`)")
    ci95_low = serializers.FloatField(allow_null=True)
    ci95_high = serializers.FloatField(allow_null=True)
    grid = serializers.FloatField(required=False, help_text="sealed split only: the grid (points) its accuracy is "
                                                            "published on, so that each value fits several counts")
    grid_note = serializers.CharField(required=False, help_text="sealed split only: the rounding rule, in words")


class Repeated(serializers.ListField):
    """A repeatable query parameter (?topic=a&topic=b); comma-separated values are split too."""

    child = serializers.CharField()

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        return list(dict.fromkeys(v.strip() for value in values for v in value.split(",") if v.strip()))


class _Scope(serializers.Serializer):
    """Narrowing to topics, categories and models (checked against the benchmark and board in apis.py)."""

    topic = Repeated(required=False, default=list, help_text="topic slug(s): rows pooled over those topics' "
                     "questions; repeatable. Open split only")
    category = Repeated(required=False, default=list, help_text="category slug(s): all topics of those categories; "
                        "repeatable. Open split only")
    model = Repeated(required=False, default=list, help_text="hub id(s), any case; repeatable. Ranks are unchanged")


class LeaderboardQuerySerializer(_Scope):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "test"], default="validation")
    shots = serializers.IntegerField(min_value=0, default=0)
    variant = serializers.CharField(default="original")
    size_class = serializers.ChoiceField(choices=SIZE_CLASSES, required=False)
    on_device = serializers.BooleanField(default=False, help_text="params ≤ 3B")
    params_min = serializers.FloatField(min_value=0, required=False, help_text="billions of parameters, at least")
    params_max = serializers.FloatField(min_value=0, required=False, help_text="billions of parameters, at most")
    model_type = serializers.CharField(required=False)
    precision = serializers.CharField(required=False)
    flagged = serializers.BooleanField(required=False, allow_null=True, default=None,
                                       help_text="true: flagged rows only; false: none; absent: both")
    include_reported = serializers.BooleanField(default=False, help_text="append the paper's rows: unranked, after "
                                                "the measured ones, left out under a parameter/type/precision filter")
    search = serializers.CharField(required=False)
    sort = serializers.CharField(default="rank", help_text="one of " + ", ".join(sort_names()) + ", "
                                 "category:<slug>; a leading '-' sorts descending")
    version = serializers.IntegerField(min_value=1, required=False,
                                       help_text="benchmark version number (default: the current one)")

    def validate(self, attrs):
        low, high = attrs.get("params_min"), attrs.get("params_max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"params_max": ["must be at least params_min."]})
        return attrs


class TopicsQuerySerializer(_Scope):
    benchmark = serializers.SlugField()
    split = serializers.ChoiceField(choices=["validation"], default="validation",
                                    help_text="open split only: per-topic test figures are not published")
    shots = serializers.IntegerField(min_value=0, default=0)
    variant = serializers.CharField(default="original")
    version = serializers.IntegerField(min_value=1, required=False,
                                       help_text="benchmark version number (default: the current one)")


class SubmittedPredictionsQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.ChoiceField(choices=["validation", "dev"], default="validation",
                                    help_text="open splits only: predictions of the sealed split are never accepted")
    version = serializers.IntegerField(min_value=1, required=False,
                                       help_text="benchmark version number (default: the current one)")


class SubmittedPredictionRowSerializer(_Figures):
    source = serializers.CharField(help_text='always "submitted predictions": scored by us from a file its '
                                             "uploader sent, not evaluated by us, never ranked with measured rows")
    hub_id = serializers.CharField()
    uploaded_by = serializers.CharField(help_text="the account that uploaded the file (it owns the namespace)")
    run_id = serializers.IntegerField()
    submission_id = serializers.IntegerField()
    scored_at = serializers.DateTimeField()


class LeaderboardRowSerializer(_Figures):
    rank = serializers.IntegerField(allow_null=True, help_text="1 + models significantly better (two-proportion "
                                    "z-test, 95%) among the rows the filters keep; null for the paper's rows")
    tied = serializers.BooleanField()
    hub_id = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    params = serializers.IntegerField(allow_null=True)
    size_class = serializers.CharField(allow_null=True)
    model_type = serializers.CharField()
    flagged = serializers.BooleanField(help_text="flagged by an admin or by the contamination monitor")
    possible_contamination = serializers.BooleanField(
        default=False, help_text="the contamination monitor's flag: validation above test by more than 3 SE")
    ladder_note = serializers.CharField(
        default="", help_text="sealed split: why a newer revision's test score is not shown (Ladder rule)")
    reported = serializers.BooleanField(help_text="true: reported by the paper, not measured here")
    source = serializers.CharField()
    run_id = serializers.IntegerField(allow_null=True)
    scored_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True, help_text="when the run was created")
    template = serializers.CharField(allow_null=True)
    chat_template = serializers.BooleanField(allow_null=True)
    test_accuracy = serializers.FloatField(allow_null=True, help_text="open split: the sealed test accuracy the "
                                           "board shows for this model and precision, on its published grid")
    test_ci95_low = serializers.FloatField(allow_null=True)
    test_ci95_high = serializers.FloatField(allow_null=True)
    test_grid = serializers.FloatField(allow_null=True, help_text="the grid (points) test_accuracy is published on")
    delta = serializers.FloatField(allow_null=True, help_text="Δ = test − validation (points) of this model "
                                   "revision, from published figures (see /api/v1/contamination/)")
    categories = serializers.DictField(child=serializers.FloatField(), allow_null=True,
                                       help_text="open split: category slug -> accuracy (%)")
    order_spread = serializers.FloatField(allow_null=True, help_text="best minus worst answer order (points); "
                                          "open split, runs with 2+ orders")
    latency_s = serializers.FloatField(allow_null=True, help_text="batch-1 latency per question, median (s); "
                                       "server measurement")
    peak_memory_bytes = serializers.IntegerField(allow_null=True)
    energy_j_per_question = serializers.FloatField(allow_null=True)


class CellSerializer(_Figures):
    variant = serializers.CharField()
    level = serializers.CharField()
    key = serializers.CharField()
    name = serializers.CharField()


@extend_schema_field(CellSerializer(many=True))
class _CellsField(serializers.Field):
    """The cells as the selector built them (display rules applied, plain JSON values), passed through:
    serializing ~3,000 cells field by field was most of the time of a model's response."""

    def to_representation(self, value):
        return value


class ReproducibilitySerializer(serializers.Serializer):
    library_versions = serializers.DictField()
    template = serializers.CharField()
    template_hash = serializers.CharField()
    dataset_hash = serializers.CharField()
    seed = serializers.IntegerField()
    hardware = serializers.DictField()
    backend = serializers.CharField()
    compute_dtype = serializers.CharField(allow_null=True, help_text="what the engine computed in (not 'auto')")
    quantization = serializers.CharField(allow_null=True, help_text="the engine's quantization method, if any")
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
    results = _CellsField()
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


def _free(help_text=""):
    return serializers.DictField(help_text=help_text)


# lm-evaluation-harness's results JSON (hyphenated keys, hence an inline serializer); documentation only.
LmEvalResultsSerializer = inline_serializer("LmEvalResults", fields={
    "results": _free("task/group name -> {name, alias, sample_len, 'acc,none', 'acc_stderr,none'}; "
                     "sealed runs: the benchmark only, to 0.1 point"),
    "groups": serializers.DictField(required=False, help_text="category and benchmark groups (open splits only)"),
    "group_subtasks": _free(), "configs": _free(), "versions": _free(), "n-shot": _free(),
    "higher_is_better": _free(), "n-samples": _free(),
    "config": _free("model, model_args, model_revision, model_dtype, random_seed, ..."),
    "date": serializers.FloatField(), "model_name": serializers.CharField(),
    "mobile_mmlu_leaderboard": _free("where the figures come from: run, split, variant, template and dataset hashes"),
})
