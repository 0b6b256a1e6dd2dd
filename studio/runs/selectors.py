"""Reads of engine runs, scoped to the user's teams."""

from django.db.models import QuerySet

from studio.runs.models import EngineRun


def runs_visible_to(user) -> QuerySet[EngineRun]:
    if not user.is_authenticated:
        return EngineRun.objects.none()
    return EngineRun.objects.filter(
        revision__design__project__team__memberships__user=user
    ).select_related("revision", "revision__design", "revision__design__project")
