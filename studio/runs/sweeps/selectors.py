"""Reads of sweeps, scoped to the user's teams."""

from django.db.models import QuerySet

from studio.runs.models import Sweep


def sweeps_visible_to(user) -> QuerySet[Sweep]:
    if not user.is_authenticated:
        return Sweep.objects.none()
    return Sweep.objects.filter(design__project__team__memberships__user=user).select_related(
        "design", "design__project", "revision"
    )


def sweeps_of_design(design) -> QuerySet[Sweep]:
    return Sweep.objects.filter(design=design).defer("summary", "definition")
