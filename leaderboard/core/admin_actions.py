"""Admin actions that ask for a reason and leave an audit record (DESIGN §9)."""
from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse


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
