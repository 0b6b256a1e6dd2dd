"""Team invitations: an owner invites an email address with a role; the link (a key stored only
as a keyed hash) lets the invitee create an account, or use the one they have, and join the
team with that role. One use; refused once expired, used or revoked. Every step is audited."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from studio.accounts.models import ROLE_RANK, Invitation, Membership, Role, Team
from studio.accounts.selectors import user_has_role
from studio.accounts.tokens import token_digest
from studio.core.audit import audit_record
from studio.core.errors import DomainError

KEY_BYTES = 32
KEY_MAX_LENGTH = 100


class InvitationRefused(DomainError):
    pass


class InvitationInvalid(DomainError):
    """Unknown, expired, used or revoked: one answer for all, so a link tells nothing."""

    def __init__(self):
        super().__init__("This invitation link is not valid any more. Ask for a new one.")


def pending_invitations(team: Team) -> QuerySet[Invitation]:
    return team.invitations.filter(
        accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).select_related("invited_by")


@transaction.atomic
def invitation_create(
    *, actor, team: Team, email: str, role: Role, days: int | None = None
) -> tuple[Invitation, str]:
    if not user_has_role(actor, team.pk, Role.OWNER):
        raise InvitationRefused("Only owners invite.")
    days = days or settings.INVITATION_DEFAULT_DAYS
    days = max(1, min(int(days), settings.INVITATION_MAX_DAYS))
    key = secrets.token_urlsafe(KEY_BYTES)
    invitation = Invitation.objects.create(
        team=team,
        email=email.strip().lower(),
        role=Role(role),
        digest=token_digest(f"invitation:{key}"),
        invited_by=actor,
        expires_at=timezone.now() + timedelta(days=days),
    )
    audit_record(
        actor=actor,
        team=team,
        action="invitation.create",
        target=invitation,
        data={"email": invitation.email, "role": invitation.role, "days": days},
    )
    return invitation, key


@transaction.atomic
def invitation_revoke(*, actor, invitation: Invitation) -> None:
    if not user_has_role(actor, invitation.team_id, Role.OWNER):
        raise InvitationRefused("Only owners revoke invitations.")
    if invitation.accepted_at or invitation.revoked_at:
        return
    invitation.revoked_at = timezone.now()
    invitation.save(update_fields=["revoked_at"])
    audit_record(
        actor=actor,
        team=invitation.team,
        action="invitation.revoke",
        target=invitation,
        data={"email": invitation.email},
    )


def _pending(queryset, key: str):
    if not key or len(key) > KEY_MAX_LENGTH:
        return None
    return queryset.filter(
        digest=token_digest(f"invitation:{key}"),
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).first()


def invitation_for_key(key: str) -> Invitation | None:
    """The pending invitation of a link's key; None when unknown, expired, used or revoked."""
    return _pending(Invitation.objects.select_related("team", "invited_by"), key)


@transaction.atomic
def invitation_accept(*, user, key: str) -> Membership:
    """Join the invitation's team with its role (an existing member keeps a higher role)."""
    invitation = _pending(Invitation.objects.select_for_update().select_related("team"), key)
    if invitation is None:
        raise InvitationInvalid()
    membership = Membership.objects.filter(team=invitation.team, user=user).first()
    role = Role(invitation.role)
    if membership is None:
        membership = Membership.objects.create(team=invitation.team, user=user, role=role)
    elif ROLE_RANK[role] > ROLE_RANK[Role(membership.role)]:
        membership.role = role
        membership.save(update_fields=["role"])
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = user
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    audit_record(
        actor=user,
        team=invitation.team,
        action="invitation.accept",
        target=invitation,
        data={"email": invitation.email, "role": membership.role, "user": user.get_username()},
    )
    return membership


class UsernameTaken(DomainError):
    field = "username"

    def __init__(self):
        super().__init__("That username is taken.")


@transaction.atomic
def invitation_sign_up(*, key: str, username: str, password: str):
    """A new account for the invitee (with the invitation's email), joined to the team."""
    invitation = invitation_for_key(key)
    if invitation is None:
        raise InvitationInvalid()
    user_model = get_user_model()
    if user_model.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    try:
        with transaction.atomic():
            user = user_model.objects.create_user(
                username=username, email=invitation.email, password=password
            )
    except IntegrityError as exc:
        raise UsernameTaken() from exc
    invitation_accept(user=user, key=key)
    return user
