"""Plotly figures drawn from engine results. Nothing here computes an engine number: every value
plotted is read from the results; these modules only choose how to show it (titles, units).

`run_sections(results)` gives one section per engine that produced results, each with its
figures, in the engines' order."""

from collections.abc import Callable

import plotly.graph_objects as go

from studio.runs.charts import (
    cost,
    fabric,
    facility,
    performance,
    regions,
    reliability,
    security,
    storage,
)
from studio.runs.charts.common import figure_entry

Builder = Callable[[dict], go.Figure | None]

SECTIONS: list[tuple[str, str, list[tuple[str, Builder]]]] = [
    (
        "performance",
        "Performance",
        [
            ("step-time", performance.step_time_figure),
            ("memory-per-gpu", performance.memory_per_gpu_figure),
            ("collectives", performance.collectives_figure),
            ("scaling", performance.scaling_figure),
        ],
    ),
    fabric.SECTION,
    facility.SECTION,
    storage.SECTION,
    reliability.SECTION,
    regions.SECTION,
    cost.SECTION,
    (
        "security",
        "Security posture",
        [
            ("security-severity", lambda r: security.findings_by_severity(r["security"])),
            ("security-category", lambda r: security.findings_by_category(r["security"])),
            ("security-frameworks", lambda r: security.framework_coverage(r["security"])),
        ],
    ),
]


def run_sections(results: dict) -> list[dict]:
    sections = []
    for key, title, builders in SECTIONS:
        if not results.get(key):
            continue
        figures = []
        for figure_id, build in builders:
            figure = build(results)
            if figure is not None:
                figures.append(figure_entry(figure_id, figure))
        sections.append(
            {
                "key": key,
                "title": title,
                "figures": figures,
                "template": f"runs/sections/_{key}.html",
            }
        )
    return sections


def run_figures(results: dict) -> list[dict]:
    """Every figure of every section, in order."""
    return [figure for section in run_sections(results) for figure in section["figures"]]
