"""How many of each component the job depends on, and how many sit around it without stopping
it when they fail (a spine switch or an inter-switch optic: traffic reroutes, bandwidth drops).

Counts come from the fabric / facility results when given, else from a derivation from the
spec and catalog (switch radix, oversubscription, NIC ports; system power and rack limit)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .lookup import pick, pick_number

# DGX H100 / DGX A100 hold 2 TB of host memory in 32 DIMMs of 64 GB (assumption for the DIMM
# count when only host_ram_gib_per_node is known).
DIMM_GIB = 64.0
# HGX 8-GPU baseboards pair two GPUs and their NICs behind one PCIe switch (4 per 8-GPU node);
# assumption used for every node shape: one PCIe switch per two GPUs.
GPUS_PER_PCIE_SWITCH = 2
# Host power overhead of a GPU server over its GPUs' TDP: DGX H100 10.2 kW max for 8 x 0.7 kW
# (fabric_power.md [S21]); used when the catalog has no system power.
HOST_POWER_FACTOR = 10.2 / (8 * 0.7)


@dataclass
class Count:
    interrupting: float  # failures of these stop the job
    degrading: float = 0.0  # failures of these do not stop it (reroute, redundant unit)


@dataclass
class Inventory:
    job_gpus: int
    job_nodes: int
    cluster_gpus: int
    cluster_nodes: int
    counts: dict[str, Count]
    gpus_per_node: int
    nodes_per_rack: int
    gpus_per_rack: int
    racks: int
    leaves: int
    spines: int
    cores: int
    gpus_behind_leaf: int
    nodes_behind_leaf: int
    psu_per_node: int | None
    psu_redundant: bool
    psu_redundancy: str | None
    system_id: str | None
    sources: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FabricCounts:
    leaves: int
    spines: int
    cores: int
    node_link_transceivers: float
    inter_switch_transceivers: float
    nic_cards: int
    source: str


def _system(spec, catalog):
    compute = spec.compute
    if compute.system_sku:
        return catalog.get("systems", compute.system_sku)
    if compute.gpu_sku is None:
        return None
    want_rack = compute.nvlink_domain.gpus > compute.gpus_per_node
    matches = [s for s in catalog.systems.values() if s.gpu_id == compute.gpu_sku]
    matches.sort(key=lambda s: ((s.form == "rack") != want_rack, not s.id.startswith("dgx"), s.id))
    return matches[0] if matches else None


def _psu_redundant(text: str | None) -> bool | None:
    if not text:
        return None
    if "redundant" in text.lower():
        return True
    match = re.search(r"(\d+)\s*\+\s*(\d+)", text)
    return bool(match and int(match.group(2)) > 0) if match else None


def _fabric_from_spec(spec, catalog, nodes: int) -> FabricCounts:
    fabric = spec.fabric
    switch = catalog.get("switches", fabric.switch_sku)
    nic = catalog.get("nics", fabric.nic_sku)
    speed = fabric.nic_speed_gbps
    ports, native = switch.radix_ports, switch.radix_ports
    if (
        switch.breakout_ports
        and switch.breakout_port_speed_gbit_per_s
        and speed <= (switch.breakout_port_speed_gbit_per_s)
    ):
        ports = switch.breakout_ports
    links_per_cage = ports / switch.osfp_cages if switch.osfp_cages else ports / native
    node_links = nodes * fabric.nics_per_node
    over = fabric.oversubscription
    if node_links <= ports:
        leaves, spines, cores, uplinks = 1, 0, 0, 0
    else:
        leaf_down = max(1, math.floor(ports * over.leaf / (1.0 + over.leaf)))
        leaves = math.ceil(node_links / leaf_down)
        uplinks = leaves * math.ceil(leaf_down / over.leaf)
        if fabric.topology == "fat-tree-3tier":
            spines = math.ceil(uplinks / (ports / 2))
            cores = math.ceil(spines * (ports / 2) / over.spine / ports)
        else:
            spines, cores = math.ceil(uplinks / ports), 0
    node_side = node_links
    switch_side = math.ceil(node_links / max(1.0, links_per_cage))
    return FabricCounts(
        leaves=leaves,
        spines=spines,
        cores=cores,
        node_link_transceivers=node_side + switch_side,
        inter_switch_transceivers=2 * uplinks,
        nic_cards=math.ceil(node_links / nic.ports),
        source="derived from switch radix and oversubscription",
    )


def _fabric_from_result(result: dict, fallback: FabricCounts) -> FabricCounts:
    switches = pick(result, "scale_out.switches") or {}
    leaves = pick_number(switches, "leaf")
    if leaves is None:
        return fallback
    links = pick(result, "scale_out.links") or {}

    def transceivers(group: str) -> float:
        return float(
            (pick_number(links, f"{group}.transceivers_node_side") or 0.0)
            + (pick_number(links, f"{group}.transceivers_switch_side") or 0.0)
        )

    node_link = transceivers("node_leaf") if "node_leaf" in links else None
    inter = transceivers("leaf_spine") + transceivers("spine_core")
    return FabricCounts(
        leaves=int(leaves),
        spines=int(pick_number(switches, "spine") or 0),
        cores=int(pick_number(switches, "core") or 0),
        node_link_transceivers=(
            fallback.node_link_transceivers if node_link is None else node_link
        ),
        inter_switch_transceivers=inter if links else fallback.inter_switch_transceivers,
        nic_cards=int(pick_number(result, "scale_out.nics.cards") or fallback.nic_cards),
        source="fabric engine",
    )


def _rack_shape(spec, catalog, system, facility: dict | None) -> tuple[int, str]:
    """(GPUs per rack, source)."""
    compute = spec.compute
    per_rack = pick_number(facility, "gpus_per_rack", "racks.gpus_per_rack", "rack.gpus")
    if per_rack:
        return int(per_rack), "facility engine"
    if system is not None and system.form == "rack":
        return system.gpus_per_system, f"rack-scale system {system.id}"
    gpu_tdp_kw = _gpu_tdp_w(spec, catalog) / 1000.0
    node_kw = compute.gpus_per_node * gpu_tdp_kw * HOST_POWER_FACTOR
    if system is not None and system.power_max_kw:
        node_kw = system.power_max_kw * compute.gpus_per_node / system.gpus_per_system
    nodes_per_rack = max(1, math.floor(spec.facility.rack_power_limit_kw / node_kw))
    return nodes_per_rack * compute.gpus_per_node, "derived from rack power limit"


def _gpu_tdp_w(spec, catalog) -> float:
    compute = spec.compute
    if compute.custom_gpu is not None:
        return compute.custom_gpu.tdp_w
    return catalog.get("gpus", compute.gpu_sku).tdp_w


def job_gpus_for(spec) -> int:
    """GPUs one failure-coupled job spans: the whole training job, or one serving replica."""
    compute, workload = spec.compute, spec.workload
    if workload.kind == "training":
        return compute.gpu_count
    par = workload.parallelism
    if isinstance(par, str):
        replica = max(compute.gpus_per_node, compute.nvlink_domain.gpus)
    else:
        replica = par.tp * par.pp * par.cp
    return min(compute.gpu_count, replica)


def build_inventory(
    spec, catalog, *, fabric: dict | None = None, facility: dict | None = None
) -> Inventory:
    compute = spec.compute
    per_node = compute.gpus_per_node
    cluster_nodes = compute.gpu_count // per_node
    job_gpus = job_gpus_for(spec)
    job_nodes = max(1, math.ceil(job_gpus / per_node))
    share = job_nodes / cluster_nodes
    system = _system(spec, catalog)
    sources: dict[str, str] = {}
    assumptions: list[str] = []

    derived = _fabric_from_spec(spec, catalog, cluster_nodes)
    fab = _fabric_from_result(fabric, derived) if fabric else derived
    sources["fabric"] = fab.source
    rails = spec.fabric.nics_per_node if spec.fabric.topology == "rail-optimized" else 1
    leaves_per_node = min(fab.leaves, rails * spec.fabric.planes)
    job_leaves = (
        fab.leaves
        if share >= 1
        else min(fab.leaves, max(leaves_per_node, math.ceil(fab.leaves * share)))
    )
    links_per_leaf = cluster_nodes * spec.fabric.nics_per_node / fab.leaves
    # The fullest leaf (ceil): each rail-optimized link comes from a different node and carries
    # its GPU's traffic (GPU:NIC 1:1); a ToR leaf carries all of a node's ports on its plane.
    if spec.fabric.topology == "rail-optimized":
        nodes_behind_leaf = min(cluster_nodes, math.ceil(links_per_leaf))
        gpus_behind_leaf = math.ceil(nodes_behind_leaf * per_node / spec.fabric.nics_per_node)
    else:
        links_per_node_per_leaf = spec.fabric.nics_per_node / spec.fabric.planes
        nodes_behind_leaf = min(cluster_nodes, math.ceil(links_per_leaf / links_per_node_per_leaf))
        gpus_behind_leaf = nodes_behind_leaf * per_node

    gpus_per_rack, rack_source = _rack_shape(spec, catalog, system, facility)
    gpus_per_rack = max(per_node, min(gpus_per_rack, compute.gpu_count))
    nodes_per_rack = max(1, gpus_per_rack // per_node)
    racks = int(pick_number(facility, "rack_count", "racks.count", "racks_total") or 0)
    racks = racks or math.ceil(cluster_nodes / nodes_per_rack)
    sources["racks"] = rack_source

    psu_count = getattr(system, "psu_count", None) if system is not None else None
    psu_text = getattr(system, "psu_redundancy", None) if system is not None else None
    redundant = _psu_redundant(psu_text)
    if redundant is None:
        redundant = True
        assumptions.append(
            "power supplies assumed redundant (N+1 or better), as in DGX/HGX servers"
        )
    nodes_per_system = max(1, (system.gpus_per_system // per_node) if system else 1)
    psu_per_node = math.ceil(psu_count / nodes_per_system) if psu_count else 2
    dimms = math.ceil(compute.host_ram_gib_per_node / DIMM_GIB)
    pcie = max(1, per_node // GPUS_PER_PCIE_SWITCH)
    job_psus = job_nodes * psu_per_node
    power_2n = spec.facility.power_redundancy == "2N"
    job_racks = max(1, math.ceil(job_nodes / nodes_per_rack))
    counts = {
        "gpu": Count(job_gpus),
        "hbm": Count(job_gpus),
        "host_dram": Count(job_nodes * dimms),
        "pcie_switch": Count(job_nodes * pcie),
        "nic": Count(math.ceil(fab.nic_cards * share)),
        "optics": Count(fab.node_link_transceivers * share, fab.inter_switch_transceivers * share),
        "psu": Count(0, job_psus) if redundant else Count(job_psus),
        "ssd": Count(job_nodes),
        "host": Count(job_nodes),
        "software": Count(job_nodes),
        "switch": Count(job_leaves, (fab.spines + fab.cores) * min(1.0, share)),
        "pdu": Count(0, 2 * job_racks) if power_2n else Count(job_racks),
    }
    return Inventory(
        job_gpus=job_gpus,
        job_nodes=job_nodes,
        cluster_gpus=compute.gpu_count,
        cluster_nodes=cluster_nodes,
        counts=counts,
        gpus_per_node=per_node,
        nodes_per_rack=nodes_per_rack,
        gpus_per_rack=gpus_per_rack,
        racks=racks,
        leaves=fab.leaves,
        spines=fab.spines,
        cores=fab.cores,
        gpus_behind_leaf=gpus_behind_leaf,
        nodes_behind_leaf=nodes_behind_leaf,
        psu_per_node=psu_per_node,
        psu_redundant=redundant,
        psu_redundancy=psu_text,
        system_id=system.id if system is not None else None,
        sources=sources,
        assumptions=assumptions,
    )
