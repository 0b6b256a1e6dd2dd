"""The link hierarchy a collective runs on inside one site: the NVLink (scale-up) domain and
the scale-out fabric. The scale-out level is the network the fabric engine built
(`SiteFabric.network_for_performance` and its scale-out sizing): this module sizes nothing. What
the WAN between sites adds is the regions engine's.

`topology_from_fabric(compute, gpu, catalog, fabric, settings=spec.fabric)` builds it; a use
without a pipeline (the scaling sweep, a benchmark) calls the fabric engine first
(`evaluate_fabric(spec, catalog)`). In-switch reduction comes from the catalog switch entries
(`in_network_reduction`: NVLS on the NVLink switch, SHARP on the scale-out switch)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from models_engine.catalog import CatalogLookupError
from models_engine.engines.collectives.constants import (
    NVLINK_SWITCH_BY_ARCHITECTURE,
    NVLS_ALGBW_PER_LINE_RATE,
    PCIE_GEN4_BUSBW_GB_PER_S,
    PCIE_GEN5_BUSBW_GB_PER_S,
    RING_BUSBW_PER_LINE_RATE,
    RING_BUSBW_PER_LINE_RATE_BY_ARCHITECTURE,
)
from models_engine.engines.collectives.conventions import bus_factor

if TYPE_CHECKING:
    from models_engine.engines.fabric.result import SiteFabric


@dataclass(frozen=True)
class ScaleUpLevel:
    """One NVLink / NVSwitch domain (or a PCIe-only node)."""

    gpus: int
    link: str  # "nvlink" or "pcie": selects NCCL's per-hop latency
    ring_busbw_gb_per_s: float  # per GPU, large messages, what an NCCL ring reaches
    nvls_algbw_gb_per_s: float | None  # NVLink SHARP all-reduce algbw, any group; None = none
    switch_sku: str | None = None  # catalog NVLink switch; None = none known (or PCIe)
    # Point-to-point mesh (no switch): each pair of GPUs has its own links, so a group of k
    # of the domain's GPUs drives only k - 1 of each GPU's gpus - 1 link bundles.
    mesh: bool = False

    def ring_busbw_for(self, members):
        """Ring busbw per GPU for a group with `members` GPUs in this domain: the whole
        figure on a switch; on a mesh, the share of each GPU's links that lead to the other
        members, (members - 1) / (gpus - 1) (RCCL README "Improving performance on MI300 when
        using less than 8 GPUs": fewer GPUs reach only a fraction of the bandwidth)."""
        if not self.mesh or self.gpus <= 2:
            return self.ring_busbw_gb_per_s
        share = (np.maximum(members, 2.0) - 1.0) / (self.gpus - 1.0)
        return self.ring_busbw_gb_per_s * np.minimum(share, 1.0)

    @property
    def nvls_busbw_gb_per_s(self) -> float | None:
        """NVLS all-reduce busbw over the whole domain (nccl-tests convention)."""
        if self.nvls_algbw_gb_per_s is None:
            return None
        return self.nvls_algbw_gb_per_s * float(bus_factor("all_reduce", max(self.gpus, 2)))


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
    rails: int | None = None  # rail-optimized: one rail per NIC of a node; None = ToR leaves
    in_network_reduction: bool = False  # SHARP in the switches, enabled and usable (rails)


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
                "nvls_algbw_gb_per_s": self.scale_up.nvls_algbw_gb_per_s,
                "switch_sku": self.scale_up.switch_sku,
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
                "rails": self.scale_out.rails,
                "gpus_per_node": self.gpus_per_node,
                "in_network_reduction": self.scale_out.in_network_reduction,
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


def ring_share(sku) -> float:
    """Share of the one-direction scale-up line rate an NCCL / RCCL ring reaches: the link's own
    figure where the catalog architecture has one (xGMI), else NVLink's."""
    architecture = sku.architecture if sku is not None else None
    return RING_BUSBW_PER_LINE_RATE_BY_ARCHITECTURE.get(
        architecture or "", RING_BUSBW_PER_LINE_RATE
    )


def nvlink_switch(sku, catalog, switch_sku: str | None):
    """The catalog NVLink switch of the domain: the design's `fabric.nvlink_switch_sku`, else the
    one of the catalog GPU's architecture; None when neither is known."""
    chosen = switch_sku
    if chosen is None and sku is not None:
        chosen = NVLINK_SWITCH_BY_ARCHITECTURE.get(sku.architecture or "")
    if chosen is None:
        return None
    try:
        switch = catalog.get("switches", chosen)
    except CatalogLookupError as exc:
        raise ValueError(f"fabric.nvlink_switch_sku: {exc}") from exc
    if switch.fabric != "nvlink":
        raise ValueError(
            f"fabric.nvlink_switch_sku: {chosen!r} is a {switch.fabric} switch; allowed: the "
            "catalog's NVLink switches (fabric 'nvlink', e.g. nvswitch-gen3, nvlink5-switch-tray)"
        )
    return switch


def is_mesh(nvlink_domain, sku) -> bool:
    """Whether the domain's GPUs are joined point to point: as the spec states, else as the
    catalog GPU's scale-up links are (MI300X's Infinity Fabric is a mesh whatever the kind;
    NVIDIA GPUs default to their NVSwitch)."""
    stated = getattr(nvlink_domain, "topology", None)
    if stated is not None:
        return stated == "mesh"
    return sku is not None and getattr(sku, "scale_up_topology", "switch") == "mesh"


def scale_up_level(
    compute,
    gpu,
    catalog,
    *,
    domain_gpus: int,
    nvlink_total: float,
    switch_sku: str | None = None,
) -> ScaleUpLevel:
    """The NVLink domain of `domain_gpus` GPUs at `nvlink_total` GB/s per GPU (both directions,
    the fabric engine's scale-up figures); NCCL's busbw on it from the catalog SKU, and NVLS
    wherever the domain's NVLink switch reduces in-switch (custom GPUs included)."""
    domain = domain_gpus
    sku = _catalog_gpu(gpu, catalog)
    if compute.nvlink_domain.kind == "pcie" or nvlink_total <= 0:
        # No NVSwitch: the GPUs of a node still reach each other over PCIe, so the node is the
        # first level of the hierarchy (TP stays limited to the NVLink domain by the spec).
        pcie = PCIE_GEN5_BUSBW_GB_PER_S if sku is not None else PCIE_GEN4_BUSBW_GB_PER_S
        return ScaleUpLevel(max(domain, compute.gpus_per_node), "pcie", pcie, None)
    line_rate = nvlink_total / 2.0  # catalog figures are both directions summed
    ring = (sku.nccl_nvlink_busbw_gb_per_s if sku else None) or line_rate * ring_share(sku)
    if is_mesh(compute.nvlink_domain, sku):
        # No switch: no in-switch reduction; the GPUs' own links carry every collective.
        return ScaleUpLevel(domain, "nvlink", ring, None, None, mesh=True)
    switch = nvlink_switch(sku, catalog, switch_sku)
    measured = sku.nccl_allreduce_busbw_measured_gb_per_s if sku is not None else None
    nvls = None
    if switch is not None and switch.in_network_reduction == "nvls":
        if measured and measured > ring:  # an NVLS measurement over the SKU's whole domain
            nvls = measured / float(bus_factor("all_reduce", max(sku.scale_up_domain_gpus, 2)))
        else:
            nvls = line_rate * (switch.nvls_algbw_per_line_rate or NVLS_ALGBW_PER_LINE_RATE)
    elif measured:
        # No NVLS (e.g. A100): the measured all-reduce busbw is the ring's ceiling (C04: 230).
        ring = min(ring, measured)
    return ScaleUpLevel(domain, "nvlink", ring, nvls, switch.id if switch else None)


def sharp_usable(fabric: SiteFabric, catalog, settings) -> bool:
    """SHARP reduces in the scale-out switches when the design allows it, the switch has it and
    the fabric is rail-optimized: NCCL runs one aggregation flow per NIC rail and the SHARP
    plugin needs every leaf to hold one rail of all servers (NVIDIA HPC-X 2.26 manual,
    NCCL-RDMA-SHARP plugins)."""
    if settings is not None and settings.in_network_reduction == "off":
        return False
    if fabric.scale_out.rails is None:
        return False
    switch = catalog.get("switches", fabric.scale_out.switch_sku)
    return switch.in_network_reduction == "sharp"


def scale_out_level(fabric: SiteFabric, catalog=None, settings=None) -> ScaleOutLevel:
    """The scale-out level of one site's fabric, read from the fabric engine's result; SHARP
    needs the `catalog` (switch entry) and the design's fabric `settings`."""
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
        rails=network.rails,
        in_network_reduction=catalog is not None and sharp_usable(fabric, catalog, settings),
    )


def topology_from_fabric(compute, gpu, catalog, fabric: SiteFabric, settings=None) -> Topology:
    """The hierarchy a single-site step runs on: the NVLink domain and the scale-out fabric of
    `fabric` (a `SiteFabric` from the fabric engine, normally `FabricResult.primary`).
    `settings` is the design's `fabric` section (SHARP on/off, the NVLink switch); None = the
    defaults."""
    network = fabric.network_for_performance
    return Topology(
        scale_up=scale_up_level(
            compute,
            gpu,
            catalog,
            domain_gpus=network.nvlink_domain_gpus,
            nvlink_total=network.nvlink_gbytes_per_s_per_gpu,
            switch_sku=settings.nvlink_switch_sku if settings is not None else None,
        ),
        scale_out=scale_out_level(fabric, catalog, settings),
        gpus_per_node=compute.gpus_per_node,
    )
