from django import forms
from django.contrib import admin

from leaderboard.core.admin_actions import AuditedModelAdmin, AuditReasonForm, PublishedModelAdmin, action_with_reason
from leaderboard.core.audit import audit_record
from leaderboard.core.cache_generation import results_changed
from leaderboard.hub.ids import HubIdError, validate_namespace

from .identity import canonical_name
from .models import CustomCodeAllowance, ModelEntry, NamespaceGrant, Submission


def _hide(submission, *, actor, reason):
    Submission.objects.filter(pk=submission.pk).update(hidden=True)
    results_changed()
    audit_record(actor=actor, action="hide", target=submission, reason=reason)


def _flag(model, *, actor, reason):
    ModelEntry.objects.filter(pk=model.pk).update(flagged=True, flag_reason=reason)
    results_changed()
    audit_record(actor=actor, action="flag", target=model, reason=reason)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("id", "model", "revision_sha", "precision", "model_type", "kind", "submitter", "hidden",
                    "created_at")
    list_filter = ("kind", "precision", "model_type", "hidden")
    search_fields = ("model__hub_id", "submitter__username")
    readonly_fields = [f.name for f in Submission._meta.fields]
    actions = [action_with_reason("hide_submission", "Hide", _hide)]

    def has_add_permission(self, request):
        return False


@admin.register(ModelEntry)
class ModelEntryAdmin(PublishedModelAdmin):
    """Edits and deletions are audited (who, when, the fields changed and why); hidden, flagged and params show on
    the leaderboard and model pages."""

    list_display = ("hub_id", "params", "size_class", "model_type", "license", "flagged", "hidden")
    list_filter = ("model_type", "flagged", "hidden")
    search_fields = ("hub_id",)
    actions = [action_with_reason("flag_model", "Flag", _flag)]


@admin.register(CustomCodeAllowance)
class CustomCodeAllowanceAdmin(admin.ModelAdmin):
    """Allow-list custom model code for one exact revision; the grant is audited."""

    list_display = ("hub_id", "revision_sha", "granted_by", "reason", "created_at")
    fields = ("hub_id", "revision_sha", "reason")

    def save_model(self, request, obj, form, change):
        obj.granted_by = request.user
        super().save_model(request, obj, form, change)
        audit_record(actor=request.user, action="allow_custom_code", target=obj, reason=obj.reason,
                     hub_id=obj.hub_id, revision_sha=obj.revision_sha)


class NamespaceGrantForm(AuditReasonForm):
    class Meta:
        model = NamespaceGrant
        fields = ("user", "namespace", "reason")

    def clean_namespace(self):
        try:
            return canonical_name(validate_namespace(self.cleaned_data["namespace"]))
        except HubIdError as exc:
            raise forms.ValidationError(str(exc)) from None


@admin.register(NamespaceGrant)
class NamespaceGrantAdmin(AuditedModelAdmin):
    """Let an account upload predictions under a namespace other than its username (an organisation's) and share
    that namespace's quota. Adds, changes and deletions are audited."""

    form = NamespaceGrantForm
    list_display = ("namespace", "user", "granted_by", "reason", "created_at")
    search_fields = ("namespace", "user__username")
    autocomplete_fields = ("user",)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.granted_by = request.user
        super().save_model(request, obj, form, change)
