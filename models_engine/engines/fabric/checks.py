"""Findings about the compute fabric: parts that do not fit together, capacity limits, partial
scalable units, unplaced fabric-manager links, oversubscription that differs from the request."""

from __future__ import annotations

from .roce import finding

_TECH_PROTOCOL = {"infiniband": "infiniband", "roce": "ethernet"}


def part_findings(spec, switch, nic, system) -> list[dict]:
    fabric = spec.fabric
    protocol = _TECH_PROTOCOL[fabric.technology.split("-")[0]]
    out = []
    if switch.fabric != protocol:
        out.append(
            finding(
                "fabric-switch-protocol",
                "error",
                f"{switch.name} is an {switch.fabric} switch; {fabric.technology} needs {protocol}",
                "fabric.switch_sku",
            )
        )
    if protocol not in nic.protocols:
        out.append(
            finding(
                "fabric-nic-protocol",
                "error",
                f"{nic.name} does not speak {protocol} ({fabric.technology})",
                "fabric.nic_sku",
            )
        )
    if fabric.nic_speed_gbps > nic.line_rate_gbit_per_s:
        out.append(
            finding(
                "fabric-nic-speed",
                "error",
                f"{nic.name} runs at most {nic.line_rate_gbit_per_s:g} Gb/s per port "
                f"(nic_speed_gbps = {fabric.nic_speed_gbps})",
                "fabric.nic_speed_gbps",
            )
        )
    link = fabric.nic_speed_gbps / fabric.planes
    fastest = switch.port_speed_gbit_per_s
    if link > fastest:
        out.append(
            finding(
                "fabric-switch-speed",
                "error",
                f"{switch.name} ports run at most {fastest:g} Gb/s; each plane link needs "
                f"{link:g} Gb/s",
                "fabric.nic_speed_gbps",
            )
        )
    expected = system.scale_out_nics_per_system
    if expected is not None and system.nodes_per_system:
        per_node = expected / system.nodes_per_system
        if per_node != fabric.nics_per_node:
            out.append(
                finding(
                    "fabric-nics-per-node",
                    "warning",
                    f"{system.name} has {per_node:g} compute-fabric NIC ports per node; the "
                    f"design uses {fabric.nics_per_node}",
                    "fabric.nics_per_node",
                )
            )
    return out


def sizing_findings(spec, cf, capacity: dict) -> list[dict]:
    fabric = spec.fabric
    sizing = cf.sizing
    plan, attach = sizing.plan, sizing.attachment
    out = []
    if not plan.within_capacity:
        out.append(
            finding(
                "fabric-capacity-exceeded",
                "error",
                f"{spec.compute.gpu_count} GPUs exceed what three tiers of this switch reach "
                f"({capacity['max_gpus_three_tier']} GPUs): use a higher-radix switch, more "
                "planes, or a fourth tier",
                "compute.gpu_count",
            )
        )
    if plan.cores and fabric.topology != "fat-tree-3tier":
        out.append(
            finding(
                "fabric-grew-to-three-tiers",
                "info",
                f"{spec.compute.gpu_count} GPUs exceed the two-tier limit of "
                f"{capacity['max_gpus_two_tier']} GPUs: a core tier was added",
                "fabric.topology",
            )
        )
    if fabric.topology == "fat-tree-3tier" and plan.pods == 1 and plan.leaves > 1:
        out.append(
            finding(
                "fabric-single-pod",
                "info",
                "the whole cluster fits in one pod: no core switches are needed yet; spine "
                "uplinks are kept free for the core",
                "fabric.topology",
            )
        )
    if attach.kind == "rail" and attach.free_slots:
        out.append(
            finding(
                "fabric-partial-su",
                "info",
                f"the last scalable unit has {attach.free_slots} empty node slot(s); its leaves "
                "and leaf-spine cables are built in full, as the DGX SuperPOD RAs advise",
                "compute.gpu_count",
            )
        )
    if cf.fabric_manager_links and not cf.build.extra_links_placed:
        out.append(
            finding(
                "fabric-manager-no-slot",
                "info",
                f"every node slot is taken: the {cf.fabric_manager_links} UFM links are not on "
                "the leaves; reserve a node slot (31 nodes per SU) or attach the UFM elsewhere",
                "compute.gpu_count",
            )
        )
    leaf_ratio = sizing.leaf_oversubscription
    if plan.leaf_up and abs(leaf_ratio - fabric.oversubscription.leaf) > 0.05 * max(
        1.0, fabric.oversubscription.leaf
    ):
        out.append(
            finding(
                "fabric-oversubscription-rounded",
                "info",
                f"leaf oversubscription is {leaf_ratio:.2f}:1 (requested "
                f"{fabric.oversubscription.leaf:g}:1), rounded to whole ports and to the "
                "equal-links-per-spine rule",
                "fabric.oversubscription.leaf",
            )
        )
    return out


def unknown_figure_findings(bom: list[dict]) -> list[dict]:
    out = []
    power = sorted(
        {
            line["item"]
            for line in bom
            if line["unit_power_w"] is None
            and line["category"] in ("switch", "transceiver", "router")
        }
    )
    if power:
        out.append(
            finding(
                "fabric-power-unknown",
                "warning",
                "no published power for: " + "; ".join(power) + " (counted as 0 W)",
                "fabric.switch_sku",
            )
        )
    price = sorted({line["item"] for line in bom if line["unit_price_usd"] is None})
    if price:
        out.append(
            finding(
                "fabric-price-unknown",
                "info",
                f"{len(price)} BOM item(s) have no catalog price; their cost is left null",
                "fabric",
            )
        )
    return out
