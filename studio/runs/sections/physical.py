"""Physical section: halls, rows and racks, rack elevations (one rack per column, devices at
their U, a legend, a row selector), the cable schedule summary by link class, cable type and
length class, the assumptions used, findings, and the downloads (full cable schedule CSV/XLSX,
NetBox/Nautobot bundle)."""

from dataclasses import dataclass, field

from django.urls import reverse

from models_engine import PhysicalResult
from studio.runs.sections.blocks import (
    Block,
    Card,
    Cards,
    Column,
    Heading,
    Paragraph,
    findings_list,
    link,
    table,
    text,
)
from studio.runs.sections.common import small
from studio.runs.sections.format import count, number
from studio.runs.selectors import TypedResults

U_PX = 9  # drawn height of one rack unit
GROUP_CSS = {
    "node": "el-node",
    "leaf": "el-leaf",
    "spine": "el-spine",
    "core": "el-core",
    "appliance": "el-appliance",
    "router": "el-appliance",
    "patch-panel": "el-panel",
    "power-shelf": "el-power",
    "nvlink-switch-tray": "el-nvlink",
    "storage-system": "el-storage",
}
LEGEND = [
    ("el-node", "compute node / tray"),
    ("el-leaf", "leaf switch"),
    ("el-spine", "spine switch"),
    ("el-core", "core switch"),
    ("el-nvlink", "NVLink switch tray"),
    ("el-power", "power shelf"),
    ("el-panel", "fibre patch panel"),
    ("el-appliance", "fabric manager / router"),
    ("el-storage", "storage system"),
]


@dataclass(frozen=True)
class DrawnDevice:
    label: str
    css: str
    top_px: int
    height_px: int
    title: str


@dataclass(frozen=True)
class DrawnRack:
    name: str
    caption: str
    height_px: int
    devices: list[DrawnDevice]


@dataclass(frozen=True)
class DrawnRow:
    key: str
    label: str
    racks: list[DrawnRack]


@dataclass(frozen=True)
class Elevation:
    """Rack elevations drawn as HTML: rows to choose from, one rack per column."""

    id: str
    rows: list[DrawnRow]
    legend: list[tuple[str, str]] = field(default_factory=lambda: LEGEND)
    kind: str = "elevation"


def dcim_url(run) -> str:
    return reverse("run-dcim-export", args=[run.pk])


def cables_url(run, fmt: str) -> str:
    return reverse("run-cable-schedule", args=[run.pk, fmt])


def blocks(results: TypedResults, run=None) -> list[Block]:
    physical = results.physical
    if physical is None:
        return []
    built: list[Block] = []
    for site in physical.sites:
        if len(physical.sites) > 1:
            built.append(Heading(text(site.site_name, " ", small(f"({site.site_id})"))))
        built += site_blocks(site)
    built += [Heading(text("Assumptions")), assumptions_table(physical)]
    if run is not None:
        built.append(
            Paragraph(
                text(
                    link(
                        "Cable schedule, port to port",
                        reverse("run-cable-schedule-page", args=[run.pk]),
                        id="cable-schedule-page",
                    ),
                    " · download: full cable schedule ",
                    link("CSV", cables_url(run, "csv"), id="cable-schedule-csv"),
                    " / ",
                    link("XLSX", cables_url(run, "xlsx"), id="cable-schedule-xlsx"),
                    " · ",
                    link(
                        "NetBox / Nautobot bundle (zip)", dcim_url(run), id="dcim-export-download"
                    ),
                )
            )
        )
    built += findings_list(physical.findings, "physical-findings")
    return built


def site_blocks(site) -> list[Block]:
    suffix = f"-{site.site_id}"
    cards = [
        Card("Halls", count(site.halls)),
        Card("Rows", count(site.rows)),
        Card(
            "Racks",
            count(site.racks),
            note=f"{count(site.racks_by_kind['compute'])} compute, "
            f"{count(site.racks_by_kind['network'])} network, "
            f"{count(site.racks_by_kind.get('storage', 0))} storage",
        ),
        Card("Rack height", str(site.rack_height_u), unit="U"),
        Card("In-row CDUs", count(site.cdus)),
        Card("Cabled links", count(site.cable_links)),
    ]
    return [
        Cards(cards, id=f"physical-key-figures{suffix}"),
        Heading(text("Rack elevations")),
        elevation(site, f"rack-elevation{suffix}"),
        Heading(text("Rack types")),
        templates_table(site, f"physical-racks{suffix}"),
        Heading(text("Cables by link class, type and length")),
        cables_table(site, f"physical-cables{suffix}"),
    ]


def _drawn(template, name: str) -> DrawnRack:
    devices = [
        DrawnDevice(
            label=d.label if d.group != "node" else d.model,
            css=GROUP_CSS.get(d.group.split("/")[-1], "el-other"),
            top_px=(template.height_u - (d.u + d.height_u - 1)) * U_PX,
            height_px=d.height_u * U_PX,
            title=f"U{d.u}{'-' + str(d.u + d.height_u - 1) if d.height_u > 1 else ''}: {d.label}",
        )
        for d in template.devices
        if d.u + d.height_u - 1 <= template.height_u
    ]
    caption = (
        f"{template.units_used}/{template.height_u} U · {number(template.kw, 1)} kW · "
        f"{template.pdus} PDUs"
    )
    return DrawnRack(name, caption, template.height_u * U_PX, devices)


def elevation(site, block_id: str) -> Elevation:
    templates = {t.template: t for t in site.templates}
    rows: dict[int, list[DrawnRack]] = {}
    for run in site.floor:
        racks = rows.setdefault(run.row, [])
        for i in range(run.count):
            if run.template is None:
                racks.append(DrawnRack("CDU", "in-row CDU", 0, []))
                continue
            prefix, first = run.first_rack[0], int(run.first_rack[1:])
            racks.append(_drawn(templates[run.template], f"{prefix}{first + i:04d}"))
    drawn = [
        DrawnRow(
            str(row),
            f"Hall {(row - 1) // max(1, _rows_per_hall(site)) + 1}, row {row} "
            f"({len(racks)} positions)",
            racks,
        )
        for row, racks in sorted(rows.items())
    ]
    return Elevation(block_id, drawn)


def _rows_per_hall(site) -> int:
    halls = {}
    for run in site.floor:
        halls.setdefault(run.hall, set()).add(run.row)
    return max((len(rows) for rows in halls.values()), default=1)


def templates_table(site, table_id: str):
    columns = [
        Column("Racks"),
        Column("Kind"),
        Column("Count", "racks", numeric=True),
        Column("Used", "U", numeric=True),
        Column("Free", "U", numeric=True),
        Column("Power", "kW", numeric=True),
        Column("PDUs", "per rack", numeric=True),
        Column("Devices"),
    ]
    rows = []
    for t in site.templates:
        devices: dict[str, int] = {}
        for d in t.devices:
            name = d.label if d.model in d.label else f"{d.label} ({d.model})"
            devices[name] = devices.get(name, 0) + 1
        rows.append(
            [
                t.first_rack if t.racks == 1 else f"{t.first_rack}-{t.last_rack}",
                t.kind,
                count(t.racks),
                count(t.units_used),
                count(t.units_free),
                number(t.kw, 1),
                count(t.pdus),
                ", ".join(f"{n} x {label}" for label, n in devices.items()),
            ]
        )
    return table(table_id, columns, rows)


def cables_table(site, table_id: str):
    columns = [
        Column("Network"),
        Column("Link class"),
        Column("Cable type"),
        Column("Length class"),
        Column("Links", "cables", numeric=True),
        Column("Longest", "m", numeric=True),
        Column("Reach", "m", numeric=True),
        Column("Within reach"),
    ]
    rows = [
        [
            c.network,
            c.link_class.replace("_", "-"),
            c.cable_label,
            c.length_class,
            count(c.links),
            number(c.max_length_m, 1, trim=True),
            number(c.reach_m, 0),
            "yes" if c.within_reach else "NO",
        ]
        for c in site.cables
    ]
    return table(table_id, columns, rows)


def assumptions_table(physical: PhysicalResult):
    columns = [Column("Figure"), Column("Value"), Column("Source")]
    rows = [[a.name, a.value, a.source] for a in physical.assumptions]
    return table("physical-assumptions", columns, rows)
