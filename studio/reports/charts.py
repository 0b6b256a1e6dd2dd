"""Comparison charts drawn from the designs' engine results (no number is recomputed here)."""

import hashlib
import json
from pathlib import Path

import plotly.graph_objects as go

from studio.runs.charts.common import FONT, LOG_TICKS, anchored_title, money_axis, short_name
from studio.runs.selectors import typed_results

PALETTE = ["#2e5aac", "#f79009", "#12b76a", "#9e77ed"]


def _layout(title: str, **extra) -> dict:
    title_layout, top = anchored_title(title)
    return {
        "title": title_layout,
        "font": FONT,
        "margin": {"l": 70, "r": 30, "t": top, "b": 60},
        **extra,
    }


def metric_bars(rows: list[dict], names: list[str]) -> list[dict]:
    """One bar chart per headline metric, designs side by side."""
    figures = []
    for row in rows:
        metric = row["metric"]
        values = [cell["value"] for cell in row["cells"]]
        if sum(v is not None for v in values) < 1 or metric.better == "neutral":
            continue
        values, unit = _as_shown_in_the_table(values, metric.unit)
        figure = go.Figure(
            go.Bar(
                x=[short_name(n) for n in names],
                customdata=names,
                y=values,
                marker_color=PALETTE[: len(names)],
                hovertemplate="%{customdata}: %{y:.4g} " + unit + "<extra></extra>",
            )
        )
        better = "lower is better" if metric.better == "lower" else "higher is better"
        figure.update_layout(
            _layout(
                f"{metric.label} by design ({better})",
                yaxis={"title": {"text": f"{metric.label} ({unit})"}, "rangemode": "tozero"},
                xaxis={"title": {"text": "design"}},
            )
        )
        figures.append({"id": f"bar-{metric.key}", "spec": json.loads(figure.to_json())})
    return figures


def _as_shown_in_the_table(values: list, unit: str) -> tuple[list, str]:
    """A fraction in % as the comparison table prints it (MFU 48.6 %, not 0.486)."""
    if unit != "fraction":
        return values, unit
    return [None if v is None else v * 100 for v in values], "%"


def radar(rows: list[dict], names: list[str]) -> dict | None:
    """Each metric normalised so the best design scores 1 (lower-is-better metrics inverted)."""
    axes, series = [], [[] for _ in names]
    for row in rows:
        values = [c["value"] for c in row["cells"]]
        if row["metric"].better == "neutral":
            continue
        if any(not isinstance(v, int | float) or v <= 0 for v in values):
            continue
        best = min(values) if row["metric"].better == "lower" else max(values)
        axes.append(row["metric"].label)
        for i, value in enumerate(values):
            score = best / value if row["metric"].better == "lower" else value / best
            series[i].append(score)
    if len(axes) < 3:
        return None
    figure = go.Figure()
    for i, name in enumerate(names):
        figure.add_trace(
            go.Scatterpolar(
                r=[*series[i], series[i][0]],
                theta=[*axes, axes[0]],
                name=short_name(name),
                hovertext=name,
                line={"color": PALETTE[i], "width": 2},
                marker={"size": 5},
                mode="lines+markers",
                fill="toself" if len(names) <= 2 else "none",
                fillcolor=PALETTE[i],
                opacity=0.45 if len(names) <= 2 else 0.9,
            )
        )
    figure.update_layout(
        _layout(
            "Normalised scores (1 = best of the designs compared)",
            polar={
                "radialaxis": {"range": [0, 1.05], "tickvals": [0.5, 1], "showline": False},
                "angularaxis": {"tickfont": {"size": 11}},
            },
            legend={"orientation": "h", "yanchor": "top", "y": -0.12, "x": 0},
            margin={"l": 90, "r": 90, "t": 70, "b": 80},
        )
    )
    return {"id": "radar", "spec": json.loads(figure.to_json())}


def cost_vs_time(columns, names: list[str]) -> dict | None:
    points = [(c.headline.get("time_to_train_days"), c.headline.get("tco_usd")) for c in columns]
    if any(x is None or y is None for x, y in points):
        return None
    figure = go.Figure()
    for i, (x, y) in enumerate(points):
        figure.add_scatter(
            x=[x],
            y=[y],
            mode="markers",  # named in the legend: a text label ran off the plot's edge
            marker={"size": 14, "color": PALETTE[i]},
            name=short_name(names[i]),
            customdata=[names[i]],
            hovertemplate="%{customdata}<br>%{x:.1f} days, $%{y:,.0f}<extra></extra>",
        )
    figure.update_layout(
        _layout(
            "TCO vs time to train (lower-left is better)",
            xaxis={"title": {"text": "time to train (days)"}},
            yaxis={"title": {"text": "TCO, NPV (USD)"}, **money_axis([y for _, y in points])},
        )
    )
    return {"id": "cost-vs-time", "spec": json.loads(figure.to_json())}


def scaling_curves(columns, names: list[str]) -> dict | None:
    """Time to train against GPU count for each design, overlaid."""
    figure = go.Figure()
    drawn = 0
    for i, column in enumerate(columns):
        typed = typed_results(column.run)
        points = typed.scaling.points if typed and typed.scaling else []
        points = [p for p in points if p.time_to_train_failure_free_days is not None]
        if len(points) < 2:
            continue
        drawn += 1
        figure.add_scatter(
            x=[p.gpu_count for p in points],
            y=[p.time_to_train_failure_free_days for p in points],
            mode="lines+markers",
            name=short_name(names[i]),
            line_color=PALETTE[i],
        )
    if not drawn:
        return None
    figure.update_layout(
        _layout(
            "Failure-free time to train vs GPU count, per design (data parallelism scaled)",
            xaxis={"title": {"text": "GPUs (count, log scale)"}, **LOG_TICKS},
            yaxis={"title": {"text": "time to train (days, log)"}, **LOG_TICKS},
        )
    )
    return {"id": "scaling", "spec": json.loads(figure.to_json())}


# The compare figures are stored per runs and names (studio.runs.figures): a change to this
# module's code must rebuild them, not serve figures drawn by the old code.
COMPARE_CHARTS_VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
