"""Explicit input/output serializers of the results API (percent figures; sealed rules already applied)."""
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from .selectors import SIZE_CLASSES


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
    version = serializers.IntegerField(min_value=1, required=False,
                                       help_text="benchmark version number (default: the current one)")


class TopicsQuerySerializer(serializers.Serializer):
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
    rank = serializers.IntegerField(help_text="1 + models significantly better (two-proportion z-test, 95%)")
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
