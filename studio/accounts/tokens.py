"""Token issue, lookup and revocation. The plaintext is shown once; only an HMAC is stored."""

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from studio.accounts.models import ApiToken, TokenKind
from studio.core.audit import audit_record, security_event

TOKEN_BYTES = 32
MAX_LIFETIME_DAYS = 365


def token_digest(key: str) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), key.encode(), hashlib.sha256).hexdigest()


@transaction.atomic
def token_create(
    *,
    actor,
    name: str,
    kind: str = TokenKind.API,
    project=None,
    lifetime_days: int = 90,
    write_enabled: bool = False,
) -> tuple[ApiToken, str]:
    if kind == TokenKind.FEED and project is None:
        raise ValueError("a feed token is bound to one project")
    if kind == TokenKind.FEED:
        write_enabled = False  # feeds only ever read
    lifetime_days = max(1, min(int(lifetime_days), MAX_LIFETIME_DAYS))
    key = f"cs_{kind}_{secrets.token_urlsafe(TOKEN_BYTES)}"
    token = ApiToken.objects.create(
        user=actor,
        name=name,
        kind=kind,
        project=project,
        key_prefix=key[:12],
        digest=token_digest(key),
        write_enabled=write_enabled,
        expires_at=timezone.now() + timedelta(days=lifetime_days),
    )
    if project is not None:
        audit_record(
            actor=actor,
            team=project.team,
            action="token.create",
            target=token,
            data={"kind": kind, "name": name},
        )
    else:
        security_event(actor=actor, action="token.create", data={"kind": kind, "name": name})
    return token, key


@transaction.atomic
def token_revoke(*, actor, token: ApiToken) -> None:
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    security_event(actor=actor, action="token.revoke", data={"token": token.pk})


def token_lookup(key: str, kind: str) -> ApiToken | None:
    """The live token of this kind for `key`, marking it used; None when unknown or dead."""
    if not key or not key.startswith(f"cs_{kind}_"):
        return None
    token = (
        ApiToken.objects.select_related("user", "project")
        .filter(
            digest=token_digest(key),
            kind=kind,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
            user__is_active=True,
        )
        .first()
    )
    if token is not None:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token


BEARER_KEYWORDS = ("bearer", "token")


class TokenHeaderInvalid(ValueError):
    pass


def bearer_token(authorization: str) -> ApiToken | None:
    """The live API token of an `Authorization: Bearer cs_api_...` (or `Token ...`) header;
    None without such a header; TokenHeaderInvalid for a malformed, unknown or dead one."""
    header = authorization.split()
    if not header or header[0].lower() not in BEARER_KEYWORDS:
        return None
    if len(header) != 2:
        raise TokenHeaderInvalid("Give one token after the keyword.")
    token = token_lookup(header[1], TokenKind.API)
    if token is None:
        raise TokenHeaderInvalid("Unknown, expired or revoked token.")
    return token
