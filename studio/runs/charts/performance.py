"""Performance charts: memory per GPU against HBM."""

import plotly.graph_objects as go

from studio.runs.charts.common import base_layout

MEMORY_COLOURS = {
    "weights": "#2e5aac",
    "gradients": "#5b8def",
    "optimizer_states": "#9db9f5",
    "embedding_states": "#667085",
    "activations": "#f79009",
    "kv_cache": "#f04438",
    "other": "#98a2b3",
}


def memory_per_gpu_figure(results: dict) -> go.Figure | None:
    memory = results.get("performance", {}).get("memory")
    if not memory:
        return None
    breakdown = memory["per_gpu_gib"]
    stage = memory.get("stage", "busiest pipeline stage").split(" (")[0]
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
        base_layout(
            f"Memory per GPU vs HBM ({verdict}, headroom {memory['headroom_gib']:.1f} GiB)",
            yaxis={"title": {"text": "memory per GPU (GiB)"}, "rangemode": "tozero"},
            xaxis={"title": {"text": "GPU"}},
        ),
        barmode="stack",
    )
    return figure
