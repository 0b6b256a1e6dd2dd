"""The link hierarchy a collective runs on inside one site: the NVLink (scale-up) domain and
the scale-out fabric. The scale-out level is the network the fabric engine built
(`SiteFabric.network_for_performance` and its scale-out sizing): this module sizes nothing. What
the WAN between sites adds is the regions engine's.

`topology_from_fabric(compute, gpu, catalog, fabric)` builds it; a use without a pipeline (the
scaling sweep, a benchmark) calls the fabric engine first (`evaluate_fabric(spec, catalog)`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from models_engine.catalog import CatalogLookupError
from models_engine.engines.collectives.constants import (
    NVLS_ARCHITECTURES,
    NVLS_BUSBW_PER_LINE_RATE,
    PCIE_GEN4_BUSBW_GB_PER_S,
    PCIE_GEN5_BUSBW_GB_PER_S,
    RING_BUSBW_PER_LINE_RATE,
)

if TYPE_CHECKING:
    from models_engine.engines.fabric.result import SiteFabric


@dataclass(frozen=True)
class ScaleUpLevel:
    """One NVLink / NVSwitch domain (or a PCIe-only node)."""

    gpus: int
    link: str  # "nvlink" or "pcie": selects NCCL's per-hop latency
    ring_busbw_gb_per_s: float  # per GPU, large messages, what an NCCL ring reaches
    nvls_busbw_gb_per_s: float | None  # NVLink SHARP all-reduce busbw; None = no NVLS


@dataclass(frozen=True)
class ScaleOutLevel:
    """The backend fabric as one GPU sees it (rail-aligned: each GPU drives its own NIC), as the
    fabric engine built it: effective per-GPU bandwidth inside one leaf, across leaves (leaf
    oversubscription) and across pods (leaf x spine oversubscription)."""

    nic_busbw_gb_per_s_per_gpu: float  # same leaf (same rail leaf of one scalable unit)
    cross_leaf_busbw_gb_per_s_per_gpu: float
    cross_pod_busbw_gb_per_s_per_gpu: float
    nodes_per_leaf: int  # nodes whose rail-aligned traffic stays inside one leaf
    nodes_per_pod: int  # nodes under one spine block; the whole site when there is no core
    leaf_oversubscription: float
    spine_oversubscription: float
    max_switch_hops: int
    technology: str


@dataclass(frozen=True)
class Topology:
    scale_up: ScaleUpLevel
    scale_out: ScaleOutLevel
    gpus_per_node: int

    def as_dict(self) -> dict:
        out_level = self.scale_out
        out = {
            "nvlink_domain": {
                "gpus": self.scale_up.gpus,
                "link": self.scale_up.link,
                "ring_busbw_gb_per_s": self.scale_up.ring_busbw_gb_per_s,
                "nvls_busbw_gb_per_s": self.scale_up.nvls_busbw_gb_per_s,
            },
            "scale_out": {
                "nic_busbw_gb_per_s_per_gpu": self.scale_out.nic_busbw_gb_per_s_per_gpu,
                "nodes_per_leaf": self.scale_out.nodes_per_leaf,
                "nodes_per_pod": self.scale_out.nodes_per_pod,
                "cross_leaf_busbw_gb_per_s_per_gpu": out_level.cross_leaf_busbw_gb_per_s_per_gpu,
                "cross_pod_busbw_gb_per_s_per_gpu": out_level.cross_pod_busbw_gb_per_s_per_gpu,
                "leaf_oversubscription": self.scale_out.leaf_oversubscription,
                "spine_oversubscription": self.scale_out.spine_oversubscription,
                "max_switch_hops": self.scale_out.max_switch_hops,
                "source": "fabric engine (network_for_performance)",
            },
        }
        return out


def _catalog_gpu(gpu, catalog):
    if gpu.id == "custom":
        return None
    try:
        return catalog.get("gpus", gpu.id)
    except CatalogLookupError:
        return None


def scale_up_level(compute, gpu, catalog, *, domain_gpus: int, nvlink_total: float) -> ScaleUpLevel:
    """The NVLink domain of `domain_gpus` GPUs at `nvlink_total` GB/s per GPU (both directions,
    the fabric engine's scale-up figures); NCCL's busbw on it from the catalog SKU."""
    domain = domain_gpus
    sku = _catalog_gpu(gpu, catalog)
    if compute.nvlink_domain.kind == "pcie" or nvlink_total <= 0:
        # No NVSwitch: the GPUs of a node still reach each other over PCIe, so the node is the
        # first level of the hierarchy (TP stays limited to the NVLink domain by the spec).
        pcie = PCIE_GEN5_BUSBW_GB_PER_S if sku is not None else PCIE_GEN4_BUSBW_GB_PER_S
        return ScaleUpLevel(max(domain, compute.gpus_per_node), "pcie", pcie, None)
    line_rate = nvlink_total / 2.0  # catalog figures are both directions summed
    ring = (sku.nccl_nvlink_busbw_gb_per_s if sku else None) or line_rate * RING_BUSBW_PER_LINE_RATE
    nvls = None
    if sku is not None and sku.architecture in NVLS_ARCHITECTURES:
        measured = sku.nccl_allreduce_busbw_measured_gb_per_s
        nvls = measured if measured and measured > ring else line_rate * NVLS_BUSBW_PER_LINE_RATE
    elif sku is not None and sku.nccl_allreduce_busbw_measured_gb_per_s:
        # No NVLS (e.g. A100): the measured all-reduce busbw is the ring's ceiling (C04: 230).
        ring = min(ring, sku.nccl_allreduce_busbw_measured_gb_per_s)
    return ScaleUpLevel(domain, "nvlink", ring, nvls)


def scale_out_level(fabric: SiteFabric) -> ScaleOutLevel:
    """The scale-out level of one site's fabric, read from the fabric engine's result."""
    network, scale_out = fabric.network_for_performance, fabric.scale_out
    # Rail-optimized: a scalable unit's nodes share one leaf per rail; ToR: the leaf's nodes
    # (0 when one node's ports span several leaves: every inter-node flow crosses leaves).
    per_leaf = scale_out.nodes_per_su if scale_out.rails is not None else scale_out.nodes_per_leaf
    nodes = max(scale_out.nodes, 1)
    # Every pod but the last is full (fabric clos.py), so ceil(nodes / pods) never exceeds a
    # full pod: traffic within that many nodes is taken to stay under one spine block.
    per_pod = math.ceil(nodes / max(scale_out.pods, 1))
    return ScaleOutLevel(
        nic_busbw_gb_per_s_per_gpu=network.scale_out_effective_gbytes_per_s_per_gpu,
        cross_leaf_busbw_gb_per_s_per_gpu=(
            network.scale_out_effective_gbytes_per_s_per_gpu_cross_leaf
        ),
        cross_pod_busbw_gb_per_s_per_gpu=network.scale_out_effective_gbytes_per_s_per_gpu_cross_pod,
        nodes_per_leaf=max(1, per_leaf or 1),
        nodes_per_pod=per_pod,
        leaf_oversubscription=network.oversubscription["leaf"],
        spine_oversubscription=network.oversubscription["spine"],
        max_switch_hops=network.max_switch_hops,
        technology=scale_out.technology,
    )


def topology_from_fabric(compute, gpu, catalog, fabric: SiteFabric) -> Topology:
    """The hierarchy a single-site step runs on: the NVLink domain and the scale-out fabric of
    `fabric` (a `SiteFabric` from the fabric engine, normally `FabricResult.primary`)."""
    network = fabric.network_for_performance
    return Topology(
        scale_up=scale_up_level(
            compute,
            gpu,
            catalog,
            domain_gpus=network.nvlink_domain_gpus,
            nvlink_total=network.nvlink_gbytes_per_s_per_gpu,
        ),
        scale_out=scale_out_level(fabric),
        gpus_per_node=compute.gpus_per_node,
    )
