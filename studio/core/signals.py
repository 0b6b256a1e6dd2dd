"""Log-ins, log-outs and failed log-ins go to the audit log (ASVS 16.3.1)."""

from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import receiver

from studio.core.audit import security_event


@receiver(user_logged_in)
def _logged_in(sender, request, user, **kwargs):
    security_event(actor=user, action="auth.login")


@receiver(user_logged_out)
def _logged_out(sender, request, user, **kwargs):
    if user is not None:
        security_event(actor=user, action="auth.logout")


# Failed log-ins are audited by studio.accounts.signals, rate-limited per username and address.
