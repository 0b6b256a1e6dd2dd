"""Writes for teams and memberships."""

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from studio.accounts.models import Membership, Role, Team
from studio.core.audit import audit_record, security_event
from studio.core.errors import DomainError, NameTaken, unique_name


class TeamNameTaken(NameTaken):
    def __init__(self, name: str = ""):
        super().__init__(f"A team named “{name}” already exists.")


@transaction.atomic
def team_create(*, actor, name: str) -> Team:
    with unique_name(TeamNameTaken(name)):
        team = Team.objects.create(name=name, slug=slugify(name)[:120] or "team")
    Membership.objects.create(team=team, user=actor, role=Role.OWNER)
    audit_record(actor=actor, team=team, action="team.create", target=team)
    return team


@transaction.atomic
def membership_set(*, actor, team: Team, user, role: Role) -> Membership:
    membership, _ = Membership.objects.update_or_create(
        team=team, user=user, defaults={"role": role}
    )
    audit_record(
        actor=actor, team=team, action="membership.set", target=membership, data={"role": role}
    )
    return membership


class MembershipChangeRefused(DomainError):
    pass


@transaction.atomic
def membership_remove(*, actor, team: Team, user) -> None:
    membership = Membership.objects.select_for_update().filter(team=team, user=user).first()
    if membership is None:
        return
    owners = Membership.objects.filter(team=team, role=Role.OWNER)
    if membership.role == Role.OWNER and owners.count() == 1:
        raise MembershipChangeRefused("A team keeps at least one owner.")
    audit_record(
        actor=actor,
        team=team,
        action="membership.remove",
        target=membership,
        data={"user": user.get_username()},
    )
    membership.delete()
    # Feed and API tokens of a removed member stop reaching this team's projects at once:
    # scoping is by membership, and feed tokens bound to the team's projects are revoked.
    user.api_tokens.filter(project__team=team, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def membership_change_role(*, actor, team: Team, user, role: Role) -> Membership:
    membership = Membership.objects.filter(team=team, user=user).first()
    if membership is None:
        raise MembershipChangeRefused("That user is not in the team.")
    if (
        membership.role == Role.OWNER
        and role != Role.OWNER
        and not Membership.objects.filter(team=team, role=Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    ):
        raise MembershipChangeRefused("A team keeps at least one owner.")
    return membership_set(actor=actor, team=team, user=user, role=role)


@transaction.atomic
def password_changed(*, user, via: str) -> int:
    """After a password change or reset: every API and feed token of the user is revoked (a
    leaked token must not outlive the password), and the change is audited. Other sessions end
    by themselves (Django checks each session's password hash); the view keeps the current one."""
    revoked = user.api_tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    security_event(
        actor=user, action="auth.password_change", data={"via": via, "tokens_revoked": revoked}
    )
    return revoked
