"""A finished sweep's charts (Plotly), drawn from the engine's summary: the Pareto scatter of
the first two objectives over a sample of feasible variants, parallel coordinates of the swept
inputs against the objectives, and each objective's sensitivity to each swept input."""

import plotly.graph_objects as go

import models_engine
from studio.runs.charts.common import base_layout, figure_entry, money_axis
from studio.runs.sweeps.tables import format_input, format_metric, metric_label, ordered_inputs

FRONT_COLOUR = "#d92d20"
CLOUD_COLOUR = "#98a2b3"


def _axis_metrics(summary: dict) -> tuple[str, str]:
    metrics = [models_engine.SWEEP_OBJECTIVES[o][0] for o in summary["objectives"]]
    if len(metrics) == 1:
        other = "time_to_train_days" if metrics[0] != "time_to_train_days" else "tco_usd"
        metrics.append(other)
    return metrics[0], metrics[1]


def _axis(metric: str, values: list) -> dict:
    axis = {"title": {"text": metric_label(metric)}}
    if models_engine.SWEEP_METRICS[metric][1].startswith("USD"):
        axis.update(money_axis(values))
    return axis


def _hover_template(summary: dict, x: str, y: str) -> str:
    """One hover template per trace (the labels once); each point carries only its values
    (`_hover_values`), which keeps a million-variant sweep's page small."""
    lines = ["variant %{customdata[0]}"]
    lines += [
        f"{axis['path']} = %{{customdata[{n + 1}]}}" for n, axis in enumerate(summary["axes"])
    ]
    count = len(summary["axes"])
    lines += [
        f"{metric_label(x)}: %{{customdata[{count + 1}]}}",
        f"{metric_label(y)}: %{{customdata[{count + 2}]}}",
    ]
    return "<br>".join(lines) + "<extra></extra>"


def _hover_values(summary: dict, variant: dict, x: str, y: str) -> list:
    inputs = [
        format_input(value, path) for path, value in ordered_inputs(summary, variant["inputs"])
    ]
    return [
        variant["index"],
        *inputs,
        format_metric(x, variant["metrics"][x]),
        format_metric(y, variant["metrics"][y]),
    ]


def pareto_figure(summary: dict) -> go.Figure | None:
    x, y = _axis_metrics(summary)
    cloud = [v for v in summary["sample"] if None not in (v["metrics"][x], v["metrics"][y])]
    front = [v for v in summary["pareto"] if v["metrics"][x] is not None]
    if not front:
        return None
    figure = go.Figure()
    for name, variants, style in (
        ("feasible variants (sample)", cloud, {"color": CLOUD_COLOUR, "size": 5, "opacity": 0.5}),
        ("Pareto front", front, {"color": FRONT_COLOUR, "size": 9}),
    ):
        figure.add_trace(
            go.Scatter(
                name=name,
                x=[v["metrics"][x] for v in variants],
                y=[v["metrics"][y] for v in variants],
                mode="markers",
                marker=style,
                customdata=[_hover_values(summary, v, x, y) for v in variants],
                hovertemplate=_hover_template(summary, x, y),
            )
        )
    every = cloud + front
    figure.update_layout(
        **base_layout(
            "Pareto front of the feasible variants",
            xaxis=_axis(x, [v["metrics"][x] for v in every]),
            yaxis=_axis(y, [v["metrics"][y] for v in every]),
        ),
        height=480,
    )
    return figure


PARALLEL_LINES = 400
BIN_COLOURS = ("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725")


def _dimension(label: str, values: list, metric: str | None = None) -> dict:
    """One vertical axis: each value's position in 0..1, and the tick labels to draw."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        low, high = min(values), max(values)
        span = (high - low) or 1.0
        text = (lambda v: format_metric(metric, v)) if metric else _tick
        return {
            "label": label,
            "positions": [(v - low) / span for v in values],
            "ticks": [(0.0, text(low)), (1.0, text(high))],
        }
    categories = sorted({str(v) for v in values})
    step = 1 / max(1, len(categories) - 1)
    return {
        "label": label,
        "positions": [categories.index(str(v)) * step for v in values],
        "ticks": [(i * step, c) for i, c in enumerate(categories)],
    }


def _wrap(label: str) -> str:
    """An axis name on short lines (underscores and spaces break)."""
    words = label.replace("_", "_ ").split(" ")
    lines, line = [], ""
    for word in words:
        if line and len(line) + len(word) > 12:
            lines.append(line)
            line = ""
        line += word if line.endswith("_") or not line else " " + word
    return "<br>".join([*lines, line])


def _short_label(metric: str) -> str:
    return models_engine.SWEEP_METRICS[metric][2]


def _tick(value: float) -> str:
    return f"{value:,.4g}" if abs(value) < 1e5 else f"{value:,.3g}"


def parallel_figure(summary: dict) -> go.Figure | None:
    """Parallel coordinates drawn as SVG lines (Plotly's parcoords needs WebGL, which many
    browsers and every PDF renderer lack): one line per variant across the swept inputs and
    the objectives, coloured by the first objective in five bands."""
    variants = (summary["pareto"] + summary["sample"])[:PARALLEL_LINES]
    if not variants:
        return None
    metrics = [models_engine.SWEEP_OBJECTIVES[o][0] for o in summary["objectives"]]
    variants = [v for v in variants if all(v["metrics"][m] is not None for m in metrics)]
    if not variants:
        return None
    dimensions = [
        _dimension(axis["path"].split(".")[-1], [v["inputs"][axis["path"]] for v in variants])
        for axis in summary["axes"]
    ] + [_dimension(_short_label(m), [v["metrics"][m] for v in variants], m) for m in metrics]
    colour_key = [v["metrics"][metrics[0]] for v in variants]
    order = sorted(range(len(variants)), key=colour_key.__getitem__)
    count = len(BIN_COLOURS)
    bands = [order[len(order) * b // count : len(order) * (b + 1) // count] for b in range(count)]
    figure = go.Figure()
    xs = list(range(len(dimensions)))
    for band, rows in enumerate(bands):
        if not rows:
            continue
        x, y = [], []
        for row in rows:
            x += [*xs, None]
            y += [*(d["positions"][row] for d in dimensions), None]
        low = colour_key[rows[0]]
        figure.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines",
                line={"color": BIN_COLOURS[band], "width": 1},
                opacity=0.5,
                name=f"{_short_label(metrics[0])} from {format_metric(metrics[0], low)}",
                hoverinfo="skip",
            )
        )
    # Each axis is named once, by the x tick text (a second label drawn as an annotation
    # landed on top of it and on its neighbours').
    for index, dimension in enumerate(dimensions):
        for position, text in dimension["ticks"]:
            figure.add_annotation(
                x=index,
                y=position,
                text=text,
                showarrow=False,
                xanchor="left",
                xshift=4,
                font={"size": 11, "color": "#475467"},
            )
    layout = base_layout(
        "Swept inputs vs objectives",
        xaxis={
            "tickvals": xs,
            "ticktext": [_wrap(d["label"]) for d in dimensions],
            "tickangle": 0,
            "showgrid": True,
            "gridcolor": "#98a2b3",
            "zeroline": False,
            "range": [-0.3, len(dimensions) - 0.4],
        },
        yaxis={"visible": False, "range": [-0.05, 1.05]},
    )
    figure.update_layout(**layout, height=480, showlegend=True)
    return figure


def sensitivity_figure(summary: dict) -> go.Figure | None:
    sensitivity = summary["sensitivity"]
    if not sensitivity:
        return None
    paths = [axis["path"] for axis in summary["axes"]]
    figure = go.Figure()
    for objective, per_axis in sensitivity.items():
        metric = models_engine.SWEEP_OBJECTIVES[objective][0]
        figure.add_trace(
            go.Bar(
                name=metric_label(metric),
                y=paths,
                x=[100 * (per_axis[p]["relative"] or 0) for p in paths],
                orientation="h",
                hovertemplate="%{y}: %{x:.1f} % of the mean<extra>"
                + metric_label(metric)
                + "</extra>",
            )
        )
    figure.update_layout(
        **base_layout(
            "Sensitivity of each objective to each input",
            xaxis={"title": {"text": "spread (% of the objective's mean)"}, "ticksuffix": " %"},
            yaxis={"title": {"text": "swept input"}},
        ),
        barmode="group",
        height=120 + 60 * len(paths),
    )
    return figure


def sweep_figures(summary: dict) -> list[dict]:
    built = [
        ("sweep-pareto", pareto_figure(summary)),
        ("sweep-parallel", parallel_figure(summary)),
        ("sweep-sensitivity", sensitivity_figure(summary)),
    ]
    return [figure_entry(fid, figure) for fid, figure in built if figure is not None]
