"""The compute (scale-out, east-west) fabric: size it, build it, and describe it.

Planes: `planes` independent fabrics; each NIC port of nic_speed_gbps is split into one link per
plane at nic_speed_gbps / planes (B300 Spectrum-4 RA: "each GPU has 2 x 400GbE connectivity
through two different planes" from an 800G ConnectX-8). Rails: one leaf per NIC port per SU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models_engine.cable_runs import longest_run_m
from models_engine.spec import SpecValidationError
from models_engine.spec.errors import error
from models_engine.systems import SystemFigures, nodes_per_rack

from .build import NetworkBuild, NodeEnds, build_network
from .clos import port_mode_for
from .data import (
    FABRIC_MANAGER_LINKS,
    FLOOR_EXTRA_POSITIONS,
    FLOOR_POSITIONS_PER_COMPUTE_RACK,
    IN_RACK_LINK_M,
    TWIN_PORT_NODE_SYSTEMS,
)
from .sizing import PlaneSizing, TierIntentError, max_nodes, size_plane


@dataclass(frozen=True)
class ComputeFabric:
    build: NetworkBuild
    nodes: int
    gpus_per_node: int
    nics_per_node: int
    planes: int
    link_gbps: float
    fabric_manager_links: int
    site_reach_m: float  # reach class of links that leave a rack (site_reach_m)

    @property
    def sizing(self) -> PlaneSizing:
        return self.build.sizing


def tier_switches(fabric, catalog) -> dict:
    """The switch of each tier: the leaf's switch_sku, the spine's spine_switch_sku (or the
    leaf's), the core's core_switch_sku (or the spine's)."""
    leaf = catalog.get("switches", fabric.switch_sku)
    spine = catalog.get("switches", fabric.spine_switch_sku) if fabric.spine_switch_sku else leaf
    core = catalog.get("switches", fabric.core_switch_sku) if fabric.core_switch_sku else spine
    return {"leaf": leaf, "spine": spine, "core": core}


def plan_compute_sizing(
    fabric, nodes: int, switch, node_link_gbps: float | None = None, switches: dict | None = None
) -> PlaneSizing:
    """One plane of the compute fabric. `switches` (tier -> switch) gives the spine and core
    their own switches; their ports run at the leaf uplinks' speed."""
    link = fabric.nic_speed_gbps / fabric.planes
    mode = port_mode_for(switch, link)
    up_speed = fabric.leaf_uplink_speed_gbps
    up_mode = port_mode_for(switch, up_speed) if up_speed else None
    up_speed = (up_mode or mode).speed_gbps
    switches = switches or {}
    spine = switches.get("spine", switch)
    own_spine = spine is not switch or up_mode is not None
    spine_mode = port_mode_for(spine, up_speed) if own_spine else None
    core = switches.get("core", spine)
    core_mode = port_mode_for(core, up_speed) if core is not spine else spine_mode
    return size_plane(
        nodes=nodes,
        ports_per_node=fabric.nics_per_node,
        attachment="rail" if fabric.topology == "rail-optimized" else "tor",
        force_three_tier=fabric.topology == "fat-tree-3tier",
        mode=mode,
        node_link_gbps=node_link_gbps or min(link, mode.speed_gbps),
        leaf_oversubscription=fabric.oversubscription.leaf,
        spine_oversubscription=fabric.oversubscription.spine,
        tiers=fabric.tiers,
        spine_mode=spine_mode,
        core_mode=core_mode,
        leaf_up_mode=up_mode,
    )


def tier_intent_message(fabric, switch, exc: TierIntentError, spine=None) -> str:
    """Why the stated tier count cannot be built, in the architect's terms (endpoints = NIC
    ports on one plane). `spine`: the spine's own switch, when it differs from the leaf."""
    ports = fabric.nics_per_node
    mode = port_mode_for(switch, fabric.nic_speed_gbps / fabric.planes)
    box = f"{switch.name} ({mode.ports} ports at {mode.speed_gbps:g}G)"
    if spine is not None and spine is not switch:
        spine_mode = port_mode_for(spine, mode.speed_gbps)
        box += f" leaves under {spine.name} ({spine_mode.ports} ports) spines"
    if exc.tiers == 2:
        ratio = f"{fabric.oversubscription.leaf:g}:1"
        plane = " per plane" if fabric.planes > 1 else ""
        return (
            f"2 tiers of {box} hold at most {exc.max_nodes * ports:,} endpoints{plane} at "
            f"{ratio} leaf oversubscription; this design needs {exc.nodes * ports:,} "
            f"({exc.nodes:,} nodes x {ports} ports): choose tiers 3 or auto, a larger switch, "
            "or more leaf oversubscription"
        )
    return (
        f"3 tiers: the {exc.nodes:,} nodes fit in one pod of up to {exc.leaves_per_pod} leaves "
        f"of {box} under one spine layer, so there is no core tier to build: choose tiers 2 "
        "or auto"
    )


def sized_or_error(fabric, nodes: int, switches: dict) -> PlaneSizing:
    """plan_compute_sizing, with a stated tier count it cannot build as a spec error."""
    switch = switches["leaf"]
    try:
        return plan_compute_sizing(fabric, nodes, switch, switches=switches)
    except TierIntentError as exc:
        message = tier_intent_message(fabric, switch, exc, switches["spine"])
        raise SpecValidationError(
            [error("fabric.tiers", message, {"one_of": ["auto", 2, 3]})]
        ) from exc


def site_reach_m(spec, nodes: int, system: SystemFigures) -> float:
    """Reach class of every link that leaves a rack: the longest run of a floor laid out as
    `spec.physical` states, holding this site's compute racks (the shared packing rule,
    `systems.nodes_per_rack`) plus an allowance for the other racks and CDUs. One figure for
    every link class, as leaves, spines and storage may stand anywhere on that floor."""
    per_rack = nodes_per_rack(system, spec.facility.rack_power_limit_kw)
    racks = -(-nodes // max(per_rack, 1))
    positions = math.ceil(racks * FLOOR_POSITIONS_PER_COMPUTE_RACK) + FLOOR_EXTRA_POSITIONS
    return longest_run_m(spec.physical, positions)


def node_link_distance_m(
    sizing: PlaneSizing, system: SystemFigures, rack_limit_kw: float, site_reach: float
) -> float:
    """Top-of-rack leaves reach nodes in their own rack with copper; rail leaves do not."""
    attach = sizing.attachment
    if attach.kind == "tor" and 0 < attach.nodes_per_unit <= nodes_per_rack(system, rack_limit_kw):
        return IN_RACK_LINK_M
    return site_reach


def build_compute_fabric(spec, catalog, system: SystemFigures) -> ComputeFabric:
    fabric, compute = spec.fabric, spec.compute
    switches = tier_switches(fabric, catalog)
    nodes = compute.gpu_count // compute.gpus_per_node
    sizing = sized_or_error(fabric, nodes, switches)
    reach = site_reach_m(spec, nodes, system)
    fm_links = FABRIC_MANAGER_LINKS if fabric.technology.startswith("infiniband") else 0
    ends = NodeEnds(
        nodes=nodes,
        ports_per_node=fabric.nics_per_node,
        nic_speed_gbps=fabric.nic_speed_gbps,
        twin_port_cages=system.id in TWIN_PORT_NODE_SYSTEMS,
        distance_m=node_link_distance_m(sizing, system, spec.facility.rack_power_limit_kw, reach),
        extra_links=fm_links,
        extra_name="fabric manager (UFM)",
    )
    build = build_network(
        name="compute",
        catalog=catalog,
        switch=switches,
        sizing=sizing,
        planes=fabric.planes,
        ends=ends,
        switch_reach_m=reach,
    )
    return ComputeFabric(
        build=build,
        nodes=nodes,
        gpus_per_node=compute.gpus_per_node,
        nics_per_node=fabric.nics_per_node,
        planes=fabric.planes,
        link_gbps=sizing.leaf_down_gbps,
        fabric_manager_links=fm_links,
        site_reach_m=reach,
    )


def hop_counts(sizing: PlaneSizing) -> dict[str, int]:
    """Switch hops between two GPUs' NICs (fabric_power.md "Switch hops"): one inside a rail
    leaf (or ToR), three through a spine, five through the core."""
    plan = sizing.plan
    through_spine = 3 if plan.tiers >= 2 else 1
    cross_pod = 5 if plan.cores else through_spine
    if sizing.attachment.kind == "rail":
        return {
            "same_rail_same_su": 1,
            "cross_rail": through_spine,
            "cross_su": through_spine,
            "cross_pod": cross_pod,
        }
    return {"same_leaf": 1, "cross_leaf": through_spine, "cross_pod": cross_pod}


def capacity_gpus(cf: ComputeFabric) -> dict[str, int]:
    """Largest GPU counts this switch and port split reach with two and three tiers."""
    nodes = max_nodes(cf.sizing, cf.nics_per_node)
    return {
        "max_gpus_two_tier": nodes["two_tier"] * cf.gpus_per_node,
        "max_gpus_three_tier": nodes["three_tier"] * cf.gpus_per_node,
    }


def growth_step(spec, catalog, cf: ComputeFabric) -> dict:
    """What the next scalable unit (rail) or leaf (ToR) adds, against the current full units."""
    attach = cf.sizing.attachment
    switches = tier_switches(spec.fabric, catalog)
    switch = switches["leaf"]
    per_unit = attach.nodes_per_unit or 1
    now = plan_compute_sizing(spec.fabric, attach.units * per_unit, switch, cf.link_gbps, switches)
    try:
        nxt = plan_compute_sizing(
            spec.fabric, (attach.units + 1) * per_unit, switch, cf.link_gbps, switches
        )
    except TierIntentError:  # the next unit needs more tiers than the design states
        nxt = None
    planes = cf.planes
    if nxt is None:
        return {
            "unit": "scalable unit" if attach.kind == "rail" else "leaf",
            "adds_nodes": per_unit,
            "adds_gpus": per_unit * cf.gpus_per_node,
            "exceeds_stated_tiers": True,
            "changes_tiers": True,
        }

    def delta(attr: str) -> int:
        return (getattr(nxt.plan, attr) - getattr(now.plan, attr)) * planes

    return {
        "unit": "scalable unit" if attach.kind == "rail" else "leaf",
        "adds_nodes": per_unit,
        "adds_gpus": per_unit * cf.gpus_per_node,
        "adds_leaf_switches": delta("leaves"),
        "adds_spine_switches": delta("spines"),
        "adds_core_switches": delta("cores"),
        "adds_leaf_spine_links": delta("links_leaf_spine"),
        "adds_spine_core_links": delta("links_spine_core"),
        "changes_tiers": nxt.plan.tiers != now.plan.tiers,
    }
