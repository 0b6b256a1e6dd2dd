"""Rate limit on password-reset requests: per client address and per address asked for, in a
sliding window, kept in the database so that every web process and host shares it.

Neither limit depends on whether an account exists, so neither answer is an oracle: a client
over its own limit is told so (429); a request for an address that was asked for too often is
answered like any other ("if an account exists, a mail is on its way") and sends nothing, so
nobody can flood someone's inbox. Only admitted requests are stored, and rows older than the
window are deleted as new ones come, so anonymous clients cannot grow the table without limit."""

import enum
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from studio.accounts.models import PasswordResetRequest


class ResetVerdict(enum.Enum):
    SEND = "send"
    CLIENT_OVER_LIMIT = "client over limit"  # answered 429
    ADDRESS_OVER_LIMIT = "address over limit"  # answered as usual, no mail


def email_digest(email: str) -> str:
    """A keyed digest of the address (case-insensitive), never the address itself."""
    normalised = email.strip().lower()
    return salted_hmac("studio.accounts.reset_throttle", normalised, algorithm="sha256").hexdigest()


@transaction.atomic
def reset_request_admit(*, ip: str, email: str) -> ResetVerdict:
    """Whether to send the reset mail for this request; records it when it is sent."""
    window = timedelta(seconds=settings.PASSWORD_RESET_WINDOW_S)
    since = timezone.now() - window
    PasswordResetRequest.objects.filter(created_at__lt=since).delete()
    recent = PasswordResetRequest.objects.filter(created_at__gte=since)
    if ip and recent.filter(ip=ip).count() >= settings.PASSWORD_RESET_LIMIT_PER_CLIENT:
        return ResetVerdict.CLIENT_OVER_LIMIT
    digest = email_digest(email)
    if recent.filter(email_digest=digest).count() >= settings.PASSWORD_RESET_LIMIT_PER_ADDRESS:
        return ResetVerdict.ADDRESS_OVER_LIMIT
    PasswordResetRequest.objects.create(ip=ip, email_digest=digest)
    return ResetVerdict.SEND
