"""Plotly figures drawn from engine results. Nothing here computes an engine number: every value
plotted is read from the results; this module only chooses how to show it (titles, units)."""

import json
from collections.abc import Callable

import plotly.graph_objects as go

FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 13}
MEMORY_COLOURS = {
    "weights": "#2e5aac",
    "gradients": "#5b8def",
    "optimizer_states": "#9db9f5",
    "activations": "#f79009",
    "other": "#98a2b3",
}


def _layout(title: str, **axes) -> dict:
    return {
        "title": {"text": title},
        "font": FONT,
        "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        "legend": {"orientation": "h", "y": -0.2},
        **axes,
    }


def memory_per_gpu_figure(results: dict) -> go.Figure | None:
    memory = results.get("performance", {}).get("memory")
    if not memory:
        return None
    breakdown = memory["per_gpu_gib"]
    stage = "busiest pipeline stage"
    figure = go.Figure()
    for part, gib in breakdown.items():
        figure.add_bar(
            name=part.replace("_", " "),
            x=[stage],
            y=[gib],
            marker_color=MEMORY_COLOURS.get(part, "#667085"),
            hovertemplate="%{y:.2f} GiB<extra>" + part.replace("_", " ") + "</extra>",
        )
    capacity = memory["hbm_capacity_gib"]
    figure.add_hline(
        y=capacity,
        line_dash="dash",
        line_color="#b42318",
        annotation_text=f"HBM capacity {capacity:.0f} GiB",
        annotation_position="top left",
    )
    verdict = "fits" if memory["fits"] else "does NOT fit"
    figure.update_layout(
        _layout(
            f"Memory per GPU vs HBM ({verdict}, headroom {memory['headroom_gib']:.1f} GiB)",
            yaxis={"title": {"text": "memory per GPU (GiB)"}, "rangemode": "tozero"},
            xaxis={"title": {"text": "GPU"}},
        ),
        barmode="stack",
    )
    return figure


FIGURE_BUILDERS: list[tuple[str, Callable[[dict], go.Figure | None]]] = [
    ("memory-per-gpu", memory_per_gpu_figure),
]


def run_figures(results: dict) -> list[dict]:
    """[{id, script_id, spec}] for the template: spec is the figure as plain JSON data."""
    figures = []
    for figure_id, build in FIGURE_BUILDERS:
        figure = build(results)
        if figure is not None:
            figures.append(
                {
                    "id": figure_id,
                    "script_id": f"figure-{figure_id}",
                    "spec": json.loads(figure.to_json()),
                }
            )
    return figures
