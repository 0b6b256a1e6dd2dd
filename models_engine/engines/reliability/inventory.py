"""How many of each component the job depends on, and how many sit around it without stopping
it when they fail (a spine switch or an inter-switch optic: traffic reroutes, bandwidth drops).

Switches per tier, transceivers and NIC cards are the fabric engine's (`FabricResult.totals`
and each site's `scale_out`; the cluster is the sum over sites, and a training job spans all of
them); racks and nodes per rack are the facility engine's (`FacilityResult.totals` and the
sites' `rack_summary`). Only the parts inside a node (DIMMs, PCIe switches, PSUs) are counted
here, from the spec and the catalog's system."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from models_engine.engines.fabric.result import FabricResult, SwitchCounts
from models_engine.engines.facility.result import FacilityResult

# DGX H100 / DGX A100 hold 2 TB of host memory in 32 DIMMs of 64 GB (assumption for the DIMM
# count when only host_ram_gib_per_node is known).
DIMM_GIB = 64.0
# HGX 8-GPU baseboards pair two GPUs and their NICs behind one PCIe switch (4 per 8-GPU node);
# assumption used for every node shape: one PCIe switch per two GPUs.
GPUS_PER_PCIE_SWITCH = 2


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
    switches: SwitchCounts
    transceivers: float
    nic_cards: int
    gpus_behind_leaf: int
    nodes_behind_leaf: int
    psu_per_node: int | None
    psu_redundant: bool
    psu_redundancy: str | None
    system_id: str | None
    sources: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)


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


def _leaf_reach(scale_out) -> tuple[int, int]:
    """(nodes, GPUs) behind the fullest leaf of one site's compute fabric: each
    rail-optimized link comes from a different node and carries its GPU's traffic (GPU:NIC
    1:1); a ToR leaf carries all of a node's ports on its plane."""
    nodes = scale_out.nodes
    links_per_leaf = scale_out.nics.ports / scale_out.switches.leaf
    nics_per_node = scale_out.nics.ports / nodes
    gpus_per_node = scale_out.gpus / nodes
    if scale_out.rails is not None:
        behind = min(nodes, math.ceil(links_per_leaf))
        return behind, math.ceil(behind * gpus_per_node / nics_per_node)
    links_per_node_per_leaf = nics_per_node / scale_out.planes
    behind = min(nodes, math.ceil(links_per_leaf / links_per_node_per_leaf))
    return behind, round(behind * gpus_per_node)


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


def build_inventory(spec, catalog, *, fabric: FabricResult, facility: FacilityResult) -> Inventory:
    compute = spec.compute
    per_node = compute.gpus_per_node
    cluster_nodes = compute.gpu_count // per_node
    job_gpus = job_gpus_for(spec)
    job_nodes = max(1, math.ceil(job_gpus / per_node))
    share = job_nodes / cluster_nodes
    system = _system(spec, catalog)
    sources = {"fabric": "fabric engine", "racks": "facility engine"}
    assumptions: list[str] = []

    totals = fabric.totals
    switches = totals.switches
    largest = fabric.primary.scale_out
    # A job smaller than the cluster (a serving replica) sits on the largest site; it spans
    # at least one leaf per rail and plane.
    rails = largest.rails or 1
    leaves_per_node = min(largest.switches.leaf, rails * largest.planes)
    job_leaves = (
        switches.leaf
        if share >= 1
        else min(switches.leaf, max(leaves_per_node, math.ceil(switches.leaf * share)))
    )
    reach = [_leaf_reach(site.scale_out) for site in fabric.sites]
    nodes_behind_leaf = max(nodes for nodes, _ in reach)
    gpus_behind_leaf = max(gpus for _, gpus in reach)
    node_link_transceivers = sum(site.scale_out.node_link_transceivers for site in fabric.sites)
    inter_switch_transceivers = sum(
        site.scale_out.inter_switch_transceivers for site in fabric.sites
    )

    nodes_per_rack = facility.primary.rack_summary.nodes_per_rack
    gpus_per_rack = nodes_per_rack * per_node

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
        "nic": Count(math.ceil(totals.nic_cards * share)),
        "optics": Count(node_link_transceivers * share, inter_switch_transceivers * share),
        "psu": Count(0, job_psus) if redundant else Count(job_psus),
        "ssd": Count(job_nodes),
        "host": Count(job_nodes),
        # Software faults arise per rank (a process per GPU: Llama 3's software bugs and NCCL
        # watchdog timeouts), so a 4-GPU tray does not double them per GPU.
        "software": Count(job_gpus),
        "switch": Count(job_leaves, (switches.spine + switches.core) * min(1.0, share)),
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
        racks=facility.totals.total_racks,
        leaves=switches.leaf,
        spines=switches.spine,
        cores=switches.core,
        switches=switches,
        transceivers=node_link_transceivers + inter_switch_transceivers,
        nic_cards=totals.nic_cards,
        gpus_behind_leaf=gpus_behind_leaf,
        nodes_behind_leaf=nodes_behind_leaf,
        psu_per_node=psu_per_node,
        psu_redundant=redundant,
        psu_redundancy=psu_text,
        system_id=system.id if system is not None else None,
        sources=sources,
        assumptions=assumptions,
    )
