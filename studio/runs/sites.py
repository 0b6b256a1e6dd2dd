"""The per-site table of a multi-site run (site, GPUs, switches by tier, racks, IT and facility
power) and its totals, read from the typed fabric and facility results: each site's own fabric
and facility, and the engines' own cluster totals (nothing is summed here)."""

from studio.runs.sections.blocks import Column, Table, code, table, text
from studio.runs.sections.format import count
from studio.runs.selectors import TypedResults

SITE_COLUMNS = [
    Column("site"),
    Column("GPUs", "count", numeric=True),
    Column("leaf switches", "count", numeric=True),
    Column("spine switches", "count", numeric=True),
    Column("core switches", "count", numeric=True),
    Column("racks", "count", numeric=True),
    Column("IT power", "kW", numeric=True),
    Column("facility power", "kW", numeric=True),
]


def site_table(results: TypedResults | None, table_id: str) -> Table | None:
    """One row per site and the cluster totals; None for a single site (its cards say it all)
    or without fabric and facility results."""
    if results is None or results.fabric is None or results.facility is None:
        return None
    fabric, facility = results.fabric, results.facility
    if len(fabric.sites) < 2:
        return None
    rows = []
    for site in fabric.sites:
        site_facility = facility.site(site.site_id)
        switches = site.scale_out.switches
        rows.append(
            [
                text(code(site.site_id), " ", site.site_name),
                count(site.gpus),
                count(switches.leaf),
                count(switches.spine),
                count(switches.core),
                count(site_facility.rack_summary.total_racks),
                count(site_facility.power.it_kw.total),
                count(site_facility.power.facility_kw),
            ]
        )
    totals = fabric.totals
    return table(
        table_id,
        SITE_COLUMNS,
        rows,
        totals=[
            f"Total ({facility.totals.sites} sites)",
            count(totals.gpus),
            count(totals.switches.leaf),
            count(totals.switches.spine),
            count(totals.switches.core),
            count(facility.totals.total_racks),
            count(facility.totals.it_kw),
            count(facility.totals.facility_kw),
        ],
        css="grid rc-table rc-sites",
    )
