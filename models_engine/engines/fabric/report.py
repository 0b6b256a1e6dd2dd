"""Plain-data views of the built compute fabric: the scale-out block, the diagram the studio
draws, the figures the performance engine consumes, and chart breakdowns."""

from __future__ import annotations

from .bom import sum_field
from .compute import ComputeFabric


def _counts(cf: ComputeFabric) -> dict[str, int]:
    plan, planes = cf.sizing.plan, cf.planes
    return {
        "leaf": plan.leaves * planes,
        "spine": plan.spines * planes,
        "core": plan.cores * planes,
        "total": plan.switches * planes,
    }


def cables_block(cf: ComputeFabric) -> dict:
    groups = cf.build.groups
    node = groups["node_leaf"]
    placed = cf.fabric_manager_links if cf.build.extra_links_placed else 0
    node_only = node.cables - placed if node.medium != "dac" else node.cables
    leaf_spine = groups["leaf_spine"].cables if "leaf_spine" in groups else 0
    spine_core = groups["spine_core"].cables if "spine_core" in groups else 0
    by_medium: dict[str, int] = {}
    for group in groups.values():
        by_medium[group.medium] = by_medium.get(group.medium, 0) + group.cables
    return {
        "node_leaf": node_only,
        "fabric_manager": placed,
        "compute_and_fabric_manager": node.cables,
        "leaf_spine": leaf_spine,
        "spine_core": spine_core,
        "total": node.cables + leaf_spine + spine_core,
        "by_medium": by_medium,
    }


def transceivers_block(cf: ComputeFabric) -> dict:
    groups = cf.build.groups.values()
    switch_side = sum(group.switch_cages for group in groups)
    placed = cf.fabric_manager_links if cf.build.extra_links_placed else 0
    node_side = sum(group.node_modules for group in groups) - (
        placed if cf.build.groups["node_leaf"].medium != "dac" else 0
    )
    by_module = [
        {"item": line["item"], "catalog_id": line["catalog_id"], "quantity": line["quantity"]}
        for line in cf.build.bom
        if line["category"] == "transceiver"
    ]
    fm_side = placed if cf.build.groups["node_leaf"].medium != "dac" else 0
    return {
        "switch_side": switch_side,
        "node_side": node_side,
        "fabric_manager_side": fm_side,
        "total": switch_side + node_side + fm_side,
        "by_module": by_module,
    }


def bisection(cf: ComputeFabric, nic_speed_gbps: float) -> dict:
    """N x B / (2 x o) at the top cut (fabric_power.md "Bisection bandwidth")."""
    sizing = cf.sizing
    injection = cf.nodes * cf.nics_per_node * nic_speed_gbps
    # Spare uplinks (ratio < 1, from rounding) cannot lift bisection above the injection limit.
    leaf_o = max(1.0, sizing.leaf_oversubscription)
    cut_o = leaf_o * (max(1.0, sizing.spine_oversubscription) if sizing.plan.cores else 1.0)
    gbit = injection / (2.0 * cut_o)
    return {
        "injection_gbit_per_s": injection,
        "bisection_gbit_per_s": gbit,
        "bisection_tbytes_per_s": gbit / 8.0 / 1000.0,
        "oversubscription_at_cut": cut_o,
        "bisection_within_pod_gbit_per_s": injection / (2.0 * leaf_o),
    }


def oversubscription_block(spec, cf: ComputeFabric) -> dict:
    sizing = cf.sizing
    return {
        "leaf_requested": spec.fabric.oversubscription.leaf,
        "leaf": sizing.leaf_oversubscription,
        "spine_requested": spec.fabric.oversubscription.spine,
        "spine": sizing.spine_oversubscription,
        "leaf_downlinks": sizing.attachment.leaf_down if sizing.plan.leaf_up else 0,
        "leaf_uplinks": sizing.plan.leaf_up,
        "spine_downlinks": sizing.plan.spine_down if sizing.plan.spines else 0,
        "spine_uplinks": sizing.plan.spine_up,
    }


def equal_links_block(cf: ComputeFabric) -> dict:
    """Each leaf lands leaf_up / spines_per_pod links on every spine of its pod; each spine
    lands spine_up / cores_per_group links on every core of its group."""
    plan = cf.sizing.plan
    return {
        "links_per_leaf_per_spine": plan.leaf_up // plan.spines_per_pod
        if plan.spines_per_pod
        else 0,
        "spines_per_pod": plan.spines_per_pod,
        "links_per_spine_per_core": plan.spine_up // plan.cores_per_group
        if plan.cores_per_group
        else 0,
        "cores_per_group": plan.cores_per_group,
        "leaves_per_pod": plan.leaves_per_pod,
    }


def diagram(cf: ComputeFabric, scale_up: dict) -> dict:
    counts = _counts(cf)
    sizing = cf.sizing
    tiers = [
        {
            "name": name,
            "switches": counts[name],
            "ports_per_switch": sizing.tier_mode(name).native_ports,
            "port_speed_gbps": sizing.tier_mode(name).native_speed_gbps,
        }
        for name in ("core", "spine", "leaf")
        if counts[name]
    ]
    tiers.append(
        {
            "name": "nodes",
            "count": cf.nodes,
            "gpus_per_node": cf.gpus_per_node,
            "nics_per_node": cf.nics_per_node,
            "nvlink_domain_gpus": scale_up["gpus_per_domain"],
        }
    )
    names = {"node_leaf": ("nodes", "leaf"), "leaf_spine": ("leaf", "spine")}
    names["spine_core"] = ("spine", "core")
    links = [
        {
            "from": names[key][0],
            "to": names[key][1],
            "links": group.links,
            "cables": group.cables,
            "speed_gbps": group.link_gbps,
            "medium": group.medium,
        }
        for key, group in cf.build.groups.items()
    ]
    attach, plan = cf.sizing.attachment, cf.sizing.plan
    return {
        "tiers": tiers,
        "links": links,
        "groups": {
            "planes": cf.planes,
            "rails": cf.nics_per_node if attach.kind == "rail" else None,
            "scalable_units": attach.units if attach.kind == "rail" else None,
            "leaves_per_su": attach.leaves_per_unit * cf.planes if attach.kind == "rail" else None,
            "pods": plan.pods,
            "spines_per_pod": plan.spines_per_pod,
            "cores_per_group": plan.cores_per_group,
        },
    }


def network_for_performance(spec, cf: ComputeFabric, nic, scale_up: dict, hops: dict) -> dict:
    """Per-GPU scale-out bandwidth, oversubscription and hops for the performance engine."""
    fabric = spec.fabric
    sizing = cf.sizing
    usable_rate = min(fabric.nic_speed_gbps, nic.line_rate_gbit_per_s)
    effective_port = nic.effective_gb_per_s_per_port * usable_rate / nic.line_rate_gbit_per_s
    per_gpu = effective_port * cf.nics_per_node / cf.gpus_per_node
    leaf_o = sizing.leaf_oversubscription
    spine_o = sizing.spine_oversubscription if sizing.plan.cores else 1.0
    return {
        "tiers": sizing.plan.tiers,
        "nics_per_gpu": cf.nics_per_node / cf.gpus_per_node,
        "scale_out_line_rate_gbit_per_s_per_gpu": fabric.nic_speed_gbps
        * cf.nics_per_node
        / cf.gpus_per_node,
        "scale_out_effective_gbytes_per_s_per_gpu": per_gpu,
        "scale_out_effective_gbytes_per_s_per_gpu_cross_leaf": per_gpu / leaf_o,
        "scale_out_effective_gbytes_per_s_per_gpu_cross_pod": per_gpu / (leaf_o * spine_o),
        "oversubscription": {"leaf": leaf_o, "spine": spine_o},
        "hops": hops,
        "max_switch_hops": max(hops.values()),
        "rails": cf.nics_per_node if sizing.attachment.kind == "rail" else None,
        "planes": cf.planes,
        "nvlink_domain_gpus": scale_up["gpus_per_domain"],
        "nvlink_gbytes_per_s_per_gpu": scale_up["nvlink_gbytes_per_s_per_gpu"],
        "effective_source": f"{nic.id} effective_gb_per_s_per_port (nccl-tests busbw ceiling)",
    }


def power_block(bom: list[dict]) -> dict:
    """Fabric power by category: typical (energy) and max (provisioning), W."""
    out = {}
    for category in ("switch", "transceiver", "appliance", "router"):
        out[f"{category}_typical_w"] = sum_field(bom, "total_power_w", category=category)
        out[f"{category}_max_w"] = sum_field(bom, "total_power_max_w", category=category)
    out["total_typical_w"] = sum(v for k, v in out.items() if k.endswith("_typical_w"))
    out["total_max_w"] = sum(v for k, v in out.items() if k.endswith("_max_w"))
    by_network = {}
    for network in ("compute", "storage", "frontend", "wan"):
        by_network[network] = sum_field(bom, "total_power_max_w", network=network)
    out["max_w_by_network"] = by_network
    # How much of it rests on allowances (no published figure), and lines with no figure at all
    # whose power is not counted elsewhere (in a system's max power, or a carrier's).
    allowance = [line for line in bom if line.get("power_basis") == "allowance"]
    out["allowance_typical_w"] = sum_field(allowance, "total_power_w")
    out["allowance_max_w"] = sum_field(allowance, "total_power_max_w")
    out["lines_without_power"] = sum(
        1
        for line in bom
        if line["unit_power_w"] is None and line.get("power_basis") not in ("in-system", "external")
    )
    return out


def breakdown(cf: ComputeFabric, bom: list[dict]) -> dict:
    counts = _counts(cf)
    price: dict[str, float] = {}
    for line in bom:
        if line["total_price_usd"] is not None:
            key = f"{line['network']} {line['category']}"
            price[key] = price.get(key, 0.0) + line["total_price_usd"]
    return {
        "switches_by_tier": {k: v for k, v in counts.items() if k != "total"},
        "power_max_w_by_category": {
            category: sum_field(bom, "total_power_max_w", category=category)
            for category in ("switch", "transceiver", "appliance")
        },
        "cables_by_link": {key: group.cables for key, group in cf.build.groups.items()},
        "known_price_usd_by_item_class": price,
    }
