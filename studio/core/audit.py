"""Audit rows are written inside the caller's transaction: if the change rolls back, so does
its audit row, and a change can never happen without one."""

from django.db import transaction

from studio.core.models import AuditEvent


def audit_record(*, actor, team, action: str, target, data: dict | None = None) -> AuditEvent:
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("audit_record must run inside the transaction of the change")
    return AuditEvent.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        team=team,
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        data=data or {},
    )
