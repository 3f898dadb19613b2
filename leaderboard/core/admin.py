from django.contrib import admin
from knox.models import AuthToken

from .admin_actions import ReadOnlyAdmin, action_with_reason
from .audit import audit_record
from .models import AuditRecord


@admin.register(AuditRecord)
class AuditRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "target_type", "target_id", "reason")
    list_filter = ("action", "target_type")
    search_fields = ("reason", "target_id")
    readonly_fields = ("actor", "action", "target_type", "target_id", "reason", "details", "created_at")


def _revoke(token, *, actor, reason):
    # The record names the account and the token's age, never its digest or key prefix.
    audit_record(actor=actor, action="revoke-api-token", target=token.user, reason=reason,
                 created=token.created.isoformat())
    token.delete()


# knox's own admin lists each token's digest and searches its key prefix: replaced by one that shows whose token it
# is and when it was made and expires, and can revoke it (audited). Tokens are made by their owners, shown once.
admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "created", "expiry")
    list_display_links = None
    list_select_related = ("user",)
    search_fields = ("user__username",)
    fields = readonly_fields = ("user", "created", "expiry")
    actions = [action_with_reason("revoke", "Revoke (the scripts using it stop working)", _revoke)]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request)  # the revoke action; no edit form

    def has_delete_permission(self, request, obj=None):
        return False  # revoking is the audited action above
