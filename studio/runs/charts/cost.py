"""Cost charts: capex waterfall, opex by year, owned vs cloud cumulative cost with the breakeven
month, and the sensitivity tornado. Every number is read from the typed cost result (`CostResult`);
amounts are shown in USD million (a change of unit, not a recomputation)."""

import plotly.graph_objects as go

from studio.runs.charts.common import titled_layout
from studio.runs.selectors import TypedResults

MILLION = 1e6
OWNED_COLOUR = "#2e5aac"
CLOUD_COLOURS = ["#d92d20", "#f79009", "#9e77ed", "#667085", "#12b76a"]
LOW_COLOUR = "#12b76a"
HIGH_COLOUR = "#d92d20"
PART_COLOURS = {
    "compute": "#2e5aac",
    "scale_up": "#5b8def",
    "network": "#9db9f5",
    "storage": "#f79009",
    "facility": "#667085",
    "installation": "#98a2b3",
    "spares": "#9e77ed",
    "energy": "#f79009",
    "colocation": "#667085",
    "staff": "#2e5aac",
    "maintenance": "#5b8def",
    "licences": "#9e77ed",
    "wan_egress": "#12b76a",
    "storage_services": "#fdb022",
    "replacement_parts": "#d92d20",
    "cloud_rental": "#7a271a",
}


def _m(usd: float | None) -> float | None:
    return None if usd is None else usd / MILLION


def _label(key: str) -> str:
    return key.replace("_", " ")


def capex_waterfall_figure(results: TypedResults) -> go.Figure | None:
    cost = results.cost
    if cost is None:
        return None
    waterfall = cost.waterfall
    steps = waterfall.get("steps") or []
    total = waterfall.get("total_usd")
    if not steps or not total:
        return None
    figure = go.Figure()
    figure.add_trace(
        go.Waterfall(
            x=[_label(s["part"]) for s in steps] + ["total capex"],
            # The total bar is the engine's total (absolute), not a sum plotly makes.
            measure=["relative"] * len(steps) + ["absolute"],
            y=[_m(s["usd"]) for s in steps] + [_m(total)],
            text=[f"${_m(s['usd']):,.1f} M" for s in steps] + [f"${_m(total):,.1f} M"],
            textposition="outside",
            cliponaxis=False,
            connector={"line": {"color": "#98a2b3", "width": 1}},
            increasing={"marker": {"color": OWNED_COLOUR}},
            totals={"marker": {"color": "#1d2433"}},
            hovertemplate="%{x}: $%{y:,.2f} M<extra></extra>",
            showlegend=False,
        )
    )
    detail = waterfall.get("basis", "")
    if cost.capex.get("applies_to_design") is False:
        detail += " · shown for comparison: the design rents its GPUs"
    unpriced = cost.summary.unpriced_not_covered_count
    if unpriced:
        detail += f" · {unpriced} line(s) without a price are excluded"
    figure.update_layout(
        titled_layout(
            "Capex build-up by part",
            detail,
            xaxis={"title": {"text": "part"}},
            yaxis={"title": {"text": "capex (USD million)"}, "rangemode": "tozero"},
        )
    )
    return figure


def opex_by_year_figure(results: TypedResults) -> go.Figure | None:
    cost = results.cost
    if cost is None:
        return None
    rows = [r for r in cost.flat_table if r.get("opex_usd")]
    if not rows:
        return None
    figure = go.Figure()
    categories = list(dict.fromkeys(r["category"] for r in rows))
    for category in categories:
        mine = [r for r in rows if r["category"] == category]
        # One bar segment per cost line; plotly stacks the lines of a year, the engine's
        # yearly total is in the title.
        figure.add_bar(
            name=_label(category),
            x=[r["year"] for r in mine],
            y=[_m(r["opex_usd"]) for r in mine],
            marker_color=PART_COLOURS.get(category, "#667085"),
            customdata=[[r["item"], r["opex_usd"]] for r in mine],
            hovertemplate="year %{x}: %{customdata[0]}<br>$%{customdata[1]:,.0f}<extra>"
            + _label(category)
            + "</extra>",
        )
    opex = cost.opex
    detail = f"{opex.get('basis', 'USD per year')}: ${_m(cost.summary.opex_usd_per_year):,.2f} M"
    if opex.get("one_time_usd"):
        detail += f" · one-time ${_m(opex['one_time_usd']):,.2f} M"
    figure.update_layout(
        titled_layout(
            "Opex by year and category",
            detail,
            xaxis={"title": {"text": "year of operation (year)"}, "dtick": 1},
            yaxis={"title": {"text": "opex (USD million)"}, "rangemode": "tozero"},
        ),
        barmode="stack",
    )
    return figure


def tco_over_time_figure(results: TypedResults) -> go.Figure | None:
    if results.cost is None:
        return None
    series = results.cost.tco_over_time
    months = series.get("month") or []
    owned = series.get("owned_cumulative_usd") or []
    if not months or not owned:
        return None
    owned_model = series.get("owned_model", "owned")
    figure = go.Figure()
    figure.add_scatter(
        name=f"{owned_model} (owned)",
        x=months,
        y=[_m(v) for v in owned],
        mode="lines",
        line={"color": OWNED_COLOUR, "width": 3},
        hovertemplate="month %{x}: $%{y:,.1f} M owned<extra></extra>",
    )
    cloud = series.get("cloud_cumulative_usd") or {}
    breakeven = series.get("breakeven_month") or {}
    for i, (term, values) in enumerate(cloud.items()):
        month = breakeven.get(term)
        figure.add_scatter(
            name=f"cloud {term}" + (f" (breakeven month {month})" if month is not None else ""),
            x=months,
            y=[_m(v) for v in values],
            mode="lines",
            line={
                "color": CLOUD_COLOURS[i % len(CLOUD_COLOURS)],
                "dash": "solid" if term == series.get("headline_term") else "dot",
            },
            hovertemplate="month %{x}: $%{y:,.1f} M cloud " + term + "<extra></extra>",
        )
    headline = series.get("headline_breakeven_month")
    term = series.get("headline_term")
    if headline is not None:
        figure.add_vline(
            x=headline,
            line_dash="dash",
            line_color="#1d2433",
            annotation_text=f"breakeven vs {term}: month {headline}",
            annotation_position="top right",
        )
    if cloud:
        main = f"Cumulative cost: {owned_model} vs cloud"
        detail = (
            f"owning pays back against cloud {term} in month {headline}"
            if headline is not None
            else "owning does not pay back within the horizon"
        )
    else:
        main = f"Cumulative cost: {owned_model}"
        detail = "no cloud price for this GPU in the catalog, nothing to compare against"
    figure.update_layout(
        titled_layout(
            main,
            detail,
            xaxis={
                "title": {"text": "time from purchase (months)"},
                "range": [months[0], months[-1]],
            },
            yaxis={"title": {"text": "cumulative cost (USD million)"}, "rangemode": "tozero"},
        ),
        hovermode="x unified",
    )
    return figure


def _row_label(row: dict) -> str:
    """Input name, and on a second, smaller line the low and high values it was moved to."""
    return (
        f"{_label(row['input'])}<br><span style='font-size:11px;color:#667085'>"
        f"{row['low_value']:.3g} to {row['high_value']:.3g} {row['unit']}</span>"
    )


def sensitivity_tornado_figure(results: TypedResults) -> go.Figure | None:
    if results.cost is None:
        return None
    sensitivity = results.cost.sensitivity
    rows = sensitivity.get("rows") or []
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: r.get("tco_swing_usd") or 0)  # largest swing on top
    step = sensitivity.get("step_fraction", 0.2)
    labels = [_row_label(r) for r in rows]
    figure = go.Figure()
    for key, name, colour in (
        ("tco_delta_low_usd", f"input -{step:.0%}", LOW_COLOUR),
        ("tco_delta_high_usd", f"input +{step:.0%}", HIGH_COLOUR),
    ):
        figure.add_bar(
            name=name,
            y=labels,
            x=[_m(r[key]) for r in rows],
            orientation="h",
            marker_color=colour,
            hovertemplate=name + ": TCO NPV %{x:+,.2f} M USD<extra></extra>",
        )
    base = sensitivity.get("base_tco_npv_usd")
    detail = f"change of the TCO NPV (base ${_m(base):,.1f} M) when one input moves by ±{step:.0%}"
    figure.update_layout(
        titled_layout(
            "Sensitivity of the TCO (tornado)",
            detail,
            xaxis={"title": {"text": "change in TCO NPV (USD million)"}, "zeroline": True},
            yaxis={"title": {"text": "input (low to high value)"}, "automargin": True},
        ),
        barmode="overlay",
        height=max(380, 170 + 45 * len(rows)),
    )
    return figure


def gpu_hour_sensitivity_figure(results: TypedResults) -> go.Figure | None:
    """Cost per delivered GPU-hour at the low and high value of each input, around the base."""
    if results.cost is None:
        return None
    sensitivity = results.cost.sensitivity
    rows = sensitivity.get("rows") or []
    base = sensitivity.get("base_cost_per_delivered_gpu_hour_usd")
    if not rows or base is None:
        return None
    rows = sorted(rows, key=lambda r: r.get("cost_per_delivered_gpu_hour_swing_usd") or 0)
    step = sensitivity.get("step_fraction", 0.2)
    labels = [_row_label(r) for r in rows]
    figure = go.Figure()
    xs, ys = [], []
    for row, label in zip(rows, labels, strict=True):
        xs += [
            row["cost_per_delivered_gpu_hour_low_usd"],
            row["cost_per_delivered_gpu_hour_high_usd"],
            None,
        ]
        ys += [label, label, None]
    figure.add_scatter(
        x=xs,
        y=ys,
        mode="lines",
        line={"color": "#98a2b3", "width": 6},
        showlegend=False,
        hoverinfo="skip",
    )
    for key, name, colour in (
        ("cost_per_delivered_gpu_hour_low_usd", f"input -{step:.0%}", LOW_COLOUR),
        ("cost_per_delivered_gpu_hour_high_usd", f"input +{step:.0%}", HIGH_COLOUR),
    ):
        figure.add_scatter(
            name=name,
            x=[r[key] for r in rows],
            y=labels,
            mode="markers",
            marker={"color": colour, "size": 12},
            hovertemplate=name + ": $%{x:.3f} per GPU-hour<extra></extra>",
        )
    figure.add_vline(
        x=base,
        line_dash="dash",
        line_color="#1d2433",
        annotation_text=f"base ${base:.2f}",
        annotation_position="top",
    )
    figure.update_layout(
        titled_layout(
            "Sensitivity of the cost per delivered GPU-hour",
            f"cost per delivered GPU-hour at the low and high value of each input (±{step:.0%})",
            xaxis={"title": {"text": "cost per delivered GPU-hour (USD)"}, "tickprefix": "$"},
            yaxis={"title": {"text": "input (low to high value)"}, "automargin": True},
        ),
        height=max(380, 170 + 45 * len(rows)),
    )
    return figure


SECTION = (
    "cost",
    "Cost",
    [
        ("cost-capex-waterfall", capex_waterfall_figure),
        ("cost-opex-by-year", opex_by_year_figure),
        ("cost-tco-over-time", tco_over_time_figure),
        ("cost-tco-tornado", sensitivity_tornado_figure),
        ("cost-gpu-hour-sensitivity", gpu_hour_sensitivity_figure),
    ],
)
