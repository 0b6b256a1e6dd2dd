"""A finished sweep's charts (Plotly), drawn from the engine's summary: the Pareto scatter of
the first two objectives over a sample of feasible variants, parallel coordinates of the swept
inputs against the objectives, and each objective's sensitivity to each swept input."""

import plotly.graph_objects as go

import models_engine
from studio.runs.charts.common import base_layout, figure_entry, money_axis
from studio.runs.sweeps.tables import format_metric, inputs_text, metric_label

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


def _hover(variant: dict, x: str, y: str) -> str:
    return (
        f"variant {variant['index']}<br>{inputs_text(variant['inputs'])}<br>"
        f"{metric_label(x)}: {format_metric(x, variant['metrics'][x])}<br>"
        f"{metric_label(y)}: {format_metric(y, variant['metrics'][y])}"
    ).replace(", ", "<br>")


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
            go.Scattergl(
                name=name,
                x=[v["metrics"][x] for v in variants],
                y=[v["metrics"][y] for v in variants],
                mode="markers",
                marker=style,
                customdata=[v["index"] for v in variants],
                hovertext=[_hover(v, x, y) for v in variants],
                hoverinfo="text",
            )
        )
    every = cloud + front
    figure.update_layout(
        **base_layout(
            f"Pareto front: {metric_label(x)} vs {metric_label(y)}",
            xaxis=_axis(x, [v["metrics"][x] for v in every]),
            yaxis=_axis(y, [v["metrics"][y] for v in every]),
        ),
        height=480,
    )
    return figure


def _dimension(label: str, values: list) -> dict:
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return {"label": label, "values": values}
    categories = sorted({str(v) for v in values})
    codes = {c: i for i, c in enumerate(categories)}
    return {
        "label": label,
        "values": [codes[str(v)] for v in values],
        "tickvals": list(range(len(categories))),
        "ticktext": categories,
    }


def parallel_figure(summary: dict) -> go.Figure | None:
    variants = summary["sample"] or summary["pareto"]
    if not variants:
        return None
    metrics = [models_engine.SWEEP_OBJECTIVES[o][0] for o in summary["objectives"]]
    dimensions = [
        _dimension(axis["path"].split(".")[-1], [v["inputs"][axis["path"]] for v in variants])
        for axis in summary["axes"]
    ] + [_dimension(metric_label(m), [v["metrics"][m] for v in variants]) for m in metrics]
    colour = [v["metrics"][metrics[0]] for v in variants]
    figure = go.Figure(
        go.Parcoords(
            dimensions=dimensions,
            line={
                "color": colour,
                "colorscale": "Viridis",
                "showscale": True,
                "colorbar": {"title": {"text": metric_label(metrics[0])}},
            },
        )
    )
    layout = base_layout("Swept inputs vs objectives (feasible variants, sample)")
    layout["margin"] = {"l": 80, "r": 80, "t": 90, "b": 40}
    figure.update_layout(**layout, height=460)
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
            "Sensitivity: spread of each objective's mean over each input's values",
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
