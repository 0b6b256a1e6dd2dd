"""Shared look of every results chart: font, margins, titles that say what is shown."""

import json

import plotly.graph_objects as go

from studio.core.inputs import plain_label

FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 13}
SEVERITY_COLOURS = {
    "critical": "#7a271a",
    "high": "#d92d20",
    "medium": "#f79009",
    "low": "#fdb022",
    "info": "#98a2b3",
}
STATUS_COLOURS = {
    "PASS": "#12b76a",
    "FAIL": "#d92d20",
    "ACCEPTED_RISK": "#9e77ed",
    "MANUAL": "#98a2b3",
    "NOT_APPLICABLE": "#d0d5dd",
}


def base_layout(title: str, **axes) -> dict:
    return {
        "title": {"text": title},
        "font": FONT,
        "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        "legend": {"orientation": "h", "y": -0.2},
        **axes,
    }


def figure_entry(figure_id: str, figure: go.Figure) -> dict:
    return {
        "id": figure_id,
        "script_id": f"figure-{figure_id}",
        "spec": json.loads(figure.to_json()),
    }


def titled_layout(main: str, detail: str | None = None, **axes) -> dict:
    """base_layout with a short title and, on a smaller second line, the figures behind it."""
    if not detail:
        return base_layout(main, **axes)
    layout = base_layout(
        f"{main}<br><span style='font-size:12px;color:#667085'>{detail}</span>", **axes
    )
    layout["margin"] = {**layout["margin"], "t": 85}
    return layout


def site_prefix(name: str, multi_site: bool) -> str:
    """Title prefix of a per-site figure: the site's name when the design has several."""
    return f"{plain_label(name)}: " if multi_site else ""


def per_site(figures: list[tuple[str, go.Figure | None]]):
    """One site's figure as is; several sites' as [(site id, figure)]; None if none drawn."""
    drawn = [(site_id, figure) for site_id, figure in figures if figure is not None]
    if not drawn:
        return None
    if len(figures) == 1:
        return drawn[0][1]
    return drawn
