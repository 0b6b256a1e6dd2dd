"""Side-by-side comparison of 2-4 designs: the headline table with the best value in each row
marked, built from each design's latest finished run."""

from models_engine import flatten_spec
from studio.reports.document import format_metric
from studio.runs.columns import Column
from studio.runs.headline import HEADLINE_METRICS, Metric


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
