"""Admin actions that ask for a reason and leave an audit record (ARCHITECTURE §9), and ``AuditedModelAdmin``:
every add, change and delete through the admin's forms leaves one too."""
import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import models
from django.forms.models import model_to_dict
from django.template.response import TemplateResponse

from .audit import audit_record
from .cache_generation import results_changed


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written only by services (audit, Δ points, Ladder decisions): listed, never edited here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), min_length=3,
                             help_text="Recorded in the audit log with your name and the time.")


def action_with_reason(name, description, perform, *, applies=lambda obj: True):
    """An admin action: first a page asking why, then `perform(obj, actor=, reason=)` on each selected object."""

    def action(modeladmin, request, queryset):
        targets = [obj for obj in queryset if applies(obj)]
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for obj in targets:
                perform(obj, actor=request.user, reason=form.cleaned_data["reason"])
            modeladmin.message_user(request, f"{description}: {len(targets)} done.", messages.SUCCESS)
            return None
        return TemplateResponse(request, "admin/action_reason.html", {
            **modeladmin.admin_site.each_context(request),
            "title": description, "form": form, "targets": targets, "skipped": queryset.count() - len(targets),
            "action": name, "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "opts": modeladmin.model._meta,
        })

    action.__name__ = name
    return admin.action(description=description, permissions=["change"])(action)


AUDIT_VALUE_LIMIT = 500  # characters of one old or new value kept in an audit record


class AuditReasonForm(forms.ModelForm):
    """The base form of an ``AuditedModelAdmin``: the model's fields and why the change is made."""

    audit_reason = forms.CharField(
        label="Reason for this change", required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Recorded in the audit log with your name, the time and the fields you changed.")


def _audit_value(value):
    """A field value as JSON for the audit record: objects by primary key, long texts cut."""
    if isinstance(value, models.Model):
        return value.pk
    if isinstance(value, models.QuerySet):
        return [item.pk for item in value]
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        value = str(value)
    if isinstance(value, str) and len(value) > AUDIT_VALUE_LIMIT:
        return value[:AUDIT_VALUE_LIMIT] + "…"
    return value


class AuditedModelAdmin(admin.ModelAdmin):
    """Each save and delete through this admin leaves an AuditRecord in the admin's transaction: who (the
    user), when, what (the object and, for a change, each changed field with its old and new value; for a
    deletion the values it had) and why (the reason typed on the form, else the fields changed)."""

    form = AuditReasonForm
    audit_action_prefix = "admin"

    def get_fields(self, request, obj=None):
        fields = [name for name in super().get_fields(request, obj) if name != "audit_reason"]
        editable = self.has_change_permission(request, obj) if obj is not None else self.has_add_permission(request)
        return [*fields, "audit_reason"] if editable else fields

    def save_model(self, request, obj, form, change):
        changed = {name: {"old": _audit_value(form.initial.get(name)), "new": _audit_value(form.cleaned_data.get(name))}
                   for name in form.changed_data if name != "audit_reason"}
        super().save_model(request, obj, form, change)
        verb = "changed" if change else "added"
        reason = (form.cleaned_data.get("audit_reason") or "").strip() or (
            f"{verb} in the admin ({', '.join(changed) or 'no field changed'}); no reason given")
        audit_record(actor=request.user, action=f"{self.audit_action_prefix}_{'change' if change else 'add'}",
                     target=obj, reason=reason, object=str(obj)[:200], changed=changed)

    def _audit_delete(self, request, obj):
        values = {name: _audit_value(value) for name, value in model_to_dict(obj).items()}
        audit_record(actor=request.user, action=f"{self.audit_action_prefix}_delete", target=obj,
                     reason="deleted in the admin", object=str(obj)[:200], values=values)

    def delete_model(self, request, obj):
        self._audit_delete(request, obj)  # first: the object has no primary key afterwards
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self._audit_delete(request, obj)
        super().delete_queryset(request, queryset)


class PublishedModelAdmin(AuditedModelAdmin):
    """An audited admin of rows the public pages show (names, order, hidden, flagged): each save or delete starts a
    new cache generation, so cached pages and API responses are recomputed."""

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        results_changed()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        results_changed()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        results_changed()
