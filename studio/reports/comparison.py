"""Side-by-side comparison of 2-4 designs: the headline table with the best value in each row
marked, built from each design's latest finished run."""

from dataclasses import dataclass

from studio.runs.headline import HEADLINE_METRICS, Metric, headline_of
from studio.runs.models import RunStatus


@dataclass
class Column:
    design: object
    revision: object
    run: object | None
    headline: dict


def comparison_columns(designs) -> list[Column]:
    columns = []
    for design in designs:
        revision = design.latest_revision
        run = None
        if revision is not None:
            run = revision.runs.filter(status=RunStatus.DONE).order_by("-finished_at").first()
        columns.append(Column(design=design, revision=revision, run=run, headline=headline_of(run)))
    return columns


def _best_index(metric: Metric, values: list) -> int | None:
    numbers = [(v, i) for i, v in enumerate(values) if isinstance(v, int | float)]
    if len(numbers) < 2 or metric.better == "neutral":
        return None
    pick = min if metric.better == "lower" else max
    return pick(numbers)[1]


def comparison_rows(columns: list[Column]) -> list[dict]:
    rows = []
    for metric in HEADLINE_METRICS:
        values = [c.headline.get(metric.key) for c in columns]
        if all(v is None for v in values):
            continue
        best = _best_index(metric, values)
        rows.append(
            {
                "metric": metric,
                "cells": [{"value": v, "best": i == best} for i, v in enumerate(values)],
            }
        )
    return rows


def differing_fields(columns: list[Column]) -> list[dict]:
    """Spec fields whose value is not the same in every compared design: [{path, values}]."""
    from models_engine.spec import flatten_spec

    flats = [flatten_spec(c.revision.spec) if c.revision else {} for c in columns]
    paths = sorted(set().union(*flats))
    missing = object()
    rows = []
    for path in paths:
        values = [flat.get(path, missing) for flat in flats]
        if any(v != values[0] for v in values[1:]):
            rows.append({"path": path, "values": ["—" if v is missing else v for v in values]})
    return rows
