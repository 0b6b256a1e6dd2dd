"""Performance charts: step time breakdown, memory per GPU against HBM, collectives, scaling.
Every number is read from the typed performance and scaling results."""

import plotly.graph_objects as go

from studio.runs.charts.common import LOG_TICKS, base_layout, titled_layout
from studio.runs.selectors import TypedResults

MEMORY_COLOURS = {
    "weights": "#2e5aac",
    "gradients": "#5b8def",
    "optimizer_states": "#9db9f5",
    "embedding_states": "#667085",
    "activations": "#f79009",
    "output_logits": "#7a5af8",
    "kv_cache": "#f04438",
    "other": "#98a2b3",
}


def memory_per_gpu_figure(results: TypedResults) -> go.Figure | None:
    if results.performance is None:
        return None
    memory = results.performance.memory
    breakdown = memory.per_gpu_gib
    stage = memory.stage.split(" (")[0]
    figure = go.Figure()
    for part, gib in breakdown.items():
        figure.add_bar(
            name=part.replace("_", " "),
            x=[stage],
            y=[gib],
            marker_color=MEMORY_COLOURS.get(part, "#667085"),
            hovertemplate="%{y:.2f} GiB<extra>" + part.replace("_", " ") + "</extra>",
        )
    capacity = memory.hbm_capacity_gib
    figure.add_hline(
        y=capacity,
        line_dash="dash",
        line_color="#b42318",
        annotation_text=f"HBM capacity {capacity:.0f} GiB",
        annotation_position="top left",
    )
    verdict = "fits" if memory.fits else "does NOT fit"
    figure.update_layout(
        base_layout(
            f"Memory per GPU vs HBM ({verdict}, headroom {memory.headroom_gib:.1f} GiB)",
            yaxis={"title": {"text": "memory per GPU (GiB)"}, "rangemode": "tozero"},
            xaxis={"title": {"text": "GPU"}},
        ),
        barmode="stack",
    )
    return figure


STEP_PARTS = {
    "compute": ("compute", "#2e5aac"),
    "recompute": ("recompute", "#5b8def"),
    "kernel_launch_gaps": ("kernel launch gaps", "#84adff"),
    "stack_overhead": ("stack overhead (sync, stragglers, host time)", "#b2ccff"),
    "tp_comm_exposed": ("exposed TP comm", "#f79009"),
    "cp_comm_exposed": ("exposed CP comm", "#fdb022"),
    "ep_comm_exposed": ("exposed EP comm", "#f04438"),
    "pp_comm_exposed": ("exposed PP comm", "#9e77ed"),
    "pipeline_bubble": ("pipeline bubble", "#d0d5dd"),
    "dp_comm_exposed": ("exposed DP comm", "#12b76a"),
    "offload_exposed": ("exposed activation offload", "#66c61c"),
    "wan_comm_exposed": ("exposed WAN comm", "#7a271a"),
    "optimizer": ("optimizer step", "#667085"),
    "io": ("I/O stall", "#344054"),
}


def step_time_figure(results: TypedResults) -> go.Figure | None:
    performance = results.performance
    if performance is None or not performance.training or not performance.breakdown_s:
        return None
    breakdown = performance.breakdown_s
    figure = go.Figure()
    for key, seconds in breakdown.items():
        if not seconds:
            continue
        label, colour = STEP_PARTS.get(key, (key.replace("_", " "), "#98a2b3"))
        figure.add_bar(
            name=label,
            y=["training step"],
            x=[seconds],
            orientation="h",
            marker_color=colour,
            hovertemplate="%{x:.3f} s<extra>" + label + "</extra>",
        )
    figure.update_layout(
        base_layout(
            f"Step time {performance.step_time_s:.2f} s: where it goes "
            f"(MFU {performance.mfu * 100:.1f} %)",
            xaxis={"title": {"text": "time per optimizer step (s)"}},
            yaxis={"title": {"text": ""}},
            height=300,
        ),
        barmode="stack",
        # Stacked bars list their legend reversed, one entry per row; -0.3 of this short plot
        # lands on the x-axis title. Below it, in the bars' order.
        legend={"traceorder": "normal", "y": -0.6},
    )
    return figure


LEVEL_TITLES = {"nvlink_domain": "NVLink domain", "scale_out": "scale-out fabric", "wan": "WAN"}


def collectives_figure(results: TypedResults) -> go.Figure | None:
    """Communication time per step by hierarchy level, split by what it is for."""
    if results.performance is None:
        return None
    collectives = results.performance.collectives or {}
    rows = [
        (LEVEL_TITLES.get(level, level), item)
        for level, block in collectives.items()
        for item in block.get("collectives", [])
        if item.get("time_per_step_s")
    ]
    if not rows:
        return None
    figure = go.Figure()
    for purpose in dict.fromkeys(item["purpose"] for _, item in rows):
        subset = [(level, item) for level, item in rows if item["purpose"] == purpose]
        figure.add_bar(
            name=purpose,
            x=[level for level, _ in subset],
            y=[item["time_per_step_s"] for _, item in subset],
            customdata=[
                [item["operation"], item["algorithm"], item["busbw_gb_per_s"]] for _, item in subset
            ],
            hovertemplate="%{y:.3f} s per step<br>%{customdata[0]} (%{customdata[1]}), "
            "busbw %{customdata[2]:.0f} GB/s<extra>" + purpose + "</extra>",
        )
    figure.update_layout(
        titled_layout(
            "Collective time per step by hierarchy level",
            "before overlap with compute",
            xaxis={"title": {"text": "level of the network hierarchy"}},
            yaxis={"title": {"text": "communication time per step (s)"}},
        ),
        barmode="stack",
    )
    return figure


def scaling_figure(results: TypedResults) -> go.Figure | None:
    if results.scaling is None:
        return None
    points = [p for p in results.scaling.points if p.time_to_train_failure_free_days is not None]
    if len(points) < 2:
        return None
    figure = go.Figure()
    figure.add_scatter(
        x=[p.gpu_count for p in points],
        y=[p.time_to_train_failure_free_days for p in points],
        mode="lines+markers",
        name="time to train",
        line_color="#2e5aac",
        customdata=[[None if p.mfu is None else p.mfu * 100] for p in points],
        hovertemplate="%{x} GPUs: %{y:.1f} days (MFU %{customdata[0]:.1f} %)<extra></extra>",
    )
    design = next((p for p in points if p.is_design), None)
    if design:
        figure.add_scatter(
            x=[design.gpu_count],
            y=[design.time_to_train_failure_free_days],
            mode="markers",
            name="this design",
            marker={"size": 14, "color": "#f79009", "symbol": "star"},
        )
    figure.update_layout(
        titled_layout(
            "Failure-free time to train vs GPU count",
            "data parallelism scaled, batch as designed",
            xaxis={"title": {"text": "GPUs (count, log scale)"}, **LOG_TICKS},
            yaxis={"title": {"text": "time to train (days, log)"}, **LOG_TICKS},
        )
    )
    return figure
