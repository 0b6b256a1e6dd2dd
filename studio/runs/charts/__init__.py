"""Plotly figures drawn from engine results. Nothing here computes an engine number: every value
plotted is read from the typed results (`studio.runs.selectors.TypedResults`, the engines' own
result classes); these modules only choose how to show it (titles, units).

`run_sections(results)` gives one section per engine that produced results, each with its
figures, in the engines' order. A builder returns one figure, None (nothing to show), or for
per-site figures of a multi-site design a list of (site id, figure)."""

import hashlib
from collections.abc import Callable
from pathlib import Path

import plotly
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
from studio.runs.selectors import TypedResults

Builder = Callable[[TypedResults], go.Figure | list[tuple[str, go.Figure]] | None]

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
    ("network", "Network", []),  # tables only: studio/runs/sections/network.py
    facility.SECTION,
    ("physical", "Physical plan", []),  # elevations and tables: sections/physical.py
    storage.SECTION,
    reliability.SECTION,
    regions.SECTION,
    cost.SECTION,
    (
        "security",
        "Security posture",
        [
            ("security-severity", lambda r: security.findings_by_severity(r.security)),
            ("security-category", lambda r: security.findings_by_category(r.security)),
            ("security-frameworks", lambda r: security.framework_coverage(r.security)),
        ],
    ),
]


def built_figures(build: Builder, figure_id: str, results: TypedResults) -> list[tuple]:
    """(figure id, figure) of one builder: none, one, or one per site (`<id>-<site id>`)."""
    built = build(results)
    if built is None:
        return []
    if isinstance(built, list):
        return [(f"{figure_id}-{site_id}", figure) for site_id, figure in built]
    return [(figure_id, built)]


def run_sections(results: TypedResults) -> list[dict]:
    sections = []
    for key, title, builders in SECTIONS:
        if getattr(results, key) is None:
            continue
        figures = [
            figure_entry(entry_id, figure)
            for figure_id, build in builders
            for entry_id, figure in built_figures(build, figure_id, results)
        ]
        sections.append(
            {
                "key": key,
                "title": title,
                "figures": figures,
                "template": f"runs/sections/_{key}.html",
            }
        )
    return sections


def _charts_version() -> str:
    """A digest of this package's code and the plotly version: stored figures built by other
    chart code are rebuilt, never shown stale."""
    digest = hashlib.sha256(plotly.__version__.encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CHARTS_VERSION = _charts_version()
