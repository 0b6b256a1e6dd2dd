"""Racks: compute racks from the rack power limit and the system's power (a rack-scale system is
a rack of its own), network racks from the switches' height and power, and the rack elevation
data the studio draws (one entry per distinct rack, with how many such racks there are).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from models_engine.engines.fabric.result import BomLine
from models_engine.systems import RACK_USABLE_UNITS, SystemFigures, systems_per_rack

from .data import RACKS_PER_ROW

DEFAULT_RACK_UNITS = 1  # assumption when the catalog gives no height (1U switches)
# Networks whose gear sits in the site's network racks (the WAN routers and their coherent optics
# included) and the BOM categories that take rack space there.
NETWORK_RACK_NETWORKS = ("compute", "storage", "frontend", "wan")
NETWORK_RACK_DEVICES = ("switch", "appliance", "router")


def _rack(kind: str, first: int, count: int, items: list[dict], limit_kw: float) -> dict:
    prefix = {"compute": "C", "network": "N", "storage": "S"}[kind]
    kw = sum(item["kw"] for item in items)
    return {
        "rack": f"{prefix}{first:04d}"
        if count == 1
        else f"{prefix}{first:04d}-{prefix}{first + count - 1:04d}",
        "kind": kind,
        "count": count,
        "items": items,
        "units_used": sum(item["units"] for item in items),
        "units_total": RACK_USABLE_UNITS,
        "kw": kw,
        "limit_kw": limit_kw,
        "utilisation_of_limit": kw / limit_kw,
    }


def compute_racks(system: SystemFigures, systems: int, limit_kw: float) -> list[dict]:
    per_rack = systems_per_rack(system, limit_kw)
    full, rest = divmod(systems, per_rack)
    units = system.rack_units or 0

    def items(count: int) -> list[dict]:
        return [
            {
                "what": f"{system.name} x{count}",
                "units": units * count if system.form == "server" else RACK_USABLE_UNITS,
                "kw": system.power_max_kw * count,
            }
        ]

    racks = []
    if full:
        racks.append(_rack("compute", 1, full, items(per_rack), limit_kw))
    if rest:
        racks.append(_rack("compute", full + 1, 1, items(rest), limit_kw))
    return racks


def _switch_groups(bom: Sequence[BomLine]) -> list[dict]:
    """Network gear per BOM line: units and max kW each (switch-side optics spread evenly)."""
    groups = []
    for network in NETWORK_RACK_NETWORKS:
        gear = [
            line
            for line in bom
            if line.network == network
            and line.placement == "network rack"
            and line.category in NETWORK_RACK_DEVICES
        ]
        devices = sum(line.quantity for line in gear)
        optics_w = sum(
            line.total_power_max_w or 0.0
            for line in bom
            if line.network == network
            and line.category == "transceiver"
            and line.placement == "network rack"
        )
        for line in gear:
            units = line.rack_units or DEFAULT_RACK_UNITS
            kw_each = ((line.unit_power_max_w or 0.0) + optics_w / devices) / 1000.0
            groups.append(
                {"what": line.item, "quantity": line.quantity, "units": units, "kw": kw_each}
            )
    return groups


def network_racks(bom: Sequence[BomLine], limit_kw: float, first: int) -> list[dict]:
    """One run of racks per switch tier: as many switches per rack as height and power allow."""
    racks = []
    number = first
    for group in _switch_groups(bom):
        by_space = RACK_USABLE_UNITS // group["units"]
        by_power = math.floor(limit_kw / group["kw"]) if group["kw"] > 0 else by_space
        per_rack = max(1, min(by_space, by_power))
        full, rest = divmod(group["quantity"], per_rack)
        for count, in_rack in ((full, per_rack), (1 if rest else 0, rest)):
            if not count:
                continue
            item = {
                "what": f"{group['what']} x{in_rack}",
                "units": group["units"] * in_rack,
                "kw": group["kw"] * in_rack,
            }
            racks.append(_rack("network", number, count, [item], limit_kw))
            number += count
    return racks


def storage_racks(appliances: list[dict], limit_kw: float, first: int) -> list[dict]:
    """One run of racks per storage tier's appliances (`storage_appliances`): as many per rack
    as height and power allow. Each item names its catalog entry (the physical plan's device)."""
    racks, number = [], first
    for tier in appliances:
        units = tier["rack_units"]
        by_space = RACK_USABLE_UNITS // units
        per_rack = max(1, min(by_space, math.floor(limit_kw / tier["kw_each"])))
        full, rest = divmod(tier["units"], per_rack)
        for count, in_rack in ((full, per_rack), (1 if rest else 0, rest)):
            if not count:
                continue
            item = {
                "what": f"{tier['name']} x{in_rack}",
                "units": units * in_rack,
                "kw": tier["kw_each"] * in_rack,
                "catalog_id": tier["sku"],
                "unit_height_u": units,
            }
            racks.append(_rack("storage", number, count, [item], limit_kw))
            number += count
    return racks


def place_on_floor(racks: list[dict], racks_per_row: int = RACKS_PER_ROW) -> None:
    """Give each rack group the floor position of its first rack (rows of `racks_per_row`,
    the design's physical.racks_per_row; compute racks first, then network racks), in place."""
    index = 0
    for rack in racks:
        rack["floor_row"] = index // racks_per_row + 1
        rack["floor_slot"] = index % racks_per_row + 1
        index += rack["count"]


def floor_plan(total_racks: int, racks_per_row: int = RACKS_PER_ROW) -> dict:
    return {
        "racks_per_row": racks_per_row,
        "rows": math.ceil(total_racks / racks_per_row),
        "total_racks": total_racks,
    }
