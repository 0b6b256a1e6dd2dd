"""Frontend (north-south, in-band) and storage networks: sized on their own switches, or carried
on the compute fabric (converged).

A separate network is a non-blocking leaf-spine of whole nodes per leaf. The storage network
also attaches the shared storage targets: enough target ports at its port speed to carry the
larger of the shared tiers' aggregate read or write bandwidth.
"""

from __future__ import annotations

import math

from .bom import bom_line
from .build import NodeEnds, build_network
from .clos import port_mode_for
from .data import ETHERNET_AUX_SWITCH
from .roce import finding
from .sizing import size_plane


def storage_target_ports(storage, port_gbps: float) -> int:
    """Ports the shared tiers need to deliver their aggregate bandwidth at `port_gbps`."""
    gbytes = sum(
        max(tier.read_gbytes_per_s, tier.write_gbytes_per_s)
        for tier in storage.tiers
        if tier.kind == "parallel-fs"
    )
    return math.ceil(gbytes * 8.0 / port_gbps) if gbytes else 0


def _switch_for(name: str, spec, catalog):
    fabric = spec.fabric
    if name == "storage" and fabric.technology.startswith("infiniband"):
        return catalog.get("switches", fabric.switch_sku)
    return catalog.get("switches", ETHERNET_AUX_SWITCH)


def build_auxiliary(name: str, network, spec, catalog, nodes: int, reach_m: float) -> dict:
    """Result block (and BOM) of the frontend or storage network. `reach_m`: the site's reach
    class (the compute fabric's `site_reach_m`): its leaves stand anywhere on the floor."""
    path = f"fabric.{name}_network"
    if network.mode == "converged":
        return {
            "result": {
                "mode": "converged",
                "carried_on": "compute fabric",
                "switches": 0,
                "tiers": [],
                "links": {},
            },
            "bom": [],
            "findings": [
                finding(
                    f"{name}-network-converged",
                    "info",
                    f"{name} traffic shares the compute NICs and fabric: it competes with "
                    "collective traffic (checkpoint and data-loading bursts slow the step)",
                    f"{path}.mode",
                )
            ],
            "build": None,
        }
    switch = _switch_for(name, spec, catalog)
    speed = float(network.nic_speed_gbps)
    mode = port_mode_for(switch, speed)
    targets = storage_target_ports(spec.storage, speed) if name == "storage" else 0
    endpoints = nodes * network.nics_per_node + targets
    sizing = size_plane(
        nodes=endpoints,
        ports_per_node=1,
        attachment="tor",
        force_three_tier=False,
        mode=mode,
        node_link_gbps=min(speed, mode.speed_gbps),
        leaf_oversubscription=1.0,
        spine_oversubscription=1.0,
    )
    ends = NodeEnds(
        nodes=endpoints,
        ports_per_node=1,
        nic_speed_gbps=speed,
        twin_port_cages=False,
        distance_m=reach_m,
    )
    build = build_network(
        name=name,
        catalog=catalog,
        switch=switch,
        sizing=sizing,
        planes=1,
        ends=ends,
        switch_reach_m=reach_m,
    )
    findings = []
    if speed > mode.speed_gbps:
        findings.append(
            finding(
                f"{name}-network-speed",
                "error",
                f"{switch.name} ports run at most {mode.speed_gbps:g} Gb/s; the {name} NICs are "
                f"{speed:g} Gb/s",
                f"{path}.nic_speed_gbps",
            )
        )
    result = {
        "mode": "separate",
        "switch_sku": switch.id,
        "endpoints": endpoints,
        "storage_target_ports": targets,
        "nic_ports": nodes * network.nics_per_node,
        "nic_speed_gbps": speed,
        "switches": sum(t["switches"] for t in build.tiers),
        "tiers": build.tiers,
        "links": {key: group.as_dict() for key, group in build.groups.items()},
    }
    nic_line = bom_line(
        item=f"{name} NIC port ({speed:g} Gb/s)",
        catalog_id=None,
        category="nic",
        network=name,
        quantity=nodes * network.nics_per_node,
        unit_power_w=None,
        unit_power_max_w=None,
        unit_price_usd=None,
        placement="compute rack",
        note="NIC model not in the spec; its power is inside the system's max power",
        power_basis="in-system",
        speed_gbps=speed,
    )
    return {"result": result, "bom": [*build.bom, nic_line], "findings": findings, "build": build}
