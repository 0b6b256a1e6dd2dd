"""Writes for teams and memberships."""

from django.db import transaction
from django.utils.text import slugify

from studio.accounts.models import Membership, Role, Team
from studio.core.audit import audit_record


@transaction.atomic
def team_create(*, actor, name: str) -> Team:
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
