"""Fabric engine: the NVLink (scale-up) domain, the compute (scale-out) fabric, the frontend and
storage networks, RoCE lossless checks, and the bill of materials.

    evaluate_fabric(spec, catalog) -> FabricResult   # one fabric per site, plus the WAN
    evaluate_site_networks(site_spec, catalog) -> dict  # the networks of one site

Each site's compute fabric is sized to that site's GPUs only (`models_engine.sites`), so the
capacity check (`fabric-capacity-exceeded`) is per site. The WAN / data-centre-interconnect
routers and coherent optics between sites come from `regions.wan_links` (`wan.py`), each BOM
line tagged with its site. The system a design is built from is resolved by the shared
`models_engine.systems` (the fabric engine never imports the facility engine).

Validated against the NVIDIA DGX SuperPOD reference architectures (fabric_power.md [S1]):
switch and cable counts come from radix, rails, planes and the equal-links-per-spine rule, not
from a lookup table.
"""

from __future__ import annotations

from models_engine.hardware import resolve_gpu
from models_engine.systems import resolve_system

from .auxiliary import build_auxiliary
from .bom import bom_line, sum_field
from .checks import part_findings, sizing_findings, unknown_figure_findings
from .compute import build_compute_fabric, capacity_gpus, growth_step, hop_counts
from .data import (
    FABRIC_MANAGER_APPLIANCE_POWER_MAX_W,
    FABRIC_MANAGER_APPLIANCE_RACK_UNITS,
    FABRIC_MANAGER_APPLIANCES,
)
from .report import (
    bisection,
    breakdown,
    cables_block,
    diagram,
    equal_links_block,
    network_for_performance,
    oversubscription_block,
    power_block,
    transceivers_block,
)
from .result import FabricResult, SiteFabric
from .roce import roce_check
from .scale_up import evaluate_scale_up

__all__ = ["FabricResult", "SiteFabric", "evaluate_fabric", "evaluate_site_networks"]


def evaluate_site_networks(spec, catalog) -> dict:
    """Size and cost the networks of one site (`spec` scoped to that site's GPUs)."""
    gpu = resolve_gpu(spec.compute, catalog)
    system = resolve_system(spec.compute, catalog, gpu)
    fabric = spec.fabric
    switch = catalog.get("switches", fabric.switch_sku)
    nic = catalog.get("nics", fabric.nic_sku)

    scale_up = evaluate_scale_up(spec.compute, gpu)
    cf = build_compute_fabric(spec, catalog, system)
    capacity = capacity_gpus(cf)
    hops = hop_counts(cf.sizing)
    sizing = cf.sizing

    bom = list(cf.build.bom)
    bom.append(_nic_line(cf, nic, system))
    if cf.fabric_manager_links:
        bom.append(
            bom_line(
                item="UFM Enterprise appliance (InfiniBand fabric manager)",
                catalog_id=None,
                category="appliance",
                network="compute",
                quantity=FABRIC_MANAGER_APPLIANCES,
                unit_power_w=FABRIC_MANAGER_APPLIANCE_POWER_MAX_W,
                unit_power_max_w=FABRIC_MANAGER_APPLIANCE_POWER_MAX_W,
                unit_price_usd=None,
                placement="network rack",
                rack_units=FABRIC_MANAGER_APPLIANCE_RACK_UNITS,
                note="0.689 kW max (fabric_power.md [S20]); typical not published",
            )
        )
    frontend = build_auxiliary(
        "frontend", fabric.frontend_network, spec, catalog, cf.nodes, cf.site_reach_m
    )
    storage = build_auxiliary(
        "storage", fabric.storage_network, spec, catalog, cf.nodes, cf.site_reach_m
    )
    bom += frontend["bom"] + storage["bom"]

    link_speeds = [group.link_gbps for group in cf.build.groups.values()]
    roce = roce_check(fabric, link_speeds, max(hops.values()))
    findings = (
        part_findings(spec, switch, nic, system)
        + sizing_findings(spec, cf, capacity)
        + roce["findings"]
        + frontend["findings"]
        + storage["findings"]
        + unknown_figure_findings(bom)
    )
    attach, plan = sizing.attachment, sizing.plan
    counts = {
        "leaf": plan.leaves * cf.planes,
        "spine": plan.spines * cf.planes,
        "core": plan.cores * cf.planes,
    }
    tiers = cf.build.tiers
    scale_out = {
        "topology": fabric.topology,
        "technology": fabric.technology,
        "switch_sku": switch.id,
        "nic_sku": nic.id,
        "nodes": cf.nodes,
        "gpus": spec.compute.gpu_count,
        "rails": cf.nics_per_node if attach.kind == "rail" else None,
        "planes": cf.planes,
        "link_speed_gbps": cf.link_gbps,
        "port_mode": {
            "ports_per_switch": sizing.mode.ports,
            "port_speed_gbps": sizing.mode.speed_gbps,
            "breakout_used": sizing.mode.links_per_native_port > 1,
        },
        "tiers": plan.tiers,
        "scalable_units": attach.units if attach.kind == "rail" else None,
        "nodes_per_su": attach.nodes_per_unit if attach.kind == "rail" else None,
        "leaves_per_su": attach.leaves_per_unit * cf.planes if attach.kind == "rail" else None,
        "nodes_per_leaf": attach.nodes_per_unit if attach.kind == "tor" else None,
        "free_node_slots": attach.free_slots,
        "pods": plan.pods,
        "switches": {**counts, "total": sum(counts.values())},
        "switch_tiers": tiers,
        "ports": {
            "total": sum(t["ports_total"] for t in tiers),
            "used": sum(t["ports_used"] for t in tiers),
            "free": sum(t["ports_free"] for t in tiers),
        },
        "links": {key: group.as_dict() for key, group in cf.build.groups.items()},
        "cables": cables_block(cf),
        "transceivers": transceivers_block(cf),
        "nics": {
            "nic_sku": nic.id,
            "ports": cf.nodes * cf.nics_per_node,
            "cards": -(-cf.nodes * cf.nics_per_node // nic.ports),
            "speed_gbps": fabric.nic_speed_gbps,
        },
        "fabric_manager": {
            "links": cf.fabric_manager_links,
            "placed_in_free_slot": cf.build.extra_links_placed if cf.fabric_manager_links else None,
            "appliances": FABRIC_MANAGER_APPLIANCES if cf.fabric_manager_links else 0,
        },
        "oversubscription": oversubscription_block(spec, cf),
        "equal_links": equal_links_block(cf),
        "bisection": bisection(cf, fabric.nic_speed_gbps),
        "hops": hops,
        "capacity": {**capacity, "within_capacity": plan.within_capacity},
        "growth_step": growth_step(spec, catalog, cf),
    }
    power = power_block(bom)
    return {
        "scale_up": scale_up,
        "scale_out": scale_out,
        "frontend_network": frontend["result"],
        "storage_network": storage["result"],
        "roce": roce["block"],
        "findings": findings,
        "bom": bom,
        "power_w": power,
        "price_usd": {
            "known_total": sum_field(bom, "total_price_usd"),
            "items_without_price": sorted(
                {line["item"] for line in bom if line["unit_price_usd"] is None}
            ),
        },
        "diagram": diagram(cf, scale_up),
        "network_for_performance": network_for_performance(spec, cf, nic, scale_up, hops),
        "breakdown": breakdown(cf, bom),
    }


def _nic_line(cf, nic, system) -> dict:
    included = system.id is not None and system.scale_out_nics_per_system is not None
    return bom_line(
        item=f"compute NIC: {nic.name}",
        catalog_id=nic.id,
        category="nic",
        network="compute",
        quantity=-(-cf.nodes * cf.nics_per_node // nic.ports),
        unit_power_w=nic.power_w,
        unit_power_max_w=nic.power_w,
        unit_price_usd=nic.price_usd,
        placement="compute rack",
        note="part of the system (its price and max power include it)" if included else None,
        power_basis="in-system" if included else None,
        speed_gbps=nic.line_rate_gbit_per_s,
    )


from .cluster import evaluate_fabric  # noqa: E402  (the cluster assembles the site fabrics)
