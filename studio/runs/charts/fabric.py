"""Fabric charts: a tier diagram of each site's scale-out network and network power by BOM
category.

Every number is read from the typed fabric result (`FabricResult`, one `SiteFabric` per site);
these builders only lay it out."""

import plotly.graph_objects as go

from models_engine import ScaleOut, SiteFabric
from studio.runs.charts.common import per_site, site_prefix, titled_layout
from studio.runs.selectors import TypedResults

TIMES = "\N{MULTIPLICATION SIGN}"

SWITCH_COLOUR = "#2e5aac"
NODE_COLOUR = "#12b76a"
LINK_COLOUR = "#98a2b3"
SITE_COLOURS = ["#2e5aac", "#f79009", "#12b76a", "#9e77ed", "#d92d20", "#667085"]
MAX_BOXES = 8  # boxes drawn per tier; more switches or nodes are elided with "…"
ROW_HEIGHT_PX = 130
TIER_TITLES = {"core": "Core", "spine": "Spine", "leaf": "Leaf", "nodes": "Nodes"}
TECHNOLOGY_LABELS = {
    "infiniband-ndr": "InfiniBand NDR",
    "infiniband-xdr": "InfiniBand XDR",
    "roce-400g": "RoCE 400G",
    "roce-800g": "RoCE 800G",
}


def _n(value) -> str:
    """An engine count or figure, readable: 1,024 / 400 / 1.5."""
    if value is None:
        return "n/a"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.3g}"
    return f"{int(value):,}"


def _box_slots(count: int) -> list[int | None]:
    """Slot contents for one tier: box indices, None where the row is elided."""
    if count <= MAX_BOXES:
        return list(range(count))
    return [*range(MAX_BOXES - 2), None, count - 1]


def _tier_text(tier: dict, scale_out: ScaleOut, groups: dict) -> tuple[str, str]:
    """(label drawn left of the row, hover text) for one tier of the diagram."""
    name = tier["name"]
    title = TIER_TITLES.get(name, name.title())
    if name == "nodes":
        lines = [
            f"<b>{title}</b>: {_n(tier.get('count'))} {TIMES} {_n(tier.get('gpus_per_node'))} GPUs",
            f"{_n(tier.get('nics_per_node'))} scale-out NICs per node",
            f"NVLink domain {_n(tier.get('nvlink_domain_gpus'))} GPUs",
        ]
        grouping = []
        if groups.get("rails"):
            grouping.append(f"{_n(groups['rails'])} rails")
        if groups.get("scalable_units"):
            grouping.append(f"{_n(groups['scalable_units'])} scalable units")
        if groups.get("planes", 1) and groups.get("planes", 1) > 1:
            grouping.append(f"{_n(groups['planes'])} planes")
        if grouping:
            lines.append(" · ".join(grouping))
        return "<br>".join(lines), "<br>".join(lines)
    ports = {t["tier"]: t for t in scale_out.switch_tiers}.get(name, {})
    oversubscription = scale_out.oversubscription.get(name)
    lines = [
        f"<b>{title}</b>: {_n(tier.get('switches'))} switches",
        f"{_n(tier.get('ports_per_switch'))} ports {TIMES} {_n(tier.get('port_speed_gbps'))} Gb/s",
    ]
    if ports:
        lines.append(f"{_n(ports.get('ports_used'))} of {_n(ports.get('ports_total'))} ports used")
    if oversubscription is not None:
        lines.append(f"oversubscription {_n(oversubscription)}:1")
    hover = list(lines)
    if name == "spine" and groups.get("pods"):
        hover.append(f"{_n(groups['pods'])} pod(s), {_n(groups.get('spines_per_pod'))} per pod")
    if name == "leaf" and groups.get("leaves_per_su"):
        hover.append(f"{_n(groups['leaves_per_su'])} leaves per scalable unit")
    return "<br>".join(lines), "<br>".join(hover)


def fabric_diagram_figure(results: TypedResults):
    """One tier diagram per site (the site's own compute fabric)."""
    if results.fabric is None:
        return None
    multi = len(results.fabric.sites) > 1
    return per_site(
        [
            (site.site_id, site_diagram_figure(site, site_prefix(site.site_name, multi)))
            for site in results.fabric.sites
        ]
    )


def site_diagram_figure(site: SiteFabric, prefix: str = "") -> go.Figure | None:
    diagram = site.diagram
    tiers = diagram.get("tiers") or []
    if not tiers:
        return None
    scale_out = site.scale_out
    groups = diagram.get("groups") or {}
    links = {(link["from"], link["to"]): link for link in diagram.get("links", [])}

    rows = len(tiers)
    box_left, box_right = 0.36, 0.99
    box_w, box_h = 0.055, 0.26
    shapes, annotations = [], []
    hover_x, hover_y, hover_text = [], [], []
    centres: list[list[float]] = []
    for i, tier in enumerate(tiers):
        y = rows - 1 - i
        count = tier.get("count") if tier["name"] == "nodes" else tier.get("switches")
        slots = _box_slots(int(count or 0))
        step = (box_right - box_left) / max(len(slots), 1)
        row_centres = []
        colour = NODE_COLOUR if tier["name"] == "nodes" else SWITCH_COLOUR
        label, hover = _tier_text(tier, scale_out, groups)
        for k, slot in enumerate(slots):
            x = box_left + step * (k + 0.5)
            if slot is None:
                annotations.append(
                    {"x": x, "y": y, "text": "…", "showarrow": False, "font": {"size": 20}}
                )
                continue
            row_centres.append(x)
            shapes.append(
                {
                    "type": "rect",
                    "x0": x - box_w / 2,
                    "x1": x + box_w / 2,
                    "y0": y - box_h / 2,
                    "y1": y + box_h / 2,
                    "fillcolor": colour,
                    "line": {"color": "#1d2433", "width": 1},
                    "layer": "above",
                }
            )
            hover_x.append(x)
            hover_y.append(y)
            hover_text.append(hover)
        centres.append(row_centres)
        annotations.append(
            {
                "x": 0.0,
                "y": y,
                "xanchor": "left",
                "align": "left",
                "text": label,
                "showarrow": False,
                "font": {"size": 12},
            }
        )

    # Links between consecutive tiers: a mesh between the drawn boxes, labelled in the gap.
    for i in range(rows - 1):
        upper, lower = tiers[i], tiers[i + 1]
        link = links.get((lower["name"], upper["name"])) or links.get(
            (upper["name"], lower["name"])
        )
        y_up, y_low = rows - 1 - i - box_h / 2, rows - 2 - i + box_h / 2
        for x0 in centres[i + 1]:
            for x1 in centres[i]:
                shapes.append(
                    {
                        "type": "line",
                        "x0": x0,
                        "y0": y_low,
                        "x1": x1,
                        "y1": y_up,
                        "line": {"color": LINK_COLOUR, "width": 0.6},
                        "layer": "below",
                    }
                )
        if link:
            text = (
                f"{_n(link.get('links'))} links {TIMES} {_n(link.get('speed_gbps'))} Gb/s · "
                f"{_n(link.get('cables'))} cables ({link.get('medium', 'n/a')})"
            )
            annotations.append(
                {
                    "x": (box_left + box_right) / 2,
                    "y": (y_up + y_low) / 2,
                    "text": text,
                    "showarrow": False,
                    "bgcolor": "rgba(255,255,255,0.92)",
                    "bordercolor": LINK_COLOUR,
                    "borderpad": 3,
                    "font": {"size": 11},
                }
            )

    figure = go.Figure()
    figure.add_scatter(
        x=hover_x,
        y=hover_y,
        mode="markers",
        marker={"size": 14, "opacity": 0},
        hovertext=hover_text,
        hoverinfo="text",
        showlegend=False,
    )
    technology = scale_out.technology
    topology = scale_out.topology.removesuffix("-3tier").removesuffix("-2tier")
    # A site's name replaces "Scale-out fabric" so the title fits a half-width chart.
    main = f"{prefix or 'Scale-out fabric: '}{_n(scale_out.tiers)}-tier {topology}, "
    main += f"{_n(scale_out.gpus)} GPUs"
    detail = (
        f"{TECHNOLOGY_LABELS.get(technology, technology)} · {_n(scale_out.switches.total)} "
        f"switches ({scale_out.switch_sku}) · hover a box for its tier"
    )
    axis = {"visible": False, "fixedrange": True}
    layout = titled_layout(
        main,
        detail,
        xaxis={**axis, "range": [-0.01, 1.0]},
        yaxis={**axis, "range": [-0.6, rows - 0.4]},
    )
    layout["margin"] = {**layout["margin"], "l": 20, "r": 20, "b": 20}
    figure.update_layout(
        layout,
        shapes=shapes,
        annotations=annotations,
        height=max(340, 110 + ROW_HEIGHT_PX * rows),
        plot_bgcolor="#ffffff",
    )
    return figure


def bom_power_figure(results: TypedResults) -> go.Figure | None:
    """Network power by BOM category, one bar group per site (max draw), plus typical totals."""
    if results.fabric is None:
        return None
    fabric = results.fabric
    sites = [s for s in fabric.sites if s.breakdown.get("power_max_w_by_category")]
    if not sites:
        return None
    multi = len(fabric.sites) > 1
    figure = go.Figure()
    if not multi:
        site = sites[0]
        max_by_category = site.breakdown["power_max_w_by_category"]
        categories = list(max_by_category)
        labels = [c.replace("_", " ") for c in categories]
        power = site.power_w.model_dump()
        typical = [power.get(f"{c}_typical_w") for c in categories]
        if any(v is not None for v in typical):
            figure.add_bar(
                name="typical",
                x=labels,
                y=[None if v is None else v / 1000 for v in typical],
                marker_color="#9db9f5",
                hovertemplate="%{x}: %{y:,.1f} kW typical<extra></extra>",
            )
        figure.add_bar(
            name="maximum",
            x=labels,
            y=[max_by_category[c] / 1000 for c in categories],
            marker_color=SWITCH_COLOUR,
            hovertemplate="%{x}: %{y:,.1f} kW maximum<extra></extra>",
        )
    else:
        for i, site in enumerate(sites):
            max_by_category = site.breakdown["power_max_w_by_category"]
            figure.add_bar(
                name=f"{site.site_name} (maximum)",
                x=[c.replace("_", " ") for c in max_by_category],
                y=[w / 1000 for w in max_by_category.values()],
                marker_color=SITE_COLOURS[i % len(SITE_COLOURS)],
                hovertemplate="%{x}: %{y:,.1f} kW maximum<extra>" + site.site_name + "</extra>",
            )
    power = fabric.power_w
    detail = (
        f"all networks{' of every site' if multi else ''}: "
        f"{power.total_typical_w / 1000:,.1f} kW typical, {power.total_max_w / 1000:,.1f} kW max"
        " (NICs not counted here)"
    )
    figure.update_layout(
        titled_layout(
            "Network power by BOM category" + (" and site" if multi else ""),
            detail,
            xaxis={"title": {"text": "BOM category"}},
            yaxis={"title": {"text": "power (kW)"}, "rangemode": "tozero"},
        ),
        barmode="group",
    )
    return figure


SECTION = (
    "fabric",
    "Fabric",
    [
        ("fabric-diagram", fabric_diagram_figure),
        ("fabric-bom-power", bom_power_figure),
    ],
)
