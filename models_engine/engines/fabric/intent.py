"""Design-time checks of the fabric a design states: the stated tier count fits every site, and
the parts agree with one another (technology, switch, NIC, scale-up domain and GPU).

    fabric_intent_errors(spec, catalog) -> list[ErrorDict]   # [] when the fabric can be built

Run by `models_engine.validate` before any engine, so a design that names XDR on an NDR switch
or two tiers that cannot hold its GPUs is rejected with the field and the reason, never built
as another topology.
"""

from __future__ import annotations

from models_engine.sites import site_slices
from models_engine.spec.errors import ErrorDict, error
from models_engine.spec.fabric import TECHNOLOGY_LINE_RATE_GBPS

from .clos import port_mode_for
from .compute import plan_compute_sizing, tier_intent_message, tier_switches
from .sizing import TierIntentError

# The protocol a technology's switches and NICs speak.
TECHNOLOGY_PROTOCOL = {
    "infiniband-ndr": "infiniband",
    "infiniband-xdr": "infiniband",
    "roce-400g": "ethernet",
    "roce-800g": "ethernet",
}
# Scale-up domain kinds built from NVIDIA NVSwitch / NVLink switch trays.
NVSWITCH_DOMAINS = ("hgx-nvswitch-8", "nvl72")


def fabric_intent_errors(spec, catalog) -> list[ErrorDict]:
    """Every reason the stated fabric cannot be built as stated (ids already checked)."""
    parts = part_errors(spec, catalog) + scale_up_errors(spec, catalog)
    if parts:  # sizing with mismatched parts would only repeat the mismatch
        return parts
    return tier_errors(spec, catalog)


def tier_errors(spec, catalog) -> list[ErrorDict]:
    """fabric.tiers (2 or 3) against every site's GPUs."""
    fabric = spec.fabric
    if fabric.tiers == "auto":
        return []
    switches = tier_switches(fabric, catalog)
    switch = switches["leaf"]
    found = []
    sites = site_slices(spec)
    for site in sites:
        nodes = site.gpus // spec.compute.gpus_per_node
        try:
            plan_compute_sizing(fabric, nodes, switch, switches=switches)
        except TierIntentError as exc:
            where = f" (site {site.site_name})" if len(sites) > 1 else ""
            message = tier_intent_message(fabric, switch, exc, switches["spine"]) + where
            found.append(error("fabric.tiers", message, {"one_of": ["auto", 2, 3]}))
    return found


def part_errors(spec, catalog) -> list[ErrorDict]:
    """Technology vs switch and NIC generation. With the spec's own rule (nic_speed_gbps at
    most the technology's line rate) these also keep the NIC speed within the switch's port
    speed and the card's line rate."""
    fabric = spec.fabric
    switch = catalog.get("switches", fabric.switch_sku)
    nic = catalog.get("nics", fabric.nic_sku)
    technology = fabric.technology
    protocol = TECHNOLOGY_PROTOCOL[technology]
    line_rate = TECHNOLOGY_LINE_RATE_GBPS[technology]
    found = []
    if switch.fabric != protocol or switch.form != "switch":
        found.append(
            error(
                "fabric.switch_sku",
                f"{technology} needs a {protocol} rack switch; {switch.id} is a {switch.fabric} "
                f"{switch.form}",
            )
        )
    elif switch.port_speed_gbit_per_s < line_rate:
        found.append(
            error(
                "fabric.switch_sku",
                f"{technology} runs {line_rate:g} Gb/s ports; {switch.name} is a "
                f"{switch.port_speed_gbit_per_s:g} Gb/s generation switch",
                {"port_speed_gbps_at_least": line_rate},
            )
        )
    if protocol not in nic.protocols:
        found.append(
            error(
                "fabric.nic_sku",
                f"{technology} needs a {protocol} adapter; {nic.name} speaks "
                f"{', '.join(nic.protocols)}",
            )
        )
    elif nic.line_rate_gbit_per_s < line_rate:
        found.append(
            error(
                "fabric.nic_sku",
                f"{technology} runs {line_rate:g} Gb/s ports; {nic.name} is a "
                f"{nic.line_rate_gbit_per_s:g} Gb/s generation adapter",
                {"line_rate_gbps_at_least": line_rate},
            )
        )
    return (
        found
        + _nic_port_errors(fabric, nic, protocol)
        + tier_switch_errors(fabric, catalog, switch)
    )


def _nic_port_errors(fabric, nic, protocol: str) -> list[ErrorDict]:
    """An adapter whose Ethernet ports top out below its line rate (ConnectX-8: 2 x 400GbE)
    needs the NIC split into planes of at most that speed."""
    most = nic.ethernet_max_port_gbit_per_s
    link = fabric.nic_speed_gbps / fabric.planes
    if protocol != "ethernet" or most is None or link <= most:
        return []
    planes = -(-fabric.nic_speed_gbps // int(most))
    return [
        error(
            "fabric.planes",
            f"{nic.name} runs Ethernet ports of at most {most:g} Gb/s; {fabric.nic_speed_gbps} "
            f"Gb/s per NIC needs {planes} planes of {fabric.nic_speed_gbps // planes} Gb/s",
            {"ge": planes},
        )
    ]


def tier_switch_errors(fabric, catalog, leaf) -> list[ErrorDict]:
    """A spine or core switch of its own speaks the leaf's protocol, is a rack switch, and has
    ports as fast as the leaf uplinks' links."""
    link = (
        fabric.leaf_uplink_speed_gbps
        or port_mode_for(leaf, fabric.nic_speed_gbps / fabric.planes).speed_gbps
    )
    found = _uplink_speed_errors(fabric, leaf)
    for path in ("spine_switch_sku", "core_switch_sku"):
        switch_id = getattr(fabric, path)
        if switch_id is None:
            continue
        switch = catalog.switches.get(switch_id)
        if switch is None:
            found.append(
                error(
                    f"fabric.{path}",
                    f"unknown switch '{switch_id}' (not in the catalog)",
                    {"one_of": sorted(catalog.switches)},
                )
            )
        elif switch.fabric != leaf.fabric or switch.form != "switch":
            found.append(
                error(
                    f"fabric.{path}",
                    f"the leaf {leaf.id} is a {leaf.fabric} switch; {switch.id} is a "
                    f"{switch.fabric} {switch.form}",
                )
            )
        elif port_mode_for(switch, link).speed_gbps < link:
            found.append(
                error(
                    f"fabric.{path}",
                    f"leaf uplinks run at {link:g} Gb/s; {switch.name} ports run at most "
                    f"{switch.port_speed_gbit_per_s:g} Gb/s",
                )
            )
    return found


def _uplink_speed_errors(fabric, leaf) -> list[ErrorDict]:
    """Leaf uplinks of their own speed: at least the node links' speed, on ports the leaf has."""
    speed = fabric.leaf_uplink_speed_gbps
    if speed is None:
        return []
    node_link = fabric.nic_speed_gbps / fabric.planes
    fastest = port_mode_for(leaf, speed).speed_gbps
    if speed < node_link:
        message = f"uplinks slower than the {node_link:g} Gb/s node links starve the leaf"
        return [error("fabric.leaf_uplink_speed_gbps", message, {"ge": node_link})]
    if fastest < speed:
        message = f"{leaf.name} ports run at most {fastest:g} Gb/s"
        return [error("fabric.leaf_uplink_speed_gbps", message, {"le": fastest})]
    return []


def scale_up_errors(spec, catalog) -> list[ErrorDict]:
    """The scale-up domain kind and NVLink switch against the GPU's vendor and domain size."""
    compute = spec.compute
    if compute.gpu_sku is None:  # a custom GPU: nothing to compare against
        return []
    gpu = catalog.get("gpus", compute.gpu_sku)
    kind = compute.nvlink_domain.kind
    found = []
    if kind in NVSWITCH_DOMAINS and gpu.vendor != "NVIDIA":
        found.append(
            error(
                "compute.nvlink_domain.kind",
                f"{kind} is an NVIDIA NVSwitch domain; {gpu.name} ({gpu.vendor}) has its own "
                f"{gpu.scale_up_domain_gpus}-GPU scale-up link: use custom with gpus "
                f"{gpu.scale_up_domain_gpus}",
                {"one_of": ["pcie", "custom"]},
            )
        )
    elif kind == "hgx-nvswitch-8" and gpu.scale_up_domain_gpus < 8:
        # The spec's default kind: a PCIe card would otherwise silently get an 8-GPU NVSwitch.
        found.append(
            error(
                "compute.nvlink_domain.kind",
                f"hgx-nvswitch-8 is an 8-GPU NVSwitch baseboard; {gpu.name} joins at most "
                f"{gpu.scale_up_domain_gpus} GPUs over NVLink: use pcie (gpus 1, or "
                f"{gpu.scale_up_domain_gpus} for bridged cards) or custom",
                {"one_of": ["pcie", "custom"]},
            )
        )
    elif kind == "custom" and compute.nvlink_domain.gpus > gpu.scale_up_domain_gpus:
        found.append(
            error(
                "compute.nvlink_domain.gpus",
                f"{gpu.name} joins at most {gpu.scale_up_domain_gpus} GPUs over its scale-up "
                f"link, not {compute.nvlink_domain.gpus}",
                {"le": gpu.scale_up_domain_gpus},
            )
        )
    elif kind == "nvl72" and gpu.scale_up_domain_gpus < 72:
        found.append(
            error(
                "compute.nvlink_domain.kind",
                f"nvl72 needs a GPU built into NVL72 racks; {gpu.name} joins at most "
                f"{gpu.scale_up_domain_gpus} GPUs over NVLink",
                {"one_of": ["pcie", "hgx-nvswitch-8", "custom"]},
            )
        )
    if spec.fabric.nvlink_switch_sku is not None and gpu.vendor != "NVIDIA":
        found.append(
            error(
                "fabric.nvlink_switch_sku",
                f"an NVLink switch serves NVIDIA GPUs only; {gpu.name} is {gpu.vendor}",
            )
        )
    return found
