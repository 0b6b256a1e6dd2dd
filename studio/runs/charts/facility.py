"""Facility charts: rack power against the rack limit, IT power by component, cooling options
against the design's densest rack. Every number is read from `results["facility"]`."""

import plotly.graph_objects as go

from studio.runs.charts.common import titled_layout

TIMES = "\N{MULTIPLICATION SIGN}"

LIMIT_COLOUR = "#b42318"
# Utilisation of the rack power limit: green well below, amber close to it, red at or above.
UTILISATION_SCALE = [
    [0.0, "#12b76a"],
    [0.7, "#12b76a"],
    [0.85, "#f79009"],
    [0.97, "#f04438"],
    [1.0, "#7a271a"],
]
IT_PARTS = ["gpus", "hosts", "switches", "optics", "storage"]
IT_LABELS = {"gpus": "GPUs", "hosts": "hosts (rest of the systems)"}
IT_COLOURS = {
    "gpus": "#2e5aac",
    "hosts": "#5b8def",
    "switches": "#667085",
    "optics": "#98a2b3",
    "storage": "#f79009",
}


def rack_power_figure(results: dict) -> go.Figure | None:
    facility = results.get("facility") or {}
    racks = facility.get("racks") or []
    if not racks:
        return None
    summary = facility.get("rack_summary") or {}
    labels = [f"{r['rack']} {TIMES}{r['count']}" for r in racks]
    figure = go.Figure()
    figure.add_bar(
        x=labels,
        y=[r["kw"] for r in racks],
        name="rack power",
        marker={
            "color": [r["utilisation_of_limit"] for r in racks],
            "colorscale": UTILISATION_SCALE,
            "cmin": 0,
            "cmax": 1,
            "line": {"color": "#1d2433", "width": 0.5},
            "colorbar": {
                "title": {"text": "of rack limit (%)"},
                "tickformat": ".0%",
                "thickness": 12,
            },
        },
        customdata=[
            [r["kind"], r["count"], r["utilisation_of_limit"], r["limit_kw"], _items(r)]
            for r in racks
        ],
        hovertemplate=(
            "%{x} (%{customdata[0]}, %{customdata[1]} racks)<br>%{y:.1f} kW per rack = "
            "%{customdata[2]:.0%} of %{customdata[3]:.0f} kW<br>%{customdata[4]}<extra></extra>"
        ),
        showlegend=False,
    )
    limit = summary.get("rack_power_limit_kw")
    if limit is not None:
        figure.add_hline(
            y=limit,
            line_dash="dash",
            line_color=LIMIT_COLOUR,
            annotation_text=f"rack power limit {limit:g} kW",
            annotation_position="top right",
        )
    detail = None
    if limit is not None:
        detail = (
            f"{summary.get('total_racks')} racks · densest {summary.get('max_rack_kw', 0):.1f} kW "
            f"· colour: share of the {limit:g} kW limit"
        )
    figure.update_layout(
        titled_layout(
            "Rack power per rack group vs the rack limit",
            detail,
            xaxis={
                "title": {"text": f"rack group ({TIMES} racks in the group)"},
                "type": "category",
            },
            yaxis={"title": {"text": "power per rack (kW)"}, "rangemode": "tozero"},
        )
    )
    return figure


def _items(rack: dict) -> str:
    return "<br>".join(f"{i['what']}: {i['kw']:.1f} kW" for i in rack.get("items", [])[:6])


def it_power_figure(results: dict) -> go.Figure | None:
    power = (results.get("facility") or {}).get("power") or {}
    it_kw = power.get("it_kw") or {}
    parts = [p for p in IT_PARTS if p in it_kw]
    if not parts:
        return None
    figure = go.Figure()
    for part in parts:
        figure.add_bar(
            name=IT_LABELS.get(part, part),
            x=[IT_LABELS.get(part, part)],
            y=[it_kw[part]],
            marker_color=IT_COLOURS.get(part, "#667085"),
            text=[f"{it_kw[part]:,.0f} kW"],
            textposition="outside",
            hovertemplate="%{x}: %{y:,.1f} kW<extra></extra>",
            showlegend=False,
        )
    detail = None
    if "total" in it_kw and power.get("facility_kw") is not None:
        detail = (
            f"{it_kw['total']:,.0f} kW IT at peak · {power['facility_kw']:,.0f} kW facility "
            f"at PUE {power.get('pue', 0):g} ({power.get('pue_source', 'n/a')})"
        )
    figure.update_layout(
        titled_layout(
            "IT power by component",
            detail,
            xaxis={"title": {"text": "component"}},
            yaxis={"title": {"text": "IT power at peak (kW)"}, "rangemode": "tozero"},
        ),
        uniformtext={"minsize": 10, "mode": "hide"},
    )
    return figure


def cooling_figure(results: dict) -> go.Figure | None:
    cooling = (results.get("facility") or {}).get("cooling") or {}
    options = cooling.get("feasibility") or []
    if not options:
        return None
    selected = cooling.get("cooling")
    design = cooling.get("max_rack_kw_design")
    labels = [
        f"<b>{o['cooling']} (selected)</b>" if o["cooling"] == selected else o["cooling"]
        for o in options
    ]
    figure = go.Figure()
    figure.add_bar(
        x=labels,
        y=[o["max_rack_kw"] for o in options],
        marker={
            "color": ["#12b76a" if o["holds_design"] else "#f04438" for o in options],
            "line": {
                "color": [
                    "#1d2433" if o["cooling"] == selected else "rgba(0,0,0,0)" for o in options
                ],
                "width": 2.5,
            },
        },
        customdata=[
            ["holds the design" if o["holds_design"] else "too low", o["source"]] for o in options
        ],
        hovertemplate="%{x}: up to %{y:.0f} kW per rack (%{customdata[0]})<br>"
        "%{customdata[1]}<extra></extra>",
        showlegend=False,
    )
    if design is not None:
        figure.add_hline(
            y=design,
            line_dash="dash",
            line_color=LIMIT_COLOUR,
            annotation_text=f"densest rack of the design {design:.1f} kW",
            annotation_position="top left",
        )
    verdict = "holds" if cooling.get("feasible") else "does NOT hold"
    figure.update_layout(
        titled_layout(
            "Cooling options vs the densest rack",
            f"selected cooling ({selected}) {verdict} the {design:.1f} kW rack"
            if design is not None
            else None,
            xaxis={"title": {"text": "cooling type (green: holds the design, red: too low)"}},
            yaxis={"title": {"text": "max heat removed per rack (kW)"}, "rangemode": "tozero"},
        )
    )
    return figure


SECTION = (
    "facility",
    "Facility",
    [
        ("facility-rack-power", rack_power_figure),
        ("facility-it-power", it_power_figure),
        ("facility-cooling", cooling_figure),
    ],
)
