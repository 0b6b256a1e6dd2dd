"""The link hierarchy a collective runs on: the NVLink (scale-up) domain, the scale-out fabric
and, for multi-site designs, the WAN. Built once per design from the spec and the catalog."""

from dataclasses import dataclass

from models_engine.catalog import CatalogLookupError
from models_engine.engines.collectives.constants import (
    NVLS_ARCHITECTURES,
    NVLS_BUSBW_PER_LINE_RATE,
    PCIE_GEN4_BUSBW_GB_PER_S,
    PCIE_GEN5_BUSBW_GB_PER_S,
    RING_BUSBW_PER_LINE_RATE,
)


@dataclass(frozen=True)
class ScaleUpLevel:
    """One NVLink / NVSwitch domain (or a PCIe-only node)."""

    gpus: int
    link: str  # "nvlink" or "pcie": selects NCCL's per-hop latency
    ring_busbw_gb_per_s: float  # per GPU, large messages, what an NCCL ring reaches
    nvls_busbw_gb_per_s: float | None  # NVLink SHARP all-reduce busbw; None = no NVLS


@dataclass(frozen=True)
class ScaleOutLevel:
    """The backend fabric as one GPU sees it (rail-aligned: each GPU drives its own NIC)."""

    nic_busbw_gb_per_s_per_gpu: float
    nodes_per_leaf: int
    nodes_per_pod: int  # nodes under one spine block (3-tier fat tree); huge for 2 tiers
    leaf_oversubscription: float
    spine_oversubscription: float
    technology: str


@dataclass(frozen=True)
class WanLevel:
    sites: int
    bandwidth_gb_per_s: float  # bytes, the narrowest link between sites
    rtt_s: float
    strategy: str


@dataclass(frozen=True)
class Topology:
    scale_up: ScaleUpLevel
    scale_out: ScaleOutLevel
    gpus_per_node: int
    wan: WanLevel | None = None

    def as_dict(self) -> dict:
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
                "leaf_oversubscription": self.scale_out.leaf_oversubscription,
                "spine_oversubscription": self.scale_out.spine_oversubscription,
            },
        }
        if self.wan is not None:
            out["wan"] = {
                "sites": self.wan.sites,
                "bandwidth_gb_per_s": self.wan.bandwidth_gb_per_s,
                "rtt_ms": self.wan.rtt_s * 1e3,
                "strategy": self.wan.strategy,
            }
        return out


def _catalog_gpu(gpu, catalog):
    if gpu.id == "custom":
        return None
    try:
        return catalog.get("gpus", gpu.id)
    except CatalogLookupError:
        return None


def scale_up_level(compute, gpu, catalog) -> ScaleUpLevel:
    domain = compute.nvlink_domain.gpus
    sku = _catalog_gpu(gpu, catalog)
    nvlink_total = gpu.nvlink_gbytes_per_s_per_gpu or 0.0
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


def _switch_down_ports(fabric, catalog) -> int:
    """Ports of one leaf facing the nodes, at the NIC speed, given the leaf oversubscription."""
    try:
        switch = catalog.get("switches", fabric.switch_sku)
    except CatalogLookupError:
        return 32
    ports = switch.radix_ports
    if switch.breakout_ports and switch.breakout_port_speed_gbit_per_s == fabric.nic_speed_gbps:
        ports = switch.breakout_ports
    elif fabric.nic_speed_gbps < switch.port_speed_gbit_per_s:
        ports = int(ports * switch.port_speed_gbit_per_s // fabric.nic_speed_gbps)
    over = fabric.oversubscription.leaf
    return max(1, int(ports * over / (1.0 + over)))


def scale_out_level(spec, catalog) -> ScaleOutLevel:
    fabric, compute = spec.fabric, spec.compute
    try:
        nic = catalog.get("nics", fabric.nic_sku)
        per_port = nic.effective_gb_per_s_per_port * min(
            1.0, fabric.nic_speed_gbps / nic.line_rate_gbit_per_s
        )
    except CatalogLookupError:
        # 97% of line rate, the ConnectX-7 ratio (48.5 GB/s x 8 / 400 Gb/s, catalog nics).
        per_port = fabric.nic_speed_gbps / 8.0 * 0.97
    per_gpu = per_port * fabric.nics_per_node / compute.gpus_per_node
    down = _switch_down_ports(fabric, catalog)
    # Rail-optimized: one leaf per rail, one port per node. Otherwise a node uses all its NICs
    # on one leaf.
    if fabric.topology == "rail-optimized":
        nodes_per_leaf = down
    else:
        nodes_per_leaf = max(1, down // fabric.nics_per_node)
    pod = nodes_per_leaf * max(1, down) if fabric.topology == "fat-tree-3tier" else 10**9
    return ScaleOutLevel(
        nic_busbw_gb_per_s_per_gpu=per_gpu,
        nodes_per_leaf=nodes_per_leaf,
        nodes_per_pod=pod,
        leaf_oversubscription=fabric.oversubscription.leaf,
        spine_oversubscription=fabric.oversubscription.spine,
        technology=fabric.technology,
    )


def wan_level(regions) -> WanLevel | None:
    sites = [site for site in regions.sites if site.gpu_share > 0]
    if len(sites) < 2 or regions.cross_region_strategy == "none":
        return None
    ids = {site.id for site in sites}
    links = [link for link in regions.wan_links if link.from_site in ids and link.to_site in ids]
    if not links:
        return WanLevel(len(sites), 0.0, 0.0, regions.cross_region_strategy)
    narrowest = min(links, key=lambda link: link.bandwidth_gbps)
    return WanLevel(
        sites=len(sites),
        bandwidth_gb_per_s=narrowest.bandwidth_gbps / 8.0,
        rtt_s=max(link.rtt_ms for link in links) / 1e3,
        strategy=regions.cross_region_strategy,
    )


def topology_from_spec(spec, gpu, catalog) -> Topology:
    return Topology(
        scale_up=scale_up_level(spec.compute, gpu, catalog),
        scale_out=scale_out_level(spec, catalog),
        gpus_per_node=spec.compute.gpus_per_node,
        wan=wan_level(spec.regions),
    )
