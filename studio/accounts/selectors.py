"""Reads about membership. Every scoped query in the studio starts from these."""

from django.db.models import QuerySet

from studio.accounts.models import Membership, Role, Team


def teams_of(user) -> QuerySet[Team]:
    if not user.is_authenticated:
        return Team.objects.none()
    return Team.objects.filter(memberships__user=user)


def membership_of(user, team_id: int) -> Membership | None:
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, team_id=team_id).first()


def user_has_role(user, team_id: int, required: Role) -> bool:
    membership = membership_of(user, team_id)
    return membership is not None and membership.allows(required)
