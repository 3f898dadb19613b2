"""Explicit input/output serializers of the results API (percent figures; sealed rules already applied)."""
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from leaderboard.evaluations import display

from . import selectors


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


class ReproducibilitySerializer(serializers.Serializer):
    # What a run was computed with (an EvaluationRun).
    library_versions = serializers.SerializerMethodField()
    template = serializers.CharField()
    template_hash = serializers.CharField()
    protocol = serializers.CharField(help_text="a publisher's own evaluation protocol (e.g. mmlu-pro-cot; template "
                                               "and template_hash then name it and its hash), '' for the "
                                               "leaderboard's own settings")
    dataset_hash = serializers.CharField()
    seed = serializers.IntegerField()
    hardware = serializers.SerializerMethodField()
    backend = serializers.CharField()
    compute_dtype = serializers.CharField(source="resolved_load.dtype", allow_null=True,
                                          help_text="what the engine computed in (not 'auto')")
    quantization = serializers.CharField(source="resolved_load.quantization", allow_null=True,
                                         help_text="the engine's quantization method, if any")
    mode = serializers.CharField()
    use_chat_template = serializers.BooleanField()

    @extend_schema_field(serializers.DictField())
    def get_library_versions(self, run):
        return run.library_versions or {}

    @extend_schema_field(serializers.DictField())
    def get_hardware(self, run):
        return run.hardware or {}


class ModelRunSerializer(serializers.Serializer):
    # A RunResult of a model's page, with its run's provenance.
    run_id = serializers.IntegerField()
    benchmark = serializers.CharField(source="benchmark.slug")
    benchmark_version = serializers.IntegerField(source="benchmark_version.number")
    split = serializers.CharField()
    shots = serializers.IntegerField()
    variants = serializers.ListField(child=serializers.CharField(), source="run.variants")
    primary_variant = serializers.CharField()
    revision = serializers.CharField()
    precision = serializers.CharField()
    scored_at = serializers.DateTimeField()
    breakdown_note = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()
    efficiency = serializers.SerializerMethodField(
        help_text="measured on the evaluating server; a GGUF run's `ondevice`: its file's cost profile, measured on a "
                  "server CPU with N threads (its `label`): a proxy, not a phone")
    reproducibility = ReproducibilitySerializer(source="run")

    @extend_schema_field(serializers.CharField(allow_blank=True))
    def get_breakdown_note(self, result):
        return display.SEALED_BREAKDOWN_NOTE if display.is_sealed(result.split) else ""

    @extend_schema_field(CellSerializer(many=True))
    def get_results(self, result):
        """The cells as the selector built them (display rules applied, plain JSON values), passed through:
        serializing ~3,000 cells field by field was most of the time of a model's response."""
        return selectors.result_cells(result=result)

    @extend_schema_field(serializers.DictField())
    def get_efficiency(self, result):
        return result.run.efficiency or {}


class ModelDetailSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    params = serializers.IntegerField(allow_null=True)
    size_class = serializers.CharField(allow_null=True)
    model_type = serializers.CharField()
    license = serializers.CharField()
    architecture = serializers.CharField()
    gguf_file = serializers.CharField(help_text="a GGUF entry's file in its repository; empty for a checkpoint")
    quantization = serializers.CharField(help_text="a GGUF entry's file type (Q4_K_M, Q8_0, F16...)")
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


class OnDeviceRowSerializer(serializers.Serializer):
    """A GGUF file's open-split run against its base model's 16-bit run (results/quantization_truth.py)."""

    hub_id = serializers.CharField(help_text="the GGUF model: repository id and file path")
    flagged = serializers.BooleanField(help_text="the file, or the model it was made from or names as base, is "
                                       "flagged (flagged_via names that model)")
    possible_contamination = serializers.BooleanField()
    flagged_via = serializers.CharField()
    gguf_file = serializers.CharField()
    quantization = serializers.CharField(help_text="the file's type, e.g. Q4_K_M")
    run_id = serializers.IntegerField()
    benchmark = serializers.CharField()
    benchmark_version = serializers.IntegerField()
    split = serializers.CharField(help_text="open splits only: the sealed test split is never compared per question")
    shots = serializers.IntegerField()
    protocol = serializers.CharField()
    variant = serializers.CharField(help_text="the answer order compared (the run's primary one)")
    base_hub_id = serializers.CharField(allow_null=True, help_text="the model the file was made from, as its header "
                                                                   "(general.base_model) or card names it")
    base_run_id = serializers.IntegerField(allow_null=True, help_text="the base model's 16-bit run of the same plan")
    base_precision = serializers.CharField(allow_null=True, help_text="that run's precision: bfloat16 or float16, or "
                                                                      "auto/float32 (the checkpoint's own dtype)")
    compared = serializers.BooleanField()
    reason_code = serializers.CharField(help_text="when not compared: base-unknown, base-not-on-board, "
                                                  "no-16-bit-run or settings-differ")
    reason = serializers.CharField(help_text="when not compared, why, in words")
    n = serializers.IntegerField(allow_null=True, help_text="questions paired")
    base_accuracy = serializers.FloatField(allow_null=True, help_text="percent, the 16-bit run on the paired questions")
    accuracy = serializers.FloatField(allow_null=True, help_text="percent, the file on the paired questions")
    ci95_low = serializers.FloatField(allow_null=True, help_text="Wilson interval of the file's accuracy")
    ci95_high = serializers.FloatField(allow_null=True)
    accuracy_change = serializers.FloatField(allow_null=True, help_text="points, file − 16-bit")
    change_ci95_low = serializers.FloatField(allow_null=True, help_text="Newcombe's paired score interval (method 10)")
    change_ci95_high = serializers.FloatField(allow_null=True)
    flips = serializers.IntegerField(allow_null=True, help_text="questions whose predicted letter changed")
    flip_rate = serializers.FloatField(allow_null=True, help_text="percent of the paired questions")
    right_to_wrong = serializers.IntegerField(allow_null=True)
    right_to_wrong_rate = serializers.FloatField(allow_null=True, help_text="percent")
    wrong_to_right = serializers.IntegerField(allow_null=True)
    wrong_to_right_rate = serializers.FloatField(allow_null=True, help_text="percent")
    kl_n = serializers.IntegerField(allow_null=True, help_text="pairs with letter probabilities (logprobs mode)")
    mean_kl = serializers.FloatField(allow_null=True, help_text="nats: mean KL(16-bit ‖ file) of the letter "
                                                                "distributions, each renormalised over its letters")


class OnDeviceSerializer(serializers.Serializer):
    hub_id = serializers.CharField()
    flagged = serializers.BooleanField(help_text="flagged by an admin or the contamination monitor, or through its "
                                       "base model (flagged_via)")
    possible_contamination = serializers.BooleanField()
    flagged_via = serializers.CharField()
    role = serializers.CharField(help_text='"file": a GGUF model, compared with its base; "base": a model GGUF '
                                           'files were made from; "": neither')
    note = serializers.CharField()
    rows = OnDeviceRowSerializer(many=True)
