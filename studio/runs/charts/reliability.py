"""Reliability charts: expected interruptions by cause, goodput against the checkpoint interval
(optimum, Young and Daly marked) and, when the engine ran it, the Monte Carlo spread of the
time to train. Every number is read from the typed reliability result (`ReliabilityResult`)."""

import plotly.graph_objects as go

from studio.runs.charts.common import titled_layout
from studio.runs.selectors import TypedResults

UNPLANNED_COLOUR = "#d92d20"
PLANNED_COLOUR = "#98a2b3"
CURVE_COLOUR = "#2e5aac"
YOUNG_COLOUR = "#9e77ed"
DALY_COLOUR = "#f79009"
CHOSEN_COLOUR = "#12b76a"


def _count(value: float) -> str:
    return f"{value:,.1f}" if value >= 1 else f"{value:.2g}"


def interruptions_figure(results: TypedResults) -> go.Figure | None:
    reliability = results.reliability
    if reliability is None:
        return None
    rows = reliability.breakdown
    if not rows:
        return None
    expected = reliability.expected_interruptions
    period = expected.get("period", "the run")
    days = expected.get("period_days")
    span = f"{days:.1f} days" if days is not None else period
    labels = [r.get("label") or r["component"] for r in rows]
    figure = go.Figure()
    figure.add_bar(
        y=labels,
        x=[r["expected_interruptions"] for r in rows],
        orientation="h",
        marker_color=[
            PLANNED_COLOUR if r["component"] == "planned" else UNPLANNED_COLOUR for r in rows
        ],
        text=[_count(r["expected_interruptions"]) for r in rows],
        textposition="outside",
        cliponaxis=False,
        hovertemplate="%{y}: %{x:.2f} interruptions<extra></extra>",
        showlegend=False,
    )
    detail = None
    if expected:
        detail = (
            f"over {period}, {span}: "
            f"{expected.get('total', 0):.1f} in all, {expected.get('unplanned', 0):.1f} unplanned "
            f"(red), {expected.get('planned', 0):.1f} planned (grey)"
        )
    figure.update_layout(
        titled_layout(
            "Expected job interruptions by cause",
            detail,
            xaxis={
                "title": {"text": f"interruptions (count over {span})"},
                "rangemode": "tozero",
            },
            yaxis={"title": {"text": "cause"}, "automargin": True, "autorange": "reversed"},
        )
    )
    return figure


def goodput_curve_figure(results: TypedResults) -> go.Figure | None:
    reliability = results.reliability
    if reliability is None:
        return None
    checkpoint = reliability.checkpoint or {}
    curve = reliability.goodput_vs_interval
    if not checkpoint or not curve:
        return None
    figure = go.Figure()
    figure.add_scatter(
        name="goodput",
        x=[p["interval_min"] for p in curve],
        y=[p["goodput"] for p in curve],
        mode="lines",
        line={"color": CURVE_COLOUR, "width": 2},
        hovertemplate="every %{x:.2f} min: goodput %{y:.3%}<extra></extra>",
    )
    optimum = checkpoint.get("goodput_optimum") or {}
    if optimum:
        figure.add_scatter(
            name=f"optimum: {optimum['interval_min']:.2f} min",
            x=[optimum["interval_min"]],
            y=[optimum["goodput"]],
            mode="markers",
            marker={"symbol": "star", "size": 14, "color": DALY_COLOUR},
            hovertemplate="optimum every %{x:.2f} min: goodput %{y:.3%}<extra></extra>",
        )
    chosen = checkpoint.get("chosen_interval_min")
    if chosen is not None and checkpoint.get("goodput_at_chosen") is not None:
        figure.add_scatter(
            name=f"chosen: {chosen:.2f} min",
            x=[chosen],
            y=[checkpoint["goodput_at_chosen"]],
            mode="markers",
            marker={
                "symbol": "circle-open",
                "size": 14,
                "color": CHOSEN_COLOUR,
                "line": {"width": 3},
            },
            hovertemplate="chosen every %{x:.2f} min: goodput %{y:.3%}<extra></extra>",
        )
    for key, label, colour, position in (
        ("young_interval_min", "Young", YOUNG_COLOUR, "top left"),
        ("daly_interval_min", "Daly", DALY_COLOUR, "top right"),
    ):
        value = checkpoint.get(key)
        if value is None:
            continue
        figure.add_vline(
            x=value,
            line_dash="dot",
            line_color=colour,
            annotation_text=f"{label} {value:.2f} min",
            annotation_position=position,
            annotation_font_color=colour,
        )
    detail = (
        f"write {checkpoint.get('write_time_s', 0):.1f} s to {checkpoint.get('tier', 'n/a')} · "
        f"restart {checkpoint.get('restart_time_min', 0):.1f} min · "
        f"MTTI {reliability.mtti_hours:.1f} h"
    )
    figure.update_layout(
        titled_layout(
            "Goodput vs checkpoint interval",
            detail,
            xaxis={"title": {"text": "checkpoint interval (min)"}},
            yaxis={"title": {"text": "goodput (% of wall-clock time)"}, "tickformat": ".2%"},
        )
    )
    return figure


def monte_carlo_figure(results: TypedResults) -> go.Figure | None:
    if results.reliability is None:
        return None
    monte_carlo = results.reliability.monte_carlo or {}
    bins = monte_carlo.get("histogram") or []
    if not monte_carlo.get("runs") or not bins:
        return None
    figure = go.Figure()
    figure.add_bar(
        name="simulated runs",
        x=[b["from_days"] for b in bins],
        y=[b["runs"] for b in bins],
        width=[b["to_days"] - b["from_days"] for b in bins],  # drawn bin width, not a result
        offset=0,
        marker={"color": "#9db9f5", "line": {"color": CURVE_COLOUR, "width": 0.5}},
        customdata=[[b["to_days"]] for b in bins],
        hovertemplate="%{x:.2f} to %{customdata[0]:.2f} days: %{y} runs<extra></extra>",
        showlegend=False,
    )
    for key, label, colour, position in (
        ("p10_days", "P10", "#667085", "top left"),
        ("p50_days", "P50", CURVE_COLOUR, "bottom left"),
        ("p90_days", "P90", "#667085", "top right"),
        ("closed_form_days", "closed form", DALY_COLOUR, "bottom right"),
    ):
        value = monte_carlo.get(key)
        if value is None:
            continue
        figure.add_vline(
            x=value,
            line_dash="dash" if key == "closed_form_days" else "dot",
            line_color=colour,
            annotation_text=f"{label} {value:.2f} d",
            annotation_position=position,
            annotation_font_color=colour,
        )
    detail = (
        f"{monte_carlo['runs']:,} simulated runs (seed {monte_carlo.get('seed')}) · mean "
        f"{monte_carlo.get('mean_days', 0):.2f} days vs closed form "
        f"{monte_carlo.get('closed_form_days', 0):.2f} days"
    )
    figure.update_layout(
        titled_layout(
            "Monte Carlo: wall-clock time to train",
            detail,
            xaxis={"title": {"text": "wall-clock time to train (days)"}},
            yaxis={"title": {"text": "simulated runs (count)"}, "rangemode": "tozero"},
        ),
        bargap=0,
    )
    return figure


SECTION = (
    "reliability",
    "Reliability",
    [
        ("reliability-interruptions", interruptions_figure),
        ("reliability-goodput-interval", goodput_curve_figure),
        ("reliability-monte-carlo", monte_carlo_figure),
    ],
)
