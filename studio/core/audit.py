"""Audit rows are written inside the caller's transaction: if the change rolls back, so does
its audit row, and a change can never happen without one."""

from django.db import transaction

from studio.core.middleware import request_context
from studio.core.models import AuditEvent


def _project_of(target):
    """The project an audited object belongs to, if any (for the project's history page)."""
    for path in ((), ("project",), ("design", "project"), ("revision", "design", "project")):
        value = target
        for part in path:
            value = getattr(value, part, None)
        if value is not None and value._meta.label_lower == "designs.project":
            return value
    return None


def audit_record(*, actor, team, action: str, target, data: dict | None = None) -> AuditEvent:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("audit_record must run inside the transaction of the change")
    context = request_context.get() or {}
    return AuditEvent.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        team=team,
        project=_project_of(target),
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        data=data or {},
        request_id=context.get("request_id", ""),
        ip=context.get("ip") or None,
        user_agent=context.get("user_agent", ""),
    )


def security_event(*, actor, action: str, data: dict | None = None) -> AuditEvent:
    """Authentication events and denials (ASVS 16.3): no team, no target object."""
    context = request_context.get() or {}
    return AuditEvent.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        team=None,
        action=action,
        target_type="auth",
        target_id="",
        data=data or {},
        request_id=context.get("request_id", ""),
        ip=context.get("ip") or None,
        user_agent=context.get("user_agent", ""),
    )
