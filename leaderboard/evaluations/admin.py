from django.contrib import admin

from .models import EvaluationRun


@admin.register(EvaluationRun)
class EvaluationRunAdmin(admin.ModelAdmin):
    list_display = ("id", "model_ref", "benchmark_version", "split", "shots", "status", "attempts", "created_at")
    list_filter = ("status", "split", "benchmark_version__benchmark")
    search_fields = ("model_ref",)
    readonly_fields = [f.name for f in EvaluationRun._meta.fields]

    def has_add_permission(self, request):
        return False
