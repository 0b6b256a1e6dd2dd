"""Regions charts: sites compared, cross-site training strategies, WAN egress per month.
A single-site design has nothing to compare: every builder returns None and the section's
template shows the site table alone. Every number is read from the typed regions result
(`RegionsResult`)."""

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from studio.core.inputs import plain_label
from studio.runs.charts.common import base_layout, money_axis
from studio.runs.selectors import TypedResults

SITE_COLOURS = ["#2e5aac", "#f79009", "#12b76a", "#9e77ed", "#d92d20", "#667085"]
CHOSEN_COLOUR = "#2e5aac"
RECOMMENDED_COLOUR = "#12b76a"
OTHER_COLOUR = "#d0d5dd"
EGRESS_COLOURS = {
    "gradients": "#2e5aac",
    "checkpoints": "#f79009",
    "dataset_streaming": "#12b76a",
}


def _apply_title(figure: go.Figure, main: str, detail: str | None, height: int = 440) -> None:
    text = main
    if detail:
        text += f"<br><span style='font-size:12px;color:#667085'>{detail}</span>"
    layout = base_layout(text)
    layout["margin"] = {**layout["margin"], "t": 95}
    figure.update_layout(layout, height=height, showlegend=False)


def sites_figure(results: TypedResults) -> go.Figure | None:
    if results.regions is None:
        return None
    sites = results.regions.sites
    if len(sites) < 2:
        return None
    names = [plain_label(s["id"]) for s in sites]
    colours = [SITE_COLOURS[i % len(SITE_COLOURS)] for i in range(len(sites))]
    panels = (
        ("gpus", "GPUs", "GPUs (count)", "%{x}: %{y:,} GPUs"),
        ("power_price_usd_per_kwh", "power price", "price (USD/kWh)", "%{x}: $%{y:.4f}/kWh"),
        ("carbon_gco2e_per_kwh", "grid carbon", "carbon (gCO2e/kWh)", "%{x}: %{y:,.0f} gCO2e/kWh"),
    )
    figure = make_subplots(
        rows=1, cols=3, subplot_titles=[p[1] for p in panels], horizontal_spacing=0.13
    )
    for col, (key, _name, axis_title, hover) in enumerate(panels, start=1):
        figure.add_bar(
            x=names,
            y=[s.get(key) for s in sites],
            marker_color=colours,
            hovertemplate=hover + "<extra></extra>",
            row=1,
            col=col,
        )
        figure.update_yaxes(title_text=axis_title, rangemode="tozero", row=1, col=col)
        figure.update_xaxes(title_text="site", row=1, col=col)
    detail = " · ".join(
        plain_label(f"{s['id']}: {s.get('name', '')} ({s.get('jurisdiction', 'n/a')})")
        for s in sites
    )
    _apply_title(figure, "Sites compared: GPUs, power price, grid carbon", detail)
    return figure


def strategies_figure(results: TypedResults) -> go.Figure | None:
    if results.regions is None:
        return None
    cross = results.regions.cross_region or {}
    strategies = cross.get("strategies") or []
    if not strategies:
        return None
    chosen = cross.get("strategy_chosen")
    recommended = (cross.get("recommendation") or {}).get("strategy")
    names = [s["strategy"] for s in strategies]

    def colour(name: str) -> str:
        if name == recommended:
            return RECOMMENDED_COLOUR
        if name == chosen:
            return CHOSEN_COLOUR
        return OTHER_COLOUR

    labels = names
    colours = [colour(n) for n in names]
    outline = {"color": "#1d2433", "width": [2 if n == chosen else 0 for n in names]}
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["step-time increase", "WAN traffic per step"],
        horizontal_spacing=0.2,
    )
    custom = [
        [s.get("exchange_every_steps"), s.get("staleness_steps"), s.get("note", "")]
        for s in strategies
    ]
    figure.add_bar(
        x=labels,
        y=[s["step_time_increase_fraction"] for s in strategies],
        marker={"color": colours, "line": outline},
        text=[f"+{s['step_time_increase_fraction']:.2%}" for s in strategies],
        textposition="outside",
        cliponaxis=False,
        customdata=custom,
        hovertemplate="%{x}: +%{y:.3%} per step, exchange every %{customdata[0]} steps, "
        "staleness %{customdata[1]} steps<extra></extra>",
        row=1,
        col=1,
    )
    figure.add_bar(
        x=labels,
        y=[s["communication_bytes_per_step"] for s in strategies],
        marker={"color": colours, "line": outline},
        customdata=custom,
        hovertemplate="%{x}: %{y:.3s}B per step<br>%{customdata[2]}<extra></extra>",
        row=1,
        col=2,
    )
    figure.update_yaxes(
        title_text="increase (% of step time)",
        tickformat=".2%",
        rangemode="tozero",
        row=1,
        col=1,
    )
    figure.update_yaxes(
        title_text="traffic (bytes, log scale)",
        type="log",
        dtick=1,
        tickformat=".2s",
        row=1,
        col=2,
    )
    figure.update_xaxes(title_text="strategy", tickangle=-20, row=1, col=1)
    figure.update_xaxes(title_text="strategy", tickangle=-20, row=1, col=2)
    detail = f"outlined: chosen ({chosen}) · green: recommended ({recommended})"
    _apply_title(figure, "Cross-site training strategies compared", detail, height=480)
    return figure


def egress_figure(results: TypedResults) -> go.Figure | None:
    regions = results.regions
    if regions is None:
        return None
    egress = regions.egress
    rows = egress.get("per_month") or []
    if len(regions.sites) < 2 or not rows:
        return None
    kinds = [r["kind"].replace("_", " ") for r in rows]
    colours = [EGRESS_COLOURS.get(r["kind"], "#667085") for r in rows]
    figure = make_subplots(
        rows=1, cols=2, subplot_titles=["volume", "cost"], horizontal_spacing=0.16
    )
    figure.add_bar(
        x=kinds,
        y=[r["tb"] for r in rows],
        marker_color=colours,
        customdata=[[r.get("detail", "")] for r in rows],
        hovertemplate="%{x}: %{y:,.1f} TB/month<br>%{customdata[0]}<extra></extra>",
        row=1,
        col=1,
    )
    figure.add_bar(
        x=kinds,
        y=[r["usd"] for r in rows],
        marker_color=colours,
        customdata=[[r.get("detail", "")] for r in rows],
        hovertemplate="%{x}: $%{y:,.0f}/month<br>%{customdata[0]}<extra></extra>",
        row=1,
        col=2,
    )
    figure.update_yaxes(title_text="egress (TB/month)", rangemode="tozero", row=1, col=1)
    figure.update_yaxes(
        title_text="egress cost (USD/month)",
        **money_axis([r.get("usd") for r in rows]),
        rangemode="tozero",
        row=1,
        col=2,
    )
    figure.update_xaxes(title_text="traffic kind", row=1, col=1)
    figure.update_xaxes(title_text="traffic kind", row=1, col=2)
    detail = (
        f"total {egress.get('total_tb_per_month', 0):,.1f} TB and "
        f"${egress.get('total_usd_per_month', 0):,.0f} per month · one-time dataset replication "
        f"{egress.get('dataset_replication_one_time_tb', 0):,.1f} TB, "
        f"${egress.get('dataset_replication_one_time_usd', 0):,.0f}"
    )
    _apply_title(figure, "WAN egress per month by traffic kind", detail)
    return figure


SECTION = (
    "regions",
    "Regions",
    [
        ("regions-sites", sites_figure),
        ("regions-strategies", strategies_figure),
        ("regions-egress", egress_figure),
    ],
)
