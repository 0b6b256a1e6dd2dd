"""Checkpoints: size, who writes them, write time per tier at the bandwidth the job achieves,
blocking time (sync vs async), the in-memory peer tier, the smallest interval the storage
sustains, retention and capacity over the horizon.

Write time per tier (reliability.md "Checkpoint write time model", with achieved bandwidth):
    t_write = S / achieved(tier, writer nodes) + files / metadata creates per second
achieved.py gives the achieved bandwidth: the tier's rating x its achieved fraction, capped by
the clients and the storage network (local NVMe: writer nodes x node NVMe).
Async (background) checkpoints block only for the GPU -> host phase (the copy of each GPU's
shard, at least the measured DCP async down time, data.ASYNC_BLOCKING_FLOOR_S), but the
next one cannot start before the previous one is written, and writes may occupy the tier's
write bandwidth at most `max_write_duty_cycle` of the time: the storage sustains no interval
shorter than write time / duty cycle (`min_interval_s`). The interval itself is the design's,
or (auto) the reliability engine's Daly optimum within that bound: storage never invents one.
In-memory tier (`in_memory_copies` >= 1, Gemini, Wang et al. SOSP 2023): each node's shard is
copied to that many peers' host RAM over the node's storage-network share; restarts read it
from there, and the durable tier is written no more often than its own bound allows.
"""

from __future__ import annotations

import math

from .achieved import achieved_bandwidth, metadata_s
from .data import (
    ASYNC_BLOCKING_FLOOR_S,
    CHECKPOINT_BYTES_PER_PARAM,
    D2H_GBYTES_PER_S,
    GIB_BYTES,
    HOST_RAM_CACHE_FRACTION,
    HOURS_PER_YEAR,
    PCIE_GEN4_GPU_PREFIXES,
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


def interval_min(policy) -> tuple[float | None, str]:
    """(minutes or None, who sets it) of the checkpoint interval."""
    if policy.interval_min == "auto":
        return None, "reliability engine (Daly optimum within min_interval_s)"
    return float(policy.interval_min), "design"


def tier_read_gbytes_per_s(tier, *, nodes: int, network: dict) -> float:
    """Achieved read bandwidth of a checkpoint (or model) load from `tier` by `nodes` nodes."""
    return achieved_bandwidth(
        tier, "read_gbytes_per_s", nodes=nodes, network_gbytes_per_s=network["gbytes_per_s"]
    ).gbytes_per_s


def _tier_row(
    index: int, tier, *, size: float, files: int, writer_nodes: int, nodes: int, network: dict
) -> dict:
    write = achieved_bandwidth(
        tier, "write_gbytes_per_s", nodes=writer_nodes, network_gbytes_per_s=network["gbytes_per_s"]
    )
    read = tier_read_gbytes_per_s(tier, nodes=writer_nodes, network=network)
    meta_s = metadata_s(tier, files)
    return {
        "tier": index,
        "kind": tier.kind,
        "write_gbytes_per_s": write.gbytes_per_s,
        "rated_write_gbytes_per_s": write.rated_gbytes_per_s,
        "achieved_fraction": write.fraction,
        "achieved_fraction_source": write.fraction_source,
        "limited_by": write.limited_by,
        "metadata_s": meta_s,
        "write_s": size / (write.gbytes_per_s * 1e9) + meta_s,
        "read_gbytes_per_s": read,
        "read_s": size / (read * 1e9) + meta_s,
        "capacity_tb": tier.capacity_tb * (nodes if tier.kind == "local-nvme" else 1),
    }


def peer_memory_block(
    policy, *, size: float, writer_nodes: int, nodes: int, network: dict, host_ram_gib: float
) -> dict | None:
    """The in-memory tier: each writer node's shard copied to `in_memory_copies` peers over
    the node's share of the storage network; a restart fetches the lost node's shard back."""
    copies = policy.in_memory_copies
    if copies < 1:
        return None
    per_node_gbytes_per_s = network["gbytes_per_s"] / max(1, nodes)
    shard_node = size / writer_nodes
    held_gib = shard_node * (1 + copies) / GIB_BYTES
    return {
        "copies": copies,
        "per_node_gbytes_per_s": per_node_gbytes_per_s,
        "write_s": shard_node * copies / (per_node_gbytes_per_s * 1e9),
        "read_s": shard_node / (per_node_gbytes_per_s * 1e9),
        "host_ram_gib_per_node": held_gib,
        "fits_host_ram": held_gib <= host_ram_gib * (1.0 - HOST_RAM_CACHE_FRACTION),
        "survives_simultaneous_node_failures": copies,
    }


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
    tiers = [
        _tier_row(
            index,
            tier,
            size=size,
            files=writers,
            writer_nodes=writer_nodes,
            nodes=nodes,
            network=network,
        )
        for index, tier in enumerate(storage.tiers)
    ]
    durable = next((t for t in tiers if t["kind"] != "local-nvme"), tiers[0])
    peer = peer_memory_block(
        policy,
        size=size,
        writer_nodes=writer_nodes,
        nodes=nodes,
        network=network,
        host_ram_gib=compute.host_ram_gib_per_node,
    )
    restart_write_s = peer["write_s"] if peer else durable["write_s"]
    restart_read_s = peer["read_s"] if peer else durable["read_s"]
    duty = policy.max_write_duty_cycle
    minutes, interval_source = interval_min(policy)
    blocking_s = max(copy_s, ASYNC_BLOCKING_FLOOR_S) if policy.async_write else restart_write_s
    staging_gib_per_node = shard * compute.gpus_per_node / GIB_BYTES
    staging_limit = compute.host_ram_gib_per_node * (1.0 - HOST_RAM_CACHE_FRACTION)
    return {
        "applies": spec.workload.kind == "training",
        "size_bytes": size,
        "size_tb": size / TB_BYTES,
        "size_source": "derived" if derived else "given",
        "bytes_per_param": CHECKPOINT_BYTES_PER_PARAM if derived else size / parameters,
        "convention": (
            "params x 14 B: bf16 weights 2 + fp32 master weights, Adam m, v 12 (gradients are "
            "not saved)"
        ),
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
        "durable_against_node_loss": durable["kind"] != "local-nvme" or peer is not None,
        "async_staging_gib_per_node": staging_gib_per_node,
        "async_staging_fits_host_ram": staging_gib_per_node <= staging_limit,
        "interval_min": minutes,
        "interval_source": interval_source,
        "write_fits_interval": durable["write_s"] <= minutes * 60.0 if minutes else None,
        "max_write_duty_cycle": duty,
        "durable_min_interval_s": durable["write_s"] / duty,
        "restart_source": "peer memory" if peer else f"tier {durable['tier']}: {durable['kind']}",
        "restart_write_s": restart_write_s,
        "restart_read_s": restart_read_s,
        "min_interval_s": restart_write_s / duty,
        "peer_memory": peer,
        "tiers": tiers,
    }


def retention_block(spec, checkpoint: dict, horizon_years: float) -> dict:
    """What the kept checkpoints and the dataset occupy on each tier. The volume written over
    the horizon needs the interval: the design's, else the reliability engine reports it."""
    storage = spec.storage
    policy = storage.checkpoint
    size_tb = checkpoint["size_tb"] if checkpoint["applies"] else 0.0
    retained_tb = size_tb * policy.retention_count
    minutes = checkpoint["interval_min"] if checkpoint["applies"] else None
    per_year = HOURS_PER_YEAR * 60.0 / minutes if minutes else None
    written = per_year * horizon_years if per_year is not None else None
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
        "written_pb_over_horizon": written * size_tb / 1000.0 if written is not None else None,
        "written_source": "design interval"
        if minutes
        else "auto interval: see the reliability engine's checkpoint block",
        "tiers": rows,
        "lifecycle": (
            f"keep the newest {policy.retention_count} checkpoints on each tier; older ones "
            "are deleted (or moved to the object store when one exists)"
        ),
    }
