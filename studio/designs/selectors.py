"""Every read of projects and designs is scoped to the teams the user belongs to."""

from django.db.models import OuterRef, QuerySet, Subquery

from studio.designs.models import Design, DesignRevision, Project


def projects_visible_to(user) -> QuerySet[Project]:
    if not user.is_authenticated:
        return Project.objects.none()
    return Project.objects.filter(team__memberships__user=user).select_related("team")


def designs_visible_to(user) -> QuerySet[Design]:
    if not user.is_authenticated:
        return Design.objects.none()
    return Design.objects.filter(project__team__memberships__user=user).select_related(
        "project", "project__team"
    )


def latest_revision_number_subquery() -> Subquery:
    """The number of a design's latest revision (None: a draft), for `.annotate()` on a list."""
    latest = DesignRevision.objects.filter(design=OuterRef("pk")).order_by("-number")
    return Subquery(latest.values("number")[:1])


def live_accepted_risks(design: Design) -> list[dict]:
    """The design's accepted security risks not revoked, as the engine reads them."""
    return [r.as_engine_input() for r in design.accepted_risks.filter(revoked_at__isnull=True)]
