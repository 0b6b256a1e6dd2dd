"""Rack templates: the devices of each distinct rack at their U positions.

The facility engine decides how many racks there are and what each holds (systems per compute
rack from power and height, switches per network rack); this module only stacks those devices
in a rack of the stated height and adds what the rack itself needs: fibre patch panels for the
optical links that leave it, 0U PDUs for its power and, for rack-scale systems, the trays and
power shelves the catalog lists.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from models_engine.engines.fabric.result import BomLine, SiteFabric
from models_engine.engines.facility.result import SiteFacility
from models_engine.systems import RACK_UNITS_PER_GPU_DEFAULT

from .data import (
    PATCH_PANEL_MPO_PORTS,
    PATCH_PANEL_U,
    PDU_FEEDS,
    PDU_KW,
    POWER_SHELF_U,
    PSUS_PER_POWER_SHELF,
    RACK_SYSTEM_TRAY_U,
)
from .result import DeviceSlot, RackTemplate

_TIER = re.compile(r"\b(leaf|spine|core)\b")


@dataclass(frozen=True)
class NetworkGear:
    """One BOM line of rack-mounted network gear: its group key ("compute/leaf"), height and
    the switch ports each unit uses (for its patch panels)."""

    group: str
    line: BomLine
    ports_used_each: int


def gear_of(fabric: SiteFabric, bom: list[BomLine]) -> list[NetworkGear]:
    """Network-rack gear in the fabric's BOM, with each switch tier's used ports."""
    tiers = {("compute", t["tier"]): t for t in fabric.scale_out.switch_tiers}
    for name, aux in (("frontend", fabric.frontend_network), ("storage", fabric.storage_network)):
        tiers.update({(name, t["tier"]): t for t in aux.tiers})
    out = []
    for line in bom:
        if line.placement != "network rack" or line.category not in (
            "switch",
            "appliance",
            "router",
        ):
            continue
        tier = _TIER.search(line.item) if line.category == "switch" else None
        role = tier.group(1) if tier else line.category
        row = tiers.get((line.network, role))
        used = math.ceil(row["ports_used"] / row["switches"]) if row and row["switches"] else 0
        out.append(NetworkGear(f"{line.network}/{role}", line, used))
    return out


def _racks_named(first: str, count: int) -> tuple[str, str]:
    prefix, number = first[0], int(first[1:5])
    return first[:5], f"{prefix}{number + count - 1:04d}"


def _pdus(kw: float, redundancy: str) -> int:
    return PDU_FEEDS[redundancy] * max(1, math.ceil(kw / PDU_KW))


def _stack(devices: list[tuple[str, int, str, str | None, str]]) -> tuple[list[DeviceSlot], int]:
    """Stack (group, height, label, catalog id, model) bottom-up; returns the slots and the
    units they use."""
    slots, u, ordinals = [], 1, {}
    for group, height, label, catalog_id, model in devices:
        ordinal = ordinals.get(group, 0)
        ordinals[group] = ordinal + 1
        slots.append(
            DeviceSlot(
                u=u,
                height_u=height,
                group=group,
                ordinal=ordinal,
                label=label,
                catalog_id=catalog_id,
                model=model,
            )
        )
        u += height
    return slots, u - 1


def _patch_panels(optical_links: int) -> list[tuple[str, int, str, None, str]]:
    panels = math.ceil(optical_links / PATCH_PANEL_MPO_PORTS) if optical_links else 0
    return [
        (
            "patch-panel",
            PATCH_PANEL_U,
            f"fibre patch panel ({PATCH_PANEL_MPO_PORTS} MPO)",
            None,
            "patch panel",
        )
    ] * panels


def rack_system_devices(system: dict, sku) -> list[tuple[str, int, str, str | None, str]]:
    """Trays and power shelves of one rack-scale system, bottom to top: half the power shelves,
    the lower compute trays, the NVLink switch trays, the upper compute trays, the other
    shelves (the GB200 NVL72 rack's order)."""
    trays = sku.compute_trays if sku and sku.compute_trays else 1
    switch_trays = sku.nvlink_switch_trays if sku and sku.nvlink_switch_trays else 0
    shelves = math.ceil(sku.psu_count / PSUS_PER_POWER_SHELF) if sku and sku.psu_count else 0
    name = system["name"]
    lower_trays = trays // 2 - 1 if trays >= 4 else trays // 2
    shelf = ("power-shelf", POWER_SHELF_U, "power shelf", None, "power shelf")
    tray = (
        "node",
        RACK_SYSTEM_TRAY_U,
        f"{name} compute tray",
        system["id"],
        f"{name} compute tray",
    )
    nvl = (
        "nvlink-switch-tray",
        RACK_SYSTEM_TRAY_U,
        "NVLink switch tray",
        None,
        "NVLink switch tray",
    )
    return (
        [shelf] * (shelves // 2)
        + [tray] * lower_trays
        + [nvl] * switch_trays
        + [tray] * (trays - lower_trays)
        + [shelf] * (shelves - shelves // 2)
    )


def server_height_u(system: dict) -> int:
    """The server's catalog height, else 1U per GPU (DGX H100: 8U for 8 GPUs, the shared
    systems module's default for a system of unknown height)."""
    if system["rack_units"]:
        return int(system["rack_units"])
    return math.ceil(system["gpus_per_system"] * RACK_UNITS_PER_GPU_DEFAULT)


def compute_templates(
    facility: SiteFacility,
    sku,
    optical_links_per_node: int,
    height_u: int,
    redundancy: str,
    liquid: bool,
) -> list[RackTemplate]:
    system = facility.system
    templates = []
    compute_groups = [r for r in facility.racks if r["kind"] == "compute"]
    per_rack = facility.rack_summary.systems_per_rack
    for index, group in enumerate(compute_groups):
        # The facility engine names a compute rack's contents "<system> x<systems>".
        in_rack = group["items"][0]["what"].rpartition(" x")[2]
        systems = int(in_rack) if in_rack.isdigit() else per_rack
        if system["form"] == "rack":
            devices = rack_system_devices(system, sku) * systems
            nodes = sum(1 for d in devices if d[0] == "node")
        else:
            units = server_height_u(system)
            devices = [("node", units, system["name"], system["id"], system["name"])] * systems
            nodes = systems
        devices = devices + _patch_panels(nodes * optical_links_per_node)
        templates.append(
            _template("compute", index, group, devices, height_u, redundancy, liquid=liquid)
        )
    return templates


def network_templates(
    facility: SiteFacility, gear: list[NetworkGear], height_u: int, redundancy: str
) -> list[RackTemplate]:
    """One template per network rack group; the group's BOM line is the one whose item the
    facility engine named the rack's contents after."""
    templates = []
    groups = [r for r in facility.racks if r["kind"] == "network"]
    for index, group in enumerate(groups):
        what, _, in_rack = group["items"][0]["what"].rpartition(" x")
        match = next((g for g in gear if g.line.item == what), None)
        count = int(in_rack)
        height = int(match.line.rack_units or 1) if match else 1
        group_key = match.group if match else "network/other"
        model = what.split(": ", 1)[-1]
        devices = [
            (group_key, height, what.split(":")[0], match.line.catalog_id if match else None, model)
        ] * count
        # Trunks from the compute racks' panels land directly on the switch optics, so network
        # racks carry no panels of their own (their height goes to switches).
        templates.append(
            _template("network", index, group, devices, height_u, redundancy, liquid=False)
        )
    return templates


def storage_templates(
    facility: SiteFacility, links_per_appliance: int, height_u: int, redundancy: str
) -> list[RackTemplate]:
    """One template per storage rack group of the facility engine (the shared tiers'
    appliances at their catalog height), with patch panels for the storage-network links of
    its appliances."""
    templates = []
    groups = [r for r in facility.racks if r["kind"] == "storage"]
    for index, group in enumerate(groups):
        item = group["items"][0]
        model, _, in_rack = item["what"].rpartition(" x")
        appliances = int(in_rack)
        unit = int(item.get("unit_height_u") or item["units"] // max(appliances, 1))
        devices = [("storage-system", unit, "storage system", item.get("catalog_id"), model)]
        devices = devices * appliances + _patch_panels(appliances * links_per_appliance)
        templates.append(
            _template("storage", index, group, devices, height_u, redundancy, liquid=False)
        )
    return templates


def _template(
    kind: str, index: int, group: dict, devices: list, height_u: int, redundancy: str, liquid: bool
) -> RackTemplate:
    """A facility rack group's template: its devices stacked from the bottom, its PDUs."""
    slots, used = _stack(devices)
    first, last = _racks_named(group["rack"], group["count"])
    return RackTemplate(
        template=f"{kind}-{index + 1}",
        kind=kind,
        racks=group["count"],
        first_rack=first,
        last_rack=last,
        height_u=height_u,
        units_used=used,
        units_free=height_u - used,
        kw=group["kw"],
        pdus=_pdus(group["kw"], redundancy),
        pdu_kw=round(PDU_KW, 1),
        liquid_cooled=liquid,
        devices=slots,
    )
