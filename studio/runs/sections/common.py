"""Pieces several sections share: a site's heading, the studio's own links."""

from django.urls import reverse

from studio.runs.sections.blocks import Heading, Inline, span, text
from studio.runs.sections.format import count


def small(value: str) -> Inline:
    return span(value, "muted small")


def site_heading(section: str, site_id: str, site_name: str, gpus: int) -> Heading:
    """`Ashburn, Virginia (ashburn, 1,024 GPUs)` above a site's own figures."""
    return Heading(
        text(site_name, " ", small(f"({site_id}, {count(gpus)} GPUs)")),
        id=f"{section}-site-{site_id}",
    )


def export_url(run, table_name: str) -> str:
    """The CSV download of one of the run's tables."""
    return reverse("export-run-table", args=[run.pk, table_name, "csv"])


def accept_risk_url(run) -> str:
    return reverse("design-accept-risk", args=[run.revision.design.pk])
