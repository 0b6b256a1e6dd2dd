"""Every device of a site with its rack and U, named the way the network engine names its
switches (leaf1, spine1, core1), regenerated from the stored templates and floor."""

from __future__ import annotations

from dataclasses import dataclass

from .floor import Position, rack_names
from .result import RackTemplate

_GROUP_NAMES = {
    "node": "node{:04d}",
    "compute/leaf": "leaf{}",
    "compute/spine": "spine{}",
    "compute/core": "core{}",
    "compute/appliance": "ufm{}",
    "frontend/leaf": "fe-leaf{}",
    "frontend/spine": "fe-spine{}",
    "frontend/core": "fe-core{}",
    "storage/leaf": "st-leaf{}",
    "storage/spine": "st-spine{}",
    "storage/core": "st-core{}",
    "wan/router": "wan-router{}",
    "storage-system": "storage{:03d}",
}
# Devices named after their rack (one per rack position, not a fabric role).
_PER_RACK = {"patch-panel": "pp", "power-shelf": "ps", "nvlink-switch-tray": "nvs"}


@dataclass(frozen=True)
class PlacedDevice:
    name: str
    group: str
    index: int  # among the site's devices of the same group
    rack: str
    u: int
    height_u: int
    model: str
    catalog_id: str | None
    position: Position


def device_name(group: str, index: int, rack: str, ordinal: int, prefix: str) -> str:
    if group in _PER_RACK:
        return f"{prefix}{rack}-{_PER_RACK[group]}{ordinal + 1}"
    pattern = _GROUP_NAMES.get(group, group.replace("/", "-") + "{}")
    return prefix + pattern.format(index + 1)


def site_devices(
    templates: list[RackTemplate], positions: dict[str, Position], prefix: str = ""
) -> dict[str, list[PlacedDevice]]:
    """Devices by group, each list in index order (racks in number order, then U)."""
    ordered = sorted(
        ((name, template) for template in templates for name in rack_names(template)),
        key=lambda item: (item[0][0] != "C", item[0]),
    )
    groups: dict[str, list[PlacedDevice]] = {}
    for rack, template in ordered:
        for slot in template.devices:
            members = groups.setdefault(slot.group, [])
            members.append(
                PlacedDevice(
                    name=device_name(slot.group, len(members), rack, slot.ordinal, prefix),
                    group=slot.group,
                    index=len(members),
                    rack=rack,
                    u=slot.u,
                    height_u=slot.height_u,
                    model=slot.model,
                    catalog_id=slot.catalog_id,
                    position=positions[rack],
                )
            )
    return groups
