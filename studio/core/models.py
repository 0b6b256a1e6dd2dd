"""Cross-cutting records: the audit log."""

from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """Who did what to which object, written in the same transaction as the change."""

    team = models.ForeignKey(
        "accounts.Team", on_delete=models.CASCADE, related_name="audit_events", null=True
    )
    project = models.ForeignKey(
        "designs.Project", on_delete=models.SET_NULL, related_name="audit_events", null=True
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    action = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64)
    data = models.JSONField(default=dict, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target_type}"
