"""Facility charts: rack power against the rack limit, IT power by component, cooling options
against the design's densest rack. Every number is read from the typed facility result
(`FacilityResult`, one `SiteFacility` per site); a multi-site design gets one rack and cooling
figure per site and IT power grouped by site."""

import plotly.graph_objects as go

from models_engine import SiteFacility
from studio.runs.charts.common import per_site, site_prefix, titled_layout
from studio.runs.selectors import TypedResults

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


SITE_COLOURS = ["#2e5aac", "#f79009", "#12b76a", "#9e77ed", "#d92d20", "#667085"]


def _sites(results: TypedResults) -> tuple[list[SiteFacility], bool]:
    if results.facility is None:
        return [], False
    return results.facility.sites, len(results.facility.sites) > 1


def rack_power_figure(results: TypedResults):
    sites, multi = _sites(results)
    return per_site(
        [(s.site_id, site_rack_power_figure(s, site_prefix(s.site_name, multi))) for s in sites]
    )


def site_rack_power_figure(site: SiteFacility, prefix: str = "") -> go.Figure | None:
    racks = site.racks
    if not racks:
        return None
    summary = site.rack_summary
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
                "title": {"text": "share of<br>limit (%)"},
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
    limit = summary.rack_power_limit_kw
    figure.add_hline(
        y=limit,
        line_dash="dash",
        line_color=LIMIT_COLOUR,
        annotation_text=f"rack power limit {limit:g} kW",
        annotation_position="top right",
    )
    detail = (
        f"{summary.total_racks} racks · densest {summary.max_rack_kw:.1f} kW "
        f"· colour: share of the {limit:g} kW limit"
    )
    figure.update_layout(
        titled_layout(
            f"{prefix}Rack power per rack group vs the rack limit",
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


def it_power_figure(results: TypedResults) -> go.Figure | None:
    """IT power at peak by component; a multi-site design gets one bar per site and part."""
    sites, multi = _sites(results)
    if not sites:
        return None
    figure = go.Figure()
    labels = [IT_LABELS.get(part, part) for part in IT_PARTS]
    if not multi:
        it_kw = sites[0].power.it_kw
        for part, label in zip(IT_PARTS, labels, strict=True):
            value = getattr(it_kw, part)
            figure.add_bar(
                name=label,
                x=[label],
                y=[value],
                marker_color=IT_COLOURS.get(part, "#667085"),
                text=[f"{value:,.0f} kW"],
                textposition="outside",
                hovertemplate="%{x}: %{y:,.1f} kW<extra></extra>",
                showlegend=False,
            )
        power = sites[0].power
        detail = (
            f"{it_kw.total:,.0f} kW IT at peak · {power.facility_kw:,.0f} kW facility "
            f"at PUE {power.pue:g} ({power.pue_source})"
        )
    else:
        for i, site in enumerate(sites):
            values = [getattr(site.power.it_kw, part) for part in IT_PARTS]
            figure.add_bar(
                name=site.site_name,
                x=labels,
                y=values,
                marker_color=SITE_COLOURS[i % len(SITE_COLOURS)],
                hovertemplate="%{x}: %{y:,.1f} kW<extra>" + site.site_name + "</extra>",
            )
        totals = results.facility.totals
        detail = (
            f"{totals.it_kw:,.0f} kW IT at peak over {totals.sites} sites · "
            f"{totals.facility_kw:,.0f} kW facility (PUE {totals.pue:.2f} overall)"
        )
    figure.update_layout(
        titled_layout(
            "IT power by component" + (" and site" if multi else ""),
            detail,
            xaxis={"title": {"text": "component"}},
            yaxis={"title": {"text": "IT power at peak (kW)"}, "rangemode": "tozero"},
        ),
        barmode="group",
        uniformtext={"minsize": 10, "mode": "hide"},
    )
    if multi:
        figure.update_layout(legend={"orientation": "h", "y": -0.35})
    return figure


def cooling_figure(results: TypedResults):
    sites, multi = _sites(results)
    return per_site(
        [(s.site_id, site_cooling_figure(s, site_prefix(s.site_name, multi))) for s in sites]
    )


def site_cooling_figure(site: SiteFacility, prefix: str = "") -> go.Figure | None:
    cooling = site.cooling
    options = cooling.feasibility
    if not options:
        return None
    selected = cooling.cooling
    design = cooling.max_rack_kw_design
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
    figure.add_hline(
        y=design,
        line_dash="dash",
        line_color=LIMIT_COLOUR,
        annotation_text=f"densest rack of the design {design:.1f} kW",
        annotation_position="top left",
    )
    verdict = "holds" if cooling.feasible else "does NOT hold"
    figure.update_layout(
        titled_layout(
            f"{prefix}Cooling options vs the densest rack",
            f"selected cooling ({selected}) {verdict} the {design:.1f} kW rack",
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
