from django.contrib import admin

from .admin_actions import ReadOnlyAdmin
from .models import AuditRecord


@admin.register(AuditRecord)
class AuditRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "target_type", "target_id", "reason")
    list_filter = ("action", "target_type")
    search_fields = ("reason", "target_id")
    readonly_fields = ("actor", "action", "target_type", "target_id", "reason", "details", "created_at")
