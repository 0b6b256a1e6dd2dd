from django.contrib import admin

from studio.core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: the audit log is append-only."""

    list_display = ["created_at", "actor", "action", "target_type", "target_id", "team", "ip"]
    list_filter = ["action", "team"]
    search_fields = ["action", "target_id", "request_id"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
