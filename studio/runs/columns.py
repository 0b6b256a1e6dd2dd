"""Each design's latest finished run and its headline: the per-design column of the project
page, the comparison and the designs export."""

from dataclasses import dataclass

from django.db.models import OuterRef, Subquery

from studio.designs.models import DesignRevision
from studio.runs.headline import headline_of
from studio.runs.selectors import latest_done_runs_of


@dataclass
class Column:
    design: object
    revision: object
    run: object | None
    headline: dict


def design_columns(designs) -> list[Column]:
    """One column per design, in a fixed number of queries (not two per design)."""
    designs = list(designs)
    revisions = _latest_revisions(designs)
    runs = latest_done_runs_of(r.pk for r in revisions.values())
    columns = []
    for design in designs:
        revision = revisions.get(design.pk)
        run = runs.get(revision.pk) if revision is not None else None
        columns.append(Column(design=design, revision=revision, run=run, headline=headline_of(run)))
    return columns


def _latest_revisions(designs) -> dict[int, DesignRevision]:
    """Each design's latest revision (the highest number, as `Design.latest_revision`)."""
    newest = (
        DesignRevision.objects.filter(design=OuterRef("design_id"))
        .order_by("-number")
        .values("pk")[:1]
    )
    revisions = DesignRevision.objects.filter(design__in=[d.pk for d in designs]).filter(
        pk=Subquery(newest)
    )
    return {revision.design_id: revision for revision in revisions}
