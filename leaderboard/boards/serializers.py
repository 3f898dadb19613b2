"""The mobile-vs-general API's query strings and rows (percent figures as the boards publish them)."""
from rest_framework import serializers

from leaderboard.benchmarks.shots import shots_field

from . import rank_comparison
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
