from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from leaderboard.core.admin_actions import ReasonForm, action_with_reason
from leaderboard.scoring.rescore import run_rescore

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
        action_with_reason("rescore", "Re-score from stored predictions", run_rescore,
                           applies=lambda run: run.status == RunStatus.SUCCEEDED),
        action_with_reason("hide", "Hide from the leaderboard", admin_services.run_set_hidden),
        action_with_reason("flag", "Flag", admin_services.run_set_flagged),
    ]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "exact_figures"] if request.user.is_superuser else fields

    @admin.display(description="exact figures")
    def exact_figures(self, obj):
        return format_html('<a href="{}">Show (superusers only, audited)</a>',
                           reverse("admin:evaluations_evaluationrun_exact", args=[obj.pk]))

    def get_urls(self):
        return [path("<id:pk>/exact-figures/", self.admin_site.admin_view(self.exact_figures_view),
                     name="evaluations_evaluationrun_exact"), *super().get_urls()]

    def exact_figures_view(self, request, pk):
        """The one route to a sealed run's exact figures: superusers, with a reason, audited."""
        if not request.user.is_superuser:
            raise PermissionDenied
        run = get_object_or_404(EvaluationRun, pk=pk)
        form = ReasonForm(request.POST if request.method == "POST" else None)
        figures = (admin_services.run_exact_figures(run, actor=request.user, reason=form.cleaned_data["reason"])
                   if form.is_valid() else None)
        return TemplateResponse(request, "admin/exact_figures.html", {
            **self.admin_site.each_context(request), "title": f"Exact figures of run {run.pk} ({run.split})",
            "form": form, "figures": figures, "opts": self.model._meta})
