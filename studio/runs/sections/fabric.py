"""Fabric section: per-site key figures of the scale-out and scale-up networks, the WAN links
between sites, the bill of materials and the fabric engine's findings."""

from models_engine import BomLine, FabricResult, SiteFabric, WanPlan
from studio.runs.sections.blocks import (
    NO_PRICE,
    Block,
    Card,
    Cards,
    Cell,
    Column,
    Heading,
    Paragraph,
    code,
    findings_list,
    link,
    muted,
    table,
    text,
)
from studio.runs.sections.common import export_url, site_heading, small
from studio.runs.sections.format import DASH, TIMES, count, joined, number, usd
from studio.runs.selectors import TypedResults
from studio.runs.sites import site_table

HOPS = [
    ("same_leaf", "same leaf"),
    ("same_rail_same_su", "same rail in SU"),
    ("cross_rail", "cross rail"),
    ("cross_leaf", "cross leaf"),
    ("cross_su", "cross SU"),
    ("cross_pod", "cross pod"),
]


def blocks(results: TypedResults, run=None) -> list[Block]:
    fabric = results.fabric
    if fabric is None:
        return []
    multi_site = len(fabric.sites) > 1
    built: list[Block] = []
    sites = site_table(results, "fabric-sites")
    if sites:
        built.append(sites)
    for index, site in enumerate(fabric.sites):
        if multi_site:
            built.append(site_heading("fabric", site.site_id, site.site_name, site.gpus))
        figures_id = "fabric-key-figures" + (f"-{site.site_id}" if index else "")
        built.append(Cards(site_cards(site), id=figures_id))
    if fabric.wan:
        built += wan_blocks(fabric.wan, fabric)
    built += bom_blocks(fabric, run)
    built += findings_list(fabric.findings, "fabric-findings")
    return built


def site_cards(site: SiteFabric) -> list[Card]:
    scale_out, scale_up = site.scale_out, site.scale_up
    switches, bisection = scale_out.switches, scale_out.bisection
    capacity, growth = scale_out.capacity, scale_out.growth_step
    scalable_units = (
        f"{scale_out.nodes_per_su} nodes, {scale_out.leaves_per_su} leaves per SU"
        if scale_out.scalable_units
        else "not built from scalable units"
    )
    hops = [
        f"{words} {scale_out.hops[key]}"
        for key, words in HOPS
        if scale_out.hops.get(key) is not None
    ]
    return [
        Card(
            "Scale-out fabric",
            f"{scale_out.tiers}-tier",
            note=joined(
                [
                    scale_out.topology,
                    scale_out.technology,
                    f"{count(scale_out.link_speed_gbps)} Gb/s links",
                    scale_out.planes > 1 and f"{scale_out.planes} planes",
                ]
            ),
        ),
        Card(
            "Scalable units",
            count(scale_out.scalable_units) if scale_out.scalable_units else DASH,
            note=joined(
                [
                    scalable_units,
                    f"{count(scale_out.nodes)} nodes, {count(scale_out.gpus)} GPUs",
                ]
            ),
        ),
        Card(
            "Switches per tier",
            count(switches.total),
            "switches:",
            f"leaf {count(switches.leaf)} · spine {count(switches.spine)} · "
            f"core {count(switches.core)} ({scale_out.switch_sku})",
        ),
        Card(
            "Bisection bandwidth",
            number(bisection.get("bisection_tbytes_per_s"), 1),
            "TB/s",
            f"({count(bisection.get('bisection_gbit_per_s'))} Gb/s; "
            f"{number(bisection.get('oversubscription_at_cut'), 2, trim=True)}:1 at the cut)",
        ),
        Card(
            "Switch hops",
            count(site.network_for_performance.max_switch_hops or None),
            "hops at most",
            joined(hops) and f"({joined(hops)})",
        ),
        Card(
            "Max GPUs on this switch",
            count(capacity.get("max_gpus_two_tier")),
            "GPUs at 2 tiers",
            f"· {count(capacity.get('max_gpus_three_tier'))} at 3 tiers",
            alert="design exceeds capacity" if capacity.get("within_capacity") is False else "",
        ),
        Card(
            "Growth step",
            f"+{count(growth.get('adds_gpus'))}",
            f"GPUs per {growth.get('unit', 'step')}",
            f"({count(growth.get('adds_nodes'))} nodes, "
            f"+{count(growth.get('adds_leaf_switches'))} leaf / "
            f"+{count(growth.get('adds_spine_switches'))} spine / "
            f"+{count(growth.get('adds_core_switches'))} core switches)",
            alert="adds a tier" if growth.get("changes_tiers") else "",
        ),
        Card(
            "Scale-up domain",
            count(scale_up.get("gpus_per_domain")),
            f"GPUs per {scale_up.get('kind')} domain {TIMES} {count(scale_up.get('domains'))}",
            f"· {count(scale_up.get('nvlink_gbytes_per_s_per_gpu'))} GB/s NVLink per GPU",
        ),
    ]


REACH = {
    "400zr": "400ZR",
    "openzr+": "OpenZR+",
    "beyond-pluggable-reach": "beyond pluggable reach",
}
WAN_COLUMNS = [
    Column("from"),
    Column("to"),
    Column("bandwidth", "Gb/s", numeric=True),
    Column("ports per end", "count", numeric=True),
    Column("port speed", "Gb/s", numeric=True),
    Column("fibre route, from RTT", "km", numeric=True),
    Column("reach"),
    Column("router"),
    Column("optic"),
]


def wan_blocks(wan: WanPlan, fabric: FabricResult) -> list[Block]:
    rows = [
        [
            code(line.from_site),
            code(line.to_site),
            count(line.bandwidth_gbps),
            count(line.ports_per_end),
            count(line.port_speed_gbps),
            count(line.fibre_km_estimate),
            REACH.get(line.reach_class, line.reach_class),
            code(line.router_sku),
            code(line.optic_sku)
            if line.optic_sku
            else "beyond pluggable reach: line system or leased wavelength (not priced)",
        ]
        for line in wan.links
    ]
    totals = fabric.totals
    return [
        table(
            "fabric-wan-links",
            WAN_COLUMNS,
            rows,
            caption="WAN / data-centre interconnect",
            scroll=False,
        ),
        Paragraph(
            text(
                f"{count(totals.wan_routers)} WAN routers · "
                f"{count(totals.wan_transceivers)} WAN transceivers "
                "(in the bill of materials below)"
            ),
            css="muted small",
        ),
    ]


def bom_columns(site_column: bool) -> list[Column]:
    return [Column("site")] * site_column + [
        Column("item"),
        Column("catalog id"),
        Column("network"),
        Column("quantity", "units", numeric=True),
        Column("unit power, typical", "W", numeric=True),
        Column("unit price", "USD", numeric=True),
        Column("total power, typical", "W", numeric=True),
        Column("total price", "USD", numeric=True),
    ]


def bom_row(line: BomLine, site_column: bool) -> list:
    site = [code(line.site) if line.site else muted(DASH)] if site_column else []
    return [
        *site,
        line.item,
        code(line.catalog_id) if line.catalog_id else muted(DASH),
        line.network,
        count(line.quantity),
        muted(DASH) if line.unit_power_w is None else number(line.unit_power_w, 1, trim=True),
        NO_PRICE if line.unit_price_usd is None else count(line.unit_price_usd),
        muted(DASH) if line.total_power_w is None else count(line.total_power_w),
        NO_PRICE if line.total_price_usd is None else count(line.total_price_usd),
    ]


def _priced_summary(fabric: FabricResult) -> str:
    """What the catalog prices, never a zero standing for "unknown"."""
    unpriced = len(fabric.price_usd.items_without_price)
    lines = f"{unpriced} line{'s' * (unpriced != 1)} without a catalog price"
    if not unpriced:
        return f"all lines priced: {usd(fabric.price_usd.known_total)}"
    if len(fabric.price_usd.items_without_price) == len(fabric.bom):
        return f"no line has a catalog price; the Cost section shows how each is covered ({lines})"
    return f"priced lines {usd(fabric.price_usd.known_total)} ({lines}; see the Cost section)"


def _priced_total(fabric: FabricResult):
    unpriced = len(fabric.price_usd.items_without_price)
    if unpriced == len(fabric.bom):
        return NO_PRICE
    known = count(fabric.price_usd.known_total)
    return known if not unpriced else text(known, small(f" + {unpriced} unpriced"))


def bom_blocks(fabric: FabricResult, run=None) -> list[Block]:
    # The BOM gets a site column when lines belong to different sites (or the WAN).
    site_column = len(fabric.sites) > 1 or fabric.wan is not None
    columns = bom_columns(site_column)
    summary = (
        f"· {len(fabric.bom)} lines · network power {count(fabric.power_w.total_typical_w)} W "
        f"typical, {count(fabric.power_w.total_max_w)} W max · {_priced_summary(fabric)}"
    )
    download = run and link("Download BOM CSV", export_url(run, "bom"), id="fabric-bom-csv")
    return [
        Heading(text("Bill of materials")),
        Paragraph(text(download, download and " ", small(summary)), css="rc-downloads"),
        table(
            "fabric-bom",
            columns,
            [bom_row(line, site_column) for line in fabric.bom],
            totals=[
                Cell(text("Total (typical power; priced lines only)"), colspan=len(columns) - 2),
                count(fabric.power_w.total_typical_w),
                _priced_total(fabric),
            ],
        ),
    ]
