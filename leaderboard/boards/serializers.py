"""The mobile-vs-general and On-device APIs' query strings and rows (percent figures as the boards publish them)."""
from rest_framework import serializers

from leaderboard.benchmarks.shots import shots_field
from leaderboard.core.api import Repeated
from leaderboard.core.converters import MAX_ID
from leaderboard.results.query_serializers import VERSION_HELP, resolve_board

from . import ondevice, rank_comparison
from .selectors import GENERAL_BENCHMARKS, MOBILE_BENCHMARKS


class MobileVsGeneralQuerySerializer(serializers.Serializer):
    mobile = serializers.ChoiceField(choices=MOBILE_BENCHMARKS, default="mobile-mmlu")
    general = serializers.ChoiceField(choices=GENERAL_BENCHMARKS, default="mmlu-pro",
                                      help_text="the general-knowledge benchmark, on its open (validation) split; "
                                      "one not hosted here has no measured rows (the paper's remain)")
    split = serializers.ChoiceField(choices=["validation", "test"], default="validation",
                                    help_text="the mobile benchmark's split; test: its published (rounded) figures")
    shots = shots_field()
    include_flagged = serializers.BooleanField(default=False, help_text="also pair flagged models (the board page "
                                               "hides them unless asked)")


class MobileVsGeneralRowsQuerySerializer(MobileVsGeneralQuerySerializer):
    sort = serializers.ChoiceField(choices=[f"{d}{s}" for s in rank_comparison.SORTS for d in ("", "-")],
                                   default="mobile_rank", help_text="a leading '-' sorts descending; the paper's "
                                   "rows are sorted alike, after the measured ones")


def _side(prefix, benchmark_name):
    return {
        f"{prefix}_run_id": serializers.IntegerField(allow_null=True, help_text="null for the paper's rows"),
        f"{prefix}_accuracy": serializers.FloatField(help_text=f"percent on {benchmark_name}, as the board publishes "
                                                     "it (a sealed figure on its grid)"),
        f"{prefix}_ci95_low": serializers.FloatField(allow_null=True),
        f"{prefix}_ci95_high": serializers.FloatField(allow_null=True),
        f"{prefix}_grid": serializers.FloatField(allow_null=True, help_text="sealed split only: the grid (points)"),
        f"{prefix}_board_rank": serializers.IntegerField(allow_null=True, help_text="the board's rank (significance, "
                                                         "among its shown rows); null for the paper's rows"),
        f"{prefix}_rank": serializers.IntegerField(help_text="place among the rows of its source (measured, or the "
                                                   "paper's) by published accuracy; ties share the best place"),
    }


MobileVsGeneralRowSerializer = type("MobileVsGeneralRowSerializer", (serializers.Serializer,), {
    "source": serializers.CharField(help_text='"measured", or "paper, Table 2" (reported by the Mobile-MMLU paper, '
                                              "never ranked or correlated with measured rows)"),
    "hub_id": serializers.CharField(),
    "precision": serializers.CharField(),
    "flagged": serializers.BooleanField(help_text="flagged on either board"),
    **_side("mobile", "the mobile benchmark"), **_side("general", "the general benchmark"),
    "rank_change": serializers.IntegerField(help_text="general_rank − mobile_rank: positive when the model places "
                                            "higher on mobile than on general knowledge"),
})

ROW_COLUMNS = list(MobileVsGeneralRowSerializer().fields)


class CorrelationSerializer(serializers.Serializer):
    rho = serializers.FloatField(allow_null=True, help_text="Spearman's rho; null below 3 models or with a "
                                 "constant side")
    ci95_low = serializers.FloatField(allow_null=True)
    ci95_high = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(help_text="models paired")
    method = serializers.CharField()


class MobileVsGeneralSummarySerializer(serializers.Serializer):
    mobile = serializers.CharField()
    general = serializers.CharField()
    split = serializers.CharField()
    shots = serializers.IntegerField()
    measured = CorrelationSerializer(help_text="the models measured here")
    paper = CorrelationSerializer(help_text="the paper's Table 2 rows, apart")
    flagged_hidden = serializers.IntegerField(help_text="flagged models on both boards left out")


# --- the On-device board (ondevice.py) ---------------------------------------------------------------------------

_ONDEVICE_SORTS = [f"{d}{s}" for s in ondevice.sort_names() for d in ("-", "")]


class OnDeviceBoardQuerySerializer(serializers.Serializer):
    benchmark = serializers.SlugField(default="mobile-mmlu")
    split = serializers.CharField(default=ondevice.OPEN_SPLIT, help_text="validation only: " + ondevice.OPEN_SPLIT_NOTE)
    shots = shots_field()
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text=VERSION_HELP)
    quantization = Repeated(required=False, default=list, help_text="file type(s), any case (Q4_K_M, Q8_0...); "
                            "repeatable or comma-separated; one of the types on the board")
    fits_gb = serializers.FloatField(required=False, min_value=0, max_value=1e6, help_text=ondevice.FITS_NOTE)
    search = serializers.CharField(required=False, default="", max_length=200, help_text="part of a hub id or file "
                                   "name (the Pareto frontiers are unchanged)")
    include_flagged = serializers.BooleanField(default=False, help_text="also list flagged files, marked (flagged, "
                                               "possible_contamination, flagged_via): a file flagged itself or "
                                               "through its base model; hidden unless asked, as the board hides "
                                               "flagged models, and never on a Pareto frontier")
    sort = serializers.ChoiceField(choices=_ONDEVICE_SORTS, default=ondevice.DEFAULT_SORT, error_messages={
        "invalid_choice": "unknown sort {input!r}; allowed values: " + ", ".join(ondevice.sort_names())
                          + " (a leading '-' sorts descending)."})

    def validate_split(self, value):
        if value != ondevice.OPEN_SPLIT:
            raise serializers.ValidationError(f"{value!r}: {ondevice.OPEN_SPLIT_NOTE} Use split=validation or leave "
                                              "it out.")
        return value

    def validate(self, attrs):
        return resolve_board(attrs)


def _nullable(field, help_text=""):
    return field(allow_null=True, help_text=help_text)


class OnDeviceBoardRowSerializer(serializers.Serializer):
    hub_id = serializers.CharField(help_text="the GGUF model: a submitted file's repository and path, or "
                                             "<base hub id>@<QUANT> for a file this server made")
    revision = serializers.CharField()
    run_id = serializers.IntegerField(help_text="the file's open-split run")
    file = serializers.CharField(help_text="the file's name (its path in the repository)")
    file_sha256 = serializers.CharField(help_text="sha256 of the file (of its first part when split): its pin; "
                                                  "empty until a file made here is made")
    file_bytes = _nullable(serializers.IntegerField, "bytes, every part of a split file")
    quantization = serializers.CharField(help_text="the file's type, e.g. Q4_K_M")
    params = _nullable(serializers.IntegerField)
    flagged = serializers.BooleanField(help_text="flagged by an admin or by the contamination monitor, the file or "
                                       "the model it was made from or names as base (flagged_via)")
    possible_contamination = serializers.BooleanField(help_text="the contamination monitor's flag, of the file's "
                                                      "model or of its base model")
    flagged_via = serializers.CharField(help_text="the base model whose flag the file carries (empty: flagged on its "
                                        "own, or not flagged)")
    n = serializers.IntegerField(help_text="questions")
    correct = serializers.IntegerField()
    accuracy = _nullable(serializers.FloatField, "percent, the board's figure")
    ci95_low = _nullable(serializers.FloatField, "Wilson interval")
    ci95_high = _nullable(serializers.FloatField)
    base_hub_id = _nullable(serializers.CharField, "the 16-bit model the file was made from")
    base_run_id = _nullable(serializers.IntegerField, "the base model's 16-bit run of the same plan")
    compared = serializers.BooleanField(help_text="false: no 16-bit run to pair with (reason_code, reason)")
    reason_code = serializers.CharField(help_text="base-unknown, base-not-on-board, no-16-bit-run or settings-differ")
    reason = serializers.CharField()
    paired_n = _nullable(serializers.IntegerField, "questions paired with the 16-bit run")
    accuracy_change = _nullable(serializers.FloatField, "points, file − 16-bit, on the paired questions")
    change_ci95_low = _nullable(serializers.FloatField, "Newcombe's paired 95% interval (points)")
    change_ci95_high = _nullable(serializers.FloatField)
    flips = _nullable(serializers.IntegerField, "questions whose predicted letter changed")
    flip_rate = _nullable(serializers.FloatField, "percent of the paired questions")
    right_to_wrong_rate = _nullable(serializers.FloatField, "percent")
    wrong_to_right_rate = _nullable(serializers.FloatField, "percent")
    mean_kl = _nullable(serializers.FloatField, "nats: mean KL(16-bit ‖ file) of the letter distributions")
    prompt_tokens_per_s = _nullable(serializers.FloatField, "prompt processing (llama-bench's pp), tokens/s, mean; "
                                    "see profile_label")
    prompt_tokens_per_s_sd = _nullable(serializers.FloatField, "its standard deviation over the repetitions")
    gen_tokens_per_s = _nullable(serializers.FloatField, "generation (llama-bench's tg), tokens/s, mean")
    gen_tokens_per_s_sd = _nullable(serializers.FloatField)
    ttft_s = _nullable(serializers.FloatField, "time to first token of a median Mobile-MMLU prompt, seconds")
    peak_rss_bytes = _nullable(serializers.IntegerField, "peak resident memory of the profiling process, bytes")
    mmap = serializers.BooleanField(allow_null=True, help_text="the file was memory-mapped")
    profile_threads = _nullable(serializers.IntegerField, "CPU threads the profile used")
    profile_label = serializers.CharField(help_text='"measured on a server CPU with N threads: a proxy, not a phone" '
                                                    "(empty: not profiled)")
    profile_error = serializers.CharField(help_text="why the profile has no figures, when it failed")
    profile_reliable = serializers.BooleanField(
        allow_null=True, help_text="false: the profile stayed noisy after its re-measurements (profile_noise says "
                                   "why); its speeds are not placed on the speed frontier. null: no profile")
    profile_noise = serializers.CharField(help_text="why the profile cannot be trusted (empty when it can)")
    pareto_size = serializers.BooleanField(help_text="on the frontier of accuracy against file size among the rows "
                                                     "the filters keep: no file is both smaller and more accurate")
    pareto_speed = serializers.BooleanField(help_text="on the frontier of accuracy against generation speed: no "
                                                      "file is both faster and more accurate")
    scored_at = serializers.DateTimeField()


ONDEVICE_COLUMNS = list(OnDeviceBoardRowSerializer().fields)
