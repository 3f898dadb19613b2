from django.contrib import admin

from leaderboard.core.admin_actions import action_with_reason

from . import admin_services
from .models import EvaluationRun, RunStatus


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "model_ref", "benchmark_version", "split", "status", "failure_code", "attempts",
                    "hidden", "flagged", "rerun_of", "created_at")
    list_filter = ("status", "split", "failure_code", "hidden", "flagged", "benchmark_version__benchmark")
    search_fields = ("model_ref",)
    # Per-question predictions and probe outcomes are never shown here (PredictionChunk, probe_rows).
    exclude = ("summary", "probe_rows")
    readonly_fields = [f.name for f in EvaluationRun._meta.fields if f.name not in ("summary", "probe_rows")]
    actions = [
        action_with_reason("rerun", "Re-run (new run row)", admin_services.run_rerun),
        action_with_reason("rerun_failed", "Re-run failed runs only", admin_services.run_rerun,
                           applies=lambda run: run.status == RunStatus.FAILED),
        action_with_reason("cancel", "Cancel", admin_services.run_cancel),
        action_with_reason("rescore", "Re-score from stored predictions", admin_services.run_rescore,
                           applies=lambda run: run.status == RunStatus.SUCCEEDED),
        action_with_reason("hide", "Hide from the leaderboard", admin_services.run_set_hidden),
        action_with_reason("flag", "Flag", admin_services.run_set_flagged),
    ]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
