"""Admin for MRScore jobs: read-only provenance and state, and the topic rows and summary as published (open
splits only). Per-question rows are not listed: the sealed split's rows exist and must not show."""
from django.contrib import admin

from .models import MRScoreJob, TopicMRScore


class TopicMRScoreInline(admin.TabularInline):
    model = TopicMRScore
    fields = ("topic", "n", "n_scored", "n_unparsable", "mean", "ci_low", "ci_high")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(MRScoreJob)
class MRScoreJobAdmin(admin.ModelAdmin):
    list_display = ("id", "benchmark_version", "judge_model", "judge_kind", "status", "progress_done",
                    "progress_total", "created_at", "finished_at")
    list_filter = ("status", "judge_kind", "benchmark_version__benchmark")
    search_fields = ("judge_model",)
    readonly_fields = ("benchmark_version", "splits", "judge_kind", "judge_model", "judge_revision", "judge_endpoint",
                       "judge_settings", "judge_details", "judge_is_demo", "prompt_version", "prompt_hash",
                       "chunk_size", "plan_hash", "status", "attempts", "lease_expires_at", "progress_done",
                       "progress_total", "failure_reason", "summary", "created_at", "started_at", "finished_at")
    inlines = [TopicMRScoreInline]

    def has_add_permission(self, request):
        return False  # jobs come from the mrscore command
