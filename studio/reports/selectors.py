"""Reads of reports, scoped to the user's teams. The PDF bytes are deferred everywhere except
the download."""

from django.db.models import QuerySet

from studio.reports.models import Report
from studio.runs.models import EngineRun, RunStatus


def reports_visible_to(user) -> QuerySet[Report]:
    if not user.is_authenticated:
        return Report.objects.none()
    return (
        Report.objects.filter(project__team__memberships__user=user)
        .select_related("project", "project__team", "author")
        .defer("pdf")
    )


def previous_report(report: Report) -> Report | None:
    """The project's report made just before this one (for the diff section)."""
    return (
        Report.objects.filter(project_id=report.project_id, created_at__lte=report.created_at)
        .exclude(pk=report.pk)
        .filter(pk__lt=report.pk)
        .defer("pdf")
        .order_by("-created_at", "-pk")
        .first()
    )


def covered_run(cover: dict) -> EngineRun | None:
    """The finished run a report's cover was copied from, without its results (for the figures
    stored on it); None once it is gone."""
    return (
        EngineRun.objects.filter(
            pk=cover.get("run_id"), spec_hash=cover.get("spec_hash"), status=RunStatus.DONE
        )
        .only("pk", "status", "figures")
        .first()
    )
