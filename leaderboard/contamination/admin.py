"""Admin for the contamination monitor. δ₀ is set with a reason (audited), either typed in or as the mean Δ
of chosen reference models. Sealed figures appear only as the published Δ of published runs, never as raw test
counts; exact figures are for superusers, through the run admin's audited view."""
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse

from leaderboard.core.admin_actions import ReadOnlyAdmin, ReasonForm

from . import selectors, services
from .models import DeltaOffset, DeltaPoint, LadderDecision


@admin.action(description="Set δ₀ to the mean Δ of the selected reference models", permissions=["view"])
def set_delta0_from_reference(modeladmin, request, queryset):
    if not request.user.has_perm("contamination.add_deltaoffset"):
        modeladmin.message_user(request, "Setting δ₀ needs the 'add delta offset' permission.", messages.ERROR)
        return None
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        try:
            offset = services.delta_offset_from_reference(points=queryset.select_related("benchmark"),
                                                          actor=request.user, reason=form.cleaned_data["reason"])
        except services.Delta0Refused as exc:
            modeladmin.message_user(request, f"{exc.message} {exc.hint}", messages.ERROR)
            return None
        modeladmin.message_user(request, f"{offset} is now in force.", messages.SUCCESS)
        return None
    return TemplateResponse(request, "admin/action_reason.html", {
        **modeladmin.admin_site.each_context(request), "title": "Set δ₀ from reference models", "form": form,
        "targets": list(queryset), "skipped": 0, "action": "set_delta0_from_reference",
        "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME), "opts": modeladmin.model._meta})


@admin.register(DeltaPoint)
class DeltaPointAdmin(ReadOnlyAdmin):
    list_display = ("hub_id", "revision", "precision", "benchmark", "shots", "delta_points", "computed_at")
    list_filter = ("benchmark", "shots")
    list_select_related = ("benchmark",)
    search_fields = ("hub_id",)
    fields = ("hub_id", "revision", "precision", "benchmark", "shots", "validation_run", "test_run", "delta_points",
              "computed_at")
    readonly_fields = fields
    actions = [set_delta0_from_reference]

    def get_queryset(self, request):
        # Only points whose test figure is published: a withheld (Ladder) run's Δ would give staff its test score.
        # Exact figures are for superusers, through the run admin's audited view.
        return selectors.published_points(super().get_queryset(request))

    def changelist_view(self, request, extra_context=None):
        self._trees = {}  # one topic tree per benchmark per page, read afresh each time
        return super().changelist_view(request, extra_context)

    @admin.display(description="Δ (points)")
    def delta_points(self, obj):
        # As published (and as δ₀ from reference models uses it): reweighted validation, rounded test accuracy.
        trees = getattr(self, "_trees", None)
        if trees is None or obj.benchmark_id not in trees:
            tree = selectors.topic_tree(benchmark=obj.benchmark)
            if trees is not None:
                trees[obj.benchmark_id] = tree
        else:
            tree = trees[obj.benchmark_id]
        return f"{100 * selectors.published_delta(obj, tree=tree).delta:+.1f}"  # 0.1 pt: as on the board


class DeltaOffsetForm(forms.ModelForm):
    class Meta:
        model = DeltaOffset
        fields = ("benchmark", "benchmark_version", "shots", "value", "se", "reason")

    def clean_value(self):
        try:
            return services.delta0_check(self.cleaned_data["value"])
        except services.Delta0Refused as exc:
            raise forms.ValidationError(f"{exc.message} {exc.hint}", code=exc.code) from None

    def clean_se(self):
        se = self.cleaned_data.get("se") or 0.0
        try:
            services.delta0_check(0.0, se)
        except services.Delta0Refused as exc:
            raise forms.ValidationError(f"{exc.message} {exc.hint}", code=exc.code) from None
        return se

    def clean(self):
        data = super().clean()
        version, benchmark = data.get("benchmark_version"), data.get("benchmark")
        if version is not None and benchmark is not None and version.benchmark_id != benchmark.pk:
            self.add_error("benchmark_version", "This version belongs to another benchmark.")
        return data


@admin.register(DeltaOffset)
class DeltaOffsetAdmin(admin.ModelAdmin):
    form = DeltaOffsetForm
    list_display = ("benchmark", "benchmark_version", "shots", "value", "se", "set_by", "set_at", "reason")
    list_select_related = ("benchmark", "set_by")
    list_filter = ("benchmark",)

    def save_model(self, request, obj, form, change):
        # Through the service: the audit record is written with the row.
        d = form.cleaned_data
        saved = services.delta_offset_set(benchmark=d["benchmark"], benchmark_version=d.get("benchmark_version"),
                                          shots=d["shots"], value=d["value"], se=d.get("se") or 0.0,
                                          actor=request.user, reason=d["reason"])
        obj.pk = saved.pk

    def has_change_permission(self, request, obj=None):
        # History: a new value is a new row, so existing rows never change; the list needs the permission.
        return obj is None and super().has_change_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(LadderDecision)
class LadderDecisionAdmin(ReadOnlyAdmin):
    list_display = ("display", "shown_run", "candidate_run", "n", "moved", "decided_at")
    list_select_related = ("display__benchmark", "shown_run__benchmark_version__benchmark",
                           "candidate_run__benchmark_version__benchmark")
    fields = ("display", "shown_run", "candidate_run", "n", "moved", "decided_at")
    readonly_fields = fields
