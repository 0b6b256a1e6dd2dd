"""Failed log-ins and lockouts in the audit log, rate-limited (issue 19).

Each failure used to write a row, so anyone could grow the audit table without limit. Now an
anonymous failure writes a row only if none was written for the same username and address in
the last AUDIT_LOGIN_FAILED_WINDOW_S seconds, and only while that address has fewer than
AUDIT_LOGIN_FAILED_PER_IP rows in the window: at most that many rows per address per window,
whatever is tried. The exact count of failures is in axes' AccessAttempt row."""

from datetime import timedelta

from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.utils import timezone

from studio.core.audit import security_event
from studio.core.middleware import request_context
from studio.core.models import AuditEvent

USERNAME_MAX = 150


def audit_throttled(action: str, username: str) -> AuditEvent | None:
    """A security event for an anonymous `action` on `username`, unless the window's quota for
    this username and address (or this address) is spent."""
    ip = (request_context.get() or {}).get("ip") or None
    since = timezone.now() - timedelta(seconds=settings.AUDIT_LOGIN_FAILED_WINDOW_S)
    recent = AuditEvent.objects.filter(action=action, ip=ip, created_at__gte=since)
    if recent.filter(data__username=username).exists():
        return None
    if recent.count() >= settings.AUDIT_LOGIN_FAILED_PER_IP:
        return None
    return security_event(actor=None, action=action, data={"username": username})


@receiver(user_login_failed)
def _login_failed(sender, credentials, request=None, **kwargs):
    # Never store the password; the username alone tells an admin what is being tried.
    audit_throttled("auth.login_failed", str(credentials.get("username", ""))[:USERNAME_MAX])


@receiver(user_locked_out)
def _locked_out(sender, request=None, username=None, ip_address=None, **kwargs):
    audit_throttled("auth.lockout", str(username or "")[:USERNAME_MAX])
