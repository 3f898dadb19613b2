from django.contrib import admin

from leaderboard.core.admin_actions import action_with_reason

from . import services
from .models import DeviceReport, DeviceTest, ReportStatus


class DeviceTestInline(admin.TabularInline):
    model = DeviceTest
    extra = 0
    can_delete = False
    readonly_fields = [f.name for f in DeviceTest._meta.fields]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(DeviceReport)
class DeviceReportAdmin(admin.ModelAdmin):
    """Reports are written by their owners only; staff hide a report or accept an outlier (each asks why and is
    audited)."""

    list_display = ("id", "model", "file_name", "make", "device_model", "ram_gb", "tg_tokens_per_s",
                    "pp_tokens_per_s", "status", "hidden", "owner", "created_at")
    list_filter = ("status", "hidden", "matched_by", "charging")
    search_fields = ("model__hub_id", "make", "device_model", "owner__username", "file_sha256")
    readonly_fields = [f.name for f in DeviceReport._meta.fields]
    inlines = [DeviceTestInline]
    actions = [action_with_reason("hide_device_report", "Hide", services.report_hide,
                                  applies=lambda r: not r.hidden),
               action_with_reason("accept_device_report", "Accept outlier (count it in medians)",
                                  services.report_accept, applies=lambda r: r.status == ReportStatus.OUTLIER)]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
