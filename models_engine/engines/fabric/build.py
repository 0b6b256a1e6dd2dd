"""From a sized plane to a built network: tiers, ports used and free, link groups (cables and
transceivers by medium and reach) and its BOM lines. Used for the compute fabric and for the
frontend and storage networks alike."""

from __future__ import annotations

from dataclasses import dataclass

from .bom import bom_line, switch_chassis_power_w, switch_power_allowance_w
from .cabling import (
    LinkGroup,
    fiber_of,
    leaf_down_usage,
    medium_for,
    pick_module,
    ports_per_cage,
    switch_cage_speed,
    upper_tier_usage,
)
from .data import DAC_MAX_REACH_M
from .sizing import PlaneSizing


@dataclass(frozen=True)
class NodeEnds:
    """What sits at the node end of the node-leaf links of one network."""

    nodes: int
    ports_per_node: int  # NIC ports per node on this network (links per plane)
    nic_speed_gbps: float  # port speed of one NIC port (all planes together)
    twin_port_cages: bool  # two NIC ports behind one cage (DGX H100/B200)
    distance_m: float  # reach class of the node-leaf links
    extra_links: int = 0  # fabric manager links on the leaves (plane 0)
    extra_name: str = ""


@dataclass
class NetworkBuild:
    name: str
    switch_id: str
    sizing: PlaneSizing
    planes: int
    groups: dict[str, LinkGroup]
    tiers: list[dict]
    bom: list[dict]
    extra_links_placed: bool


TIER_NAMES = ("leaf", "spine", "core")


@dataclass(frozen=True)
class TierPorts:
    """How one tier's switch packs links: links per native port, ports per cage, the speed of
    the module in one cage and whether a cage holds two links."""

    lpnp: int
    ppc: int
    cage_speed: float
    twin: bool


def tier_ports(switch, mode) -> TierPorts:
    lpnp = mode.links_per_native_port
    ppc = ports_per_cage(switch)
    return TierPorts(lpnp, ppc, switch_cage_speed(mode, ppc), ppc == 2 or lpnp == 2)


def build_network(
    *,
    name: str,
    catalog,
    switch,
    sizing: PlaneSizing,
    planes: int,
    ends: NodeEnds,
    switch_reach_m: float,
) -> NetworkBuild:
    """`switch`: one switch for every tier, or a dict tier -> switch (leaf, spine, core).
    `switch_reach_m`: reach class of the switch-to-switch links (the site floor's longest run);
    each link class's medium and modules are chosen to reach its class."""
    switches = switch if isinstance(switch, dict) else dict.fromkeys(TIER_NAMES, switch)
    plan, attach = sizing.plan, sizing.attachment
    ports = {tier: tier_ports(switches[tier], sizing.tier_mode(tier)) for tier in TIER_NAMES}
    lpnp, ppc = ports["leaf"].lpnp, ports["leaf"].ppc
    cage_speed, twin_cage = ports["leaf"].cage_speed, ports["leaf"].twin

    node_medium = medium_for(ends.distance_m)
    # Fabric-manager links go into a free node slot of the last unit (DGX SuperPOD H100: 31
    # nodes + UFM per SU). With every slot taken they are left out and reported.
    capacity = attach.free_slots * attach.links_per_node_per_leaf * attach.leaves_per_unit
    placed = ends.extra_links <= capacity
    extra = ends.extra_links if placed else 0
    first_plane = leaf_down_usage(attach, lpnp, ppc, extra)
    other_planes = leaf_down_usage(attach, lpnp, ppc, 0)
    node_native = first_plane.native_down + (planes - 1) * other_planes.native_down
    node_cages = first_plane.cages_down + (planes - 1) * other_planes.cages_down
    node_links = attach.node_links * planes + extra

    groups: dict[str, LinkGroup] = {}
    modules: dict[tuple, int] = {}

    def add_modules(key, count: int, group: LinkGroup) -> None:
        """Module key: (side, speed, fiber, twin, reach class); the group reaches as far as
        its shortest module."""
        if count:
            modules[key] = modules.get(key, 0) + count
            reach = pick_module(catalog, *key[1:]).reach_m
            group.reach_m = min(group.reach_m, reach) if group.reach_m else reach

    # Node-leaf: cables = leaf ports in use; DAC splitters serve two NIC ports per cage.
    if node_medium == "dac":
        node_cables = node_cages if twin_cage else node_native
        groups["node_leaf"] = LinkGroup(
            "node-leaf",
            node_links,
            sizing.leaf_down_gbps,
            node_cables,
            "dac",
            ends.distance_m,
            reach_m=_dac_reach_m(catalog, twin_cage),
        )
    else:
        modules_per_node = (
            -(-ends.ports_per_node // 2) if ends.twin_port_cages else ends.ports_per_node
        )
        node_module_speed = ends.nic_speed_gbps * (2 if ends.twin_port_cages else 1)
        node_twin = ends.twin_port_cages or planes > 1
        fiber = fiber_of(node_medium)
        node_modules = ends.nodes * modules_per_node
        groups["node_leaf"] = LinkGroup(
            "node-leaf",
            node_links,
            sizing.leaf_down_gbps,
            node_native,
            node_medium,
            ends.distance_m,
            switch_cages=node_cages,
            node_modules=node_modules + extra,
        )
        group, reach = groups["node_leaf"], ends.distance_m
        add_modules(("switch", cage_speed, fiber, twin_cage, reach), node_cages, group)
        add_modules(("node", node_module_speed, fiber, node_twin, reach), node_modules, group)
        add_modules(("extra", sizing.leaf_down_gbps, fiber, False, reach), extra, group)

    # Switch-to-switch tiers.
    leaf_up = tier_ports(switches["leaf"], sizing.up_mode)  # may run at its own speed
    packing = {tier: (p.lpnp, p.ppc) for tier, p in ports.items()}
    upper = upper_tier_usage(plan, {**packing, "leaf": (leaf_up.lpnp, leaf_up.ppc)})
    link_gbps = sizing.up_mode.speed_gbps  # leaf uplinks, and every link above them
    reach = switch_reach_m
    if plan.leaf_up:
        medium = medium_for(reach)
        below, above = upper["leaf"].cages_up * planes, upper["spine"].cages_down * planes
        groups["leaf_spine"] = LinkGroup(
            "leaf-spine",
            plan.links_leaf_spine * planes,
            link_gbps,
            upper["leaf"].native_up * planes,
            medium,
            reach,
            switch_cages=below + above,
        )
        for tier_port, count in ((leaf_up, below), (ports["spine"], above)):
            key = ("switch", tier_port.cage_speed, fiber_of(medium), tier_port.twin, reach)
            add_modules(key, count, groups["leaf_spine"])
    if plan.cores:
        medium = medium_for(reach)
        below, above = upper["spine"].cages_up * planes, upper["core"].cages_down * planes
        groups["spine_core"] = LinkGroup(
            "spine-core",
            plan.links_spine_core * planes,
            link_gbps,
            upper["spine"].native_up * planes,
            medium,
            reach,
            switch_cages=below + above,
        )
        for tier, count in (("spine", below), ("core", above)):
            tier_port = ports[tier]
            key = ("switch", tier_port.cage_speed, fiber_of(medium), tier_port.twin, reach)
            add_modules(key, count, groups["spine_core"])

    tiers = _tiers(sizing, planes, node_native, upper)
    for tier in tiers:
        tier["switch_sku"] = switches[tier["tier"]].id
    bom = _switch_lines(name, switches, tiers, catalog) + _module_lines(name, catalog, modules)
    bom += _cable_lines(name, groups, catalog, twin_cage)
    return NetworkBuild(name, switches["leaf"].id, sizing, planes, groups, tiers, bom, placed)


def _tiers(sizing: PlaneSizing, planes: int, node_native: int, upper: dict) -> list[dict]:
    """Switches and native ports total / used / free per tier, all planes."""
    plan = sizing.plan
    used = {
        "leaf": node_native + upper["leaf"].native_up * planes,
        "spine": (upper["spine"].native_down + upper["spine"].native_up) * planes,
        "core": upper["core"].native_down * planes,
    }
    counts = {"leaf": plan.leaves, "spine": plan.spines, "core": plan.cores}
    tiers = []
    for tier in TIER_NAMES:
        count = counts[tier] * planes
        if not count:
            continue
        mode = sizing.tier_mode(tier)
        total = count * mode.native_ports
        tiers.append(
            {
                "tier": tier,
                "switches": count,
                "ports_total": total,
                "ports_used": used[tier],
                "ports_free": total - used[tier],
                "port_speed_gbps": mode.native_speed_gbps,
                "link_speed_gbps": mode.speed_gbps,
                "links_per_port": mode.links_per_native_port,
            }
        )
    return tiers


def _switch_lines(network: str, switches: dict, tiers: list[dict], catalog) -> list[dict]:
    return [_switch_line(network, switches[tier["tier"]], tier, catalog) for tier in tiers]


def _switch_line(network: str, switch, tier: dict, catalog) -> dict:
    typical, maximum, note = switch_chassis_power_w(switch)
    if typical is None and maximum is None:
        typical, maximum, note = switch_power_allowance_w(switch, catalog) or (None, None, None)
    return bom_line(
        item=f"{network} {tier['tier']} switch: {switch.name}",
        catalog_id=switch.id,
        category="switch",
        network=network,
        quantity=tier["switches"],
        unit_power_w=typical,
        unit_power_max_w=maximum,
        unit_price_usd=switch.price_usd,
        placement="network rack",
        rack_units=switch.rack_units,
        note=note,
    )


_SIDE_LABEL = {
    "switch": "switch side",
    "node": "node side",
    "extra": "fabric-manager side",
}


def _module_lines(network: str, catalog, modules: dict[tuple, int]) -> list[dict]:
    lines = []
    merged: dict[tuple, int] = {}
    for (side, speed, fiber, twin, reach), count in modules.items():
        module = pick_module(catalog, speed, fiber, twin, reach)
        key = (side, speed, fiber, twin, module)
        merged[key] = merged.get(key, 0) + count
    for (side, _speed, _fiber, _twin, module), count in sorted(merged.items(), key=str):
        note = None
        if module.catalog_id is None:
            note = "allowance: no catalog module; power scaled from the 800G module (derived)"
        elif module.power_estimated:
            note = (
                "allowance: no published power for this module; power scaled from the 800G "
                "module of its fiber class (derived)"
            )
        lines.append(
            bom_line(
                item=f"{network} transceiver ({_SIDE_LABEL[side]}): {module.name}",
                catalog_id=module.catalog_id,
                category="transceiver",
                network=network,
                quantity=count,
                unit_power_w=module.power_w,
                unit_power_max_w=module.power_max_w,
                unit_price_usd=module.price_usd,
                placement="compute rack" if side == "node" else "network rack",
                note=note,
                speed_gbps=module.speed_gbps,
            )
        )
    return lines


def _dac_reach_m(catalog, twin_cage: bool) -> float:
    """Reach of the DAC the node links use (the splitter on twin-port cages), else the DAC
    reach class."""
    optic = catalog.optics.get("dac-800g-to-2x400g-splitter") if twin_cage else None
    return optic.reach_m if optic else DAC_MAX_REACH_M


def _cable_lines(network: str, groups: dict[str, LinkGroup], catalog, twin_cage: bool):
    lines = []
    for group in groups.values():
        if not group.cables:
            continue
        if group.medium == "dac":
            cable_id = "dac-800g-to-2x400g-splitter" if twin_cage else None
            optic = catalog.optics.get(cable_id) if cable_id else None
            item = optic.name if optic else f"{group.link_gbps:g}G passive DAC"
            price = optic.price_usd if optic else None
            catalog_id = optic.id if optic else None
        else:
            kind = "OM4 multimode" if group.medium == "multimode" else "OS2 single-mode"
            item, price, catalog_id = f"MPO fibre, {kind}", None, None
        lines.append(
            bom_line(
                item=f"{network} cable {group.name}: {item}",
                catalog_id=catalog_id,
                category="cable",
                network=network,
                quantity=group.cables,
                unit_power_w=0.0,
                unit_power_max_w=0.0,
                unit_price_usd=price,
                power_basis="passive",
                speed_gbps=group.link_gbps,
            )
        )
    return lines
