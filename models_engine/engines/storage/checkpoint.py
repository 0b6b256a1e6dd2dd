"""Checkpoints: size, who writes them, write time per tier, blocking time (sync vs async),
retention and capacity over the horizon.

Write time (reliability.md "Checkpoint write time model"):
    t_write = S / min(B_tier, B_network, writer_nodes x B_node)
local-nvme is per node, so writer nodes x its write bandwidth; shared tiers are capped by the
node-side storage network (the fabric engine's, `throughput.network_gbytes_per_s`). Read time
on restart follows the same rule with the tiers' read bandwidth.
Async (background) checkpoints block only for the GPU -> host copy of each GPU's shard.
"""

from __future__ import annotations

import math

from .data import (
    CHECKPOINT_BYTES_PER_PARAM,
    CHECKPOINT_BYTES_PER_PARAM_WITHOUT_GRADIENTS,
    D2H_GBYTES_PER_S,
    GIB_BYTES,
    HOST_RAM_CACHE_FRACTION,
    HOURS_PER_YEAR,
    PCIE_GEN4_GPU_PREFIXES,
    PLACEHOLDER_INTERVAL_MIN,
    TB_BYTES,
)


def writer_gpus(spec) -> tuple[int, str]:
    """GPUs that write a shard. With the optimizer sharded over data parallel ranks (ZeRO >= 1,
    FSDP, or 'auto' which picks a distributed optimizer) every GPU writes its slice; without
    sharding one data-parallel replica (tp x pp x cp GPUs) writes the whole state."""
    parallelism = spec.workload.parallelism
    gpus = spec.compute.gpu_count
    if parallelism == "auto":
        return gpus, "all GPUs (auto layout: distributed optimizer assumed)"
    if parallelism.zero_stage == "fsdp" or parallelism.zero_stage >= 1:
        return gpus, f"all GPUs (optimizer sharded, zero_stage={parallelism.zero_stage})"
    replica = parallelism.tp * parallelism.pp * parallelism.cp
    return replica, "one data-parallel replica (zero_stage=0)"


def d2h_gbytes_per_s(gpu_id: str) -> float:
    gen = "gen4" if gpu_id.startswith(PCIE_GEN4_GPU_PREFIXES) else "gen5"
    return D2H_GBYTES_PER_S[gen]


def interval_min(policy) -> tuple[float, bool]:
    """(minutes, is_placeholder) of the checkpoint interval."""
    if policy.interval_min == "auto":
        return PLACEHOLDER_INTERVAL_MIN, True
    return float(policy.interval_min), False


def tier_read_gbytes_per_s(tier, *, nodes: int, network: dict) -> float:
    """Read bandwidth of a checkpoint (or model) load from `tier`: every one of `nodes` reads
    its own local NVMe; a shared tier is capped by the storage network."""
    if tier.kind == "local-nvme":
        return tier.read_gbytes_per_s * nodes
    return min(tier.read_gbytes_per_s, network["gbytes_per_s"])


def checkpoint_block(
    spec,
    *,
    parameters: float,
    checkpoint_bytes: float | None,
    gpu_id: str,
    nodes: int,
    network: dict,
) -> dict:
    storage, compute = spec.storage, spec.compute
    policy = storage.checkpoint
    derived = checkpoint_bytes is None
    size = parameters * CHECKPOINT_BYTES_PER_PARAM if derived else float(checkpoint_bytes)
    writers, writers_basis = writer_gpus(spec)
    writer_nodes = max(1, min(nodes, math.ceil(writers / compute.gpus_per_node)))
    shard = size / writers
    copy_s = shard / (d2h_gbytes_per_s(gpu_id) * 1e9)
    tiers = []
    for index, tier in enumerate(storage.tiers):
        if tier.kind == "local-nvme":
            bandwidth, limit = tier.write_gbytes_per_s * writer_nodes, "writer nodes x node NVMe"
        else:
            bandwidth, limit = tier.write_gbytes_per_s, "tier"
            if network["gbytes_per_s"] < bandwidth:
                bandwidth, limit = network["gbytes_per_s"], "storage network"
        capacity_tb = tier.capacity_tb * (nodes if tier.kind == "local-nvme" else 1)
        read = tier_read_gbytes_per_s(tier, nodes=writer_nodes, network=network)
        tiers.append(
            {
                "tier": index,
                "kind": tier.kind,
                "write_gbytes_per_s": bandwidth,
                "limited_by": limit,
                "write_s": size / (bandwidth * 1e9),
                "read_gbytes_per_s": read,
                "read_s": size / (read * 1e9),
                "capacity_tb": capacity_tb,
            }
        )
    durable = next((t for t in tiers if t["kind"] != "local-nvme"), tiers[0])
    minutes, placeholder = interval_min(policy)
    blocking_s = copy_s if policy.async_write else durable["write_s"]
    staging_gib_per_node = shard * compute.gpus_per_node / GIB_BYTES
    staging_limit = compute.host_ram_gib_per_node * (1.0 - HOST_RAM_CACHE_FRACTION)
    return {
        "applies": spec.workload.kind == "training",
        "size_bytes": size,
        "size_tb": size / TB_BYTES,
        "size_source": "derived" if derived else "given",
        "bytes_per_param": CHECKPOINT_BYTES_PER_PARAM if derived else size / parameters,
        "convention": (
            "params x 18 B (bf16 weights 2 + fp32 gradients 4 + fp32 master, Adam m, v 12); "
            "without gradients 14 B/param"
        ),
        "size_tb_without_gradients": parameters
        * CHECKPOINT_BYTES_PER_PARAM_WITHOUT_GRADIENTS
        / TB_BYTES,
        "parameters": parameters,
        "writer_gpus": writers,
        "writer_nodes": writer_nodes,
        "writers_basis": writers_basis,
        "shard_gb_per_writer": shard / 1e9,
        "async_write": policy.async_write,
        "gpu_to_host_copy_s": copy_s,
        "blocking_s": blocking_s,
        "durable_tier": durable["tier"],
        "durable_write_s": durable["write_s"],
        "durable_read_s": durable["read_s"],
        "durable_against_node_loss": durable["kind"] != "local-nvme",
        "async_staging_gib_per_node": staging_gib_per_node,
        "async_staging_fits_host_ram": staging_gib_per_node <= staging_limit,
        "interval_min": minutes,
        "interval_is_placeholder": placeholder,
        "write_fits_interval": durable["write_s"] <= minutes * 60.0,
        "tiers": tiers,
    }


def retention_block(spec, checkpoint: dict, horizon_years: float) -> dict:
    """What the kept checkpoints and the dataset occupy on each tier, and what is written over
    the economics horizon."""
    storage = spec.storage
    policy = storage.checkpoint
    size_tb = checkpoint["size_tb"] if checkpoint["applies"] else 0.0
    retained_tb = size_tb * policy.retention_count
    per_year = HOURS_PER_YEAR * 60.0 / checkpoint["interval_min"] if checkpoint["applies"] else 0
    written = per_year * horizon_years
    rows = []
    for row in checkpoint["tiers"]:
        used = retained_tb + (storage.dataset_size_tb if row["kind"] != "local-nvme" else 0.0)
        rows.append(
            {
                "tier": row["tier"],
                "kind": row["kind"],
                "capacity_tb": row["capacity_tb"],
                "checkpoints_tb": retained_tb,
                "dataset_tb": used - retained_tb,
                "used_tb": used,
                "fits": used <= row["capacity_tb"],
                "fill_fraction": used / row["capacity_tb"],
            }
        )
    return {
        "retention_count": policy.retention_count,
        "incremental": policy.incremental,
        "retained_tb": retained_tb,
        "horizon_years": horizon_years,
        "checkpoints_per_year": per_year,
        "checkpoints_over_horizon": written,
        "written_pb_over_horizon": written * size_tb / 1000.0,
        "tiers": rows,
        "lifecycle": (
            f"keep the newest {policy.retention_count} checkpoints on each tier; older ones "
            "are deleted (or moved to the object store when one exists)"
        ),
    }
