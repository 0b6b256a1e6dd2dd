"""Data loading: read bandwidth the training run needs against what each tier (and the network
to it) provides, and whether the dataset fits in host RAM or local NVMe caches.

Tier figures follow the spec: local-nvme is PER NODE (scaled by the node count here); parallel-fs
and object-store are aggregates of the whole system.
"""

from __future__ import annotations

from .achieved import achieved_bandwidth
from .data import GIB_BYTES, HOST_RAM_CACHE_FRACTION, TB_BYTES


def read_need_gbytes_per_s(storage, workload, tokens_per_s: float) -> tuple[float, str]:
    """GB/s the data loader must read, and how it was computed."""
    if workload.kind == "inference":
        return 0.0, "inference: no training data is read"
    if storage.bytes_per_sample is not None:
        samples = tokens_per_s / workload.sequence_length
        return samples * storage.bytes_per_sample / 1e9, "samples/s x bytes_per_sample"
    return tokens_per_s * storage.bytes_per_token / 1e9, "tokens/s x bytes_per_token"


def tier_aggregate(tier, nodes: int, attr: str) -> float:
    value = getattr(tier, attr)
    return value * nodes if tier.kind == "local-nvme" else value


def network_gbytes_per_s(site_fabric) -> dict:
    """Aggregate node-side bandwidth to shared storage, GB/s, read from the fabric engine's
    `SiteFabric`: a separate storage network's NIC ports x their speed, or (converged) the
    compute fabric's NIC ports x their speed, shared with collectives."""
    net = site_fabric.storage_network
    if net.mode == "converged":
        nics = site_fabric.scale_out.nics
        gbit = nics.ports * nics.speed_gbps
        return {"mode": "converged", "gbytes_per_s": gbit / 8.0, "shared_with_compute": True}
    gbit = net.nic_ports * net.nic_speed_gbps
    return {"mode": "separate", "gbytes_per_s": gbit / 8.0, "shared_with_compute": False}


def supply_tiers(storage, nodes: int, network: dict) -> list[dict]:
    """Read bandwidth each tier provides at a site of `nodes` nodes, GB/s, as achieved
    (achieved.py): local NVMe is per node (x nodes); a shared tier is the system's rating x
    its achieved fraction, capped by its clients and the storage network."""
    tiers = []
    for index, tier in enumerate(storage.tiers):
        got = achieved_bandwidth(
            tier, "read_gbytes_per_s", nodes=nodes, network_gbytes_per_s=network["gbytes_per_s"]
        )
        tiers.append(
            {
                "tier": index,
                "kind": tier.kind,
                "provided_read_gbytes_per_s": got.gbytes_per_s,
                "limited_by": got.limited_by,
            }
        )
    return tiers


def read_block(storage, workload, site_supply, tokens_per_s: float) -> dict:
    """Read bandwidth needed at the site against what each tier provides there: the provided
    figures are the site's `StorageSupply` (never recomputed here)."""
    needed, basis = read_need_gbytes_per_s(storage, workload, tokens_per_s)
    tiers = [
        {
            "tier": tier.tier,
            "kind": tier.kind,
            "provided_read_gbytes_per_s": tier.provided_read_gbytes_per_s,
            "headroom_ratio": tier.provided_read_gbytes_per_s / needed if needed else None,
            "sufficient": tier.provided_read_gbytes_per_s >= needed,
        }
        for tier in site_supply.tiers
    ]
    best = site_supply.tier(site_supply.data_loading_tier)
    nodes = site_supply.nodes
    return {
        "needed_gbytes_per_s": needed,
        "needed_gbytes_per_s_per_node": needed / nodes if nodes else 0.0,
        "basis": basis,
        "tokens_per_s": tokens_per_s,
        "tiers": tiers,
        "storage_network_gbytes_per_s": site_supply.storage_network.gbytes_per_s,
        "best_tier": site_supply.data_loading_tier,
        "headroom_ratio": best.provided_read_gbytes_per_s / needed if needed else None,
    }


def cache_block(storage, compute, nodes: int) -> dict:
    """Dataset vs per-node caches: replicated (every node holds all of it, any shuffle) or
    sharded (each node holds 1/nodes of it, the loader reads its own shard)."""
    dataset_tb = storage.dataset_size_tb
    ram_tb = compute.host_ram_gib_per_node * GIB_BYTES * HOST_RAM_CACHE_FRACTION / TB_BYTES
    local = next((tier for tier in storage.tiers if tier.kind == "local-nvme"), None)
    nvme_tb = local.capacity_tb if local else 0.0
    shard_tb = dataset_tb / nodes if nodes else dataset_tb
    return {
        "dataset_tb": dataset_tb,
        "dataset_shard_tb_per_node": shard_tb,
        "host_ram_cache_tb_per_node": ram_tb,
        "host_ram_cache_fraction": HOST_RAM_CACHE_FRACTION,
        "local_nvme_tb_per_node": nvme_tb,
        "fits_host_ram_replicated": dataset_tb <= ram_tb,
        "fits_host_ram_sharded": shard_tb <= ram_tb,
        "fits_local_nvme_replicated": dataset_tb <= nvme_tb,
        "fits_local_nvme_sharded": shard_tb <= nvme_tb,
    }
