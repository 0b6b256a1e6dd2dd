"""Each design's latest finished run and its headline: the per-design column of the project
page, the comparison and the designs export."""

from dataclasses import dataclass

from studio.runs.headline import headline_of
from studio.runs.selectors import latest_done_run


@dataclass
class Column:
    design: object
    revision: object
    run: object | None
    headline: dict


def design_columns(designs) -> list[Column]:
    columns = []
    for design in designs:
        revision = design.latest_revision
        run = latest_done_run(revision.runs) if revision is not None else None
        columns.append(Column(design=design, revision=revision, run=run, headline=headline_of(run)))
    return columns
