"""Side-by-side comparison of 2-4 designs: the headline table with the best value in each row
marked, built from each design's latest finished run."""

from models_engine import flatten_spec
from studio.reports.document import format_metric
from studio.runs.columns import Column
from studio.runs.headline import HEADLINE_METRICS, Metric
from studio.runs.sections.performance import stack_summary
from studio.runs.selectors import typed_results


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
                "cells": [
                    {"value": v, "text": format_metric(v, metric), "best": i == best}
                    for i, v in enumerate(values)
                ],
            }
        )
    return rows


def stack_cells(columns: list[Column]) -> list[str] | None:
    """Each design's software stack as its performance result states it (the stack the GPU's
    published runs used where the spec says auto, with the options the step was modelled
    with), in the results page's words; None when no design has a training result."""
    cells = []
    for column in columns:
        typed = typed_results(column.run)
        stack = typed.performance.software_stack if typed and typed.performance else None
        cells.append("—" if stack is None else stack_summary(stack))
    return None if all(cell == "—" for cell in cells) else cells


def differing_fields(columns: list[Column]) -> list[dict]:
    """Spec fields whose value is not the same in every compared design: [{path, values}]."""
    flats = [flatten_spec(c.revision.spec) if c.revision else {} for c in columns]
    paths = sorted(set().union(*flats))
    missing = object()
    rows = []
    for path in paths:
        values = [flat.get(path, missing) for flat in flats]
        if any(v != values[0] for v in values[1:]):
            rows.append({"path": path, "values": ["—" if v is missing else v for v in values]})
    return rows
