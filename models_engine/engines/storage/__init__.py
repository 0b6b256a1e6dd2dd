"""Storage engine: data-loading bandwidth needed vs provided, cache fit, checkpoint size and
write / read time per tier (sync vs async), retention over the horizon, and durability.

    evaluate_storage_supply(spec, catalog, *, fabric, sites=None) -> StorageSupply
    evaluate_storage(spec, catalog, *, storage_supply, tokens_per_s, parameters, sites=None)
        -> StorageResult
    evaluate_site_storage(site, site_supply, catalog, *, tokens_per_s, parameters)
        -> SiteStorage

The storage engine owns checkpoint bytes (params x 18 B; data.py gives the derivation) and the
checkpoint write / read times, and the read bandwidth each site's storage provides: no other
engine computes them. The supply (`StorageSupply`: per site, each tier's provided read
bandwidth, the storage network read from the fabric engine's `SiteFabric` -- a separate storage
network, or the compute NICs when converged -- and the figure data loading reads from) runs
before the performance engine, which takes its I/O stall from it. The full result runs after
performance (it needs the job's tokens/s and the model's parameter count) and reuses the
supply's numbers.
`checkpoint_bytes` overrides the derived size (a given figure, reported as "given").
"""

from __future__ import annotations

from models_engine.hardware import resolve_gpu

from .checkpoint import checkpoint_block, retention_block, tier_read_gbytes_per_s
from .data import ASYNC_BLOCKING_FLOOR_S, SERVING_BYTES_PER_WEIGHT
from .durability import durability_block
from .result import SiteStorage, SiteStorageSupply, StorageResult, StorageSupply
from .supply import evaluate_storage_supply
from .throughput import cache_block, read_block

__all__ = [
    "SiteStorage",
    "StorageResult",
    "StorageSupply",
    "evaluate_site_storage",
    "evaluate_storage",
    "evaluate_storage_supply",
]


def _finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def evaluate_site_storage(
    site,
    site_supply: SiteStorageSupply,
    catalog,
    *,
    tokens_per_s: float,
    parameters: float,
    checkpoint_bytes: float | None = None,
) -> SiteStorage:
    """Storage of one site (`site`: a `SiteSlice`, its spec scoped to that site) with what that
    site's storage provides (`site_supply`: the site's `StorageSupply`, whose tier read figures
    and storage network are reused as they are); `tokens_per_s` is the site's
    share of the job's rate; `parameters` the model's parameter count (the performance
    engine's `model.parameters_total_b`)."""
    spec = site.spec
    gpu = resolve_gpu(spec.compute, catalog)
    compute, storage = spec.compute, spec.storage
    nodes = compute.gpu_count // compute.gpus_per_node
    network = site_supply.storage_network.model_dump()
    read = read_block(storage, spec.workload, site_supply, float(tokens_per_s))
    read["tokens_per_s_source"] = "performance engine"
    cache = cache_block(storage, compute, nodes)
    checkpoint = checkpoint_block(
        spec,
        parameters=parameters,
        checkpoint_bytes=checkpoint_bytes,
        gpu_id=gpu.id,
        nodes=nodes,
        network=network,
    )
    retention = retention_block(spec, checkpoint, spec.economics.horizon_years)
    return SiteStorage(
        site_id=site.site_id,
        site_name=site.site_name,
        gpus=site.gpus,
        read=read,
        cache=cache,
        storage_network=site_supply.storage_network,
        checkpoint=checkpoint,
        retention=retention,
        durability=durability_block(storage),
        model_load=_model_load(spec, parameters, checkpoint, network),
        findings=_findings(read, cache, checkpoint, retention, network),
        breakdown={
            "read_gbytes_per_s": {
                "needed": read["needed_gbytes_per_s"],
                **{
                    f"{row['tier']}:{row['kind']}": row["provided_read_gbytes_per_s"]
                    for row in read["tiers"]
                },
            },
            "checkpoint_write_s_by_tier": {
                f"{row['tier']}:{row['kind']}": row["write_s"] for row in checkpoint["tiers"]
            },
            "capacity_tb_by_tier": {
                f"{row['tier']}:{row['kind']}": {
                    "checkpoints": row["checkpoints_tb"],
                    "dataset": row["dataset_tb"],
                    "free": max(0.0, row["capacity_tb"] - row["used_tb"]),
                }
                for row in retention["tiers"]
            },
        },
    )


def _model_load(spec, parameters: float, checkpoint: dict, network: dict) -> dict:
    """Reading the model at start-up: serving weights (inference) or a checkpoint (restart),
    at the same read bandwidth as a checkpoint restore (local NVMe: every reading node; shared
    tiers: capped by the storage network)."""
    if spec.workload.kind == "inference":
        size = parameters * SERVING_BYTES_PER_WEIGHT[spec.workload.precision]
        what = "serving weights"
        rows = [
            {
                "tier": index,
                "kind": tier.kind,
                "read_s": size
                / (
                    tier_read_gbytes_per_s(tier, nodes=checkpoint["writer_nodes"], network=network)
                    * 1e9
                ),
            }
            for index, tier in enumerate(spec.storage.tiers)
        ]
        return {"what": what, "size_bytes": size, "tiers": rows}
    rows = [
        {"tier": row["tier"], "kind": row["kind"], "read_s": row["read_s"]}
        for row in checkpoint["tiers"]
    ]
    return {"what": "checkpoint (restart)", "size_bytes": checkpoint["size_bytes"], "tiers": rows}


def _findings(read, cache, checkpoint, retention, network) -> list[dict]:
    out = []
    needed = read["needed_gbytes_per_s"]
    if needed and not any(row["sufficient"] for row in read["tiers"]):
        out.append(
            _finding(
                "storage-read-insufficient",
                "error",
                f"training reads {needed:.3g} GB/s; the fastest tier provides "
                f"{max(r['provided_read_gbytes_per_s'] for r in read['tiers']):.3g} GB/s: the "
                "data loader will stall the step",
                "storage.tiers",
            )
        )
    if (
        needed
        and not cache["fits_local_nvme_sharded"]
        and not cache["fits_host_ram_sharded"]
        and all(not row["sufficient"] for row in read["tiers"] if row["kind"] != "local-nvme")
    ):
        out.append(
            _finding(
                "storage-cache-miss",
                "warning",
                "the dataset shard fits neither host RAM nor local NVMe, and no shared tier "
                "keeps up: every epoch is bound by shared-storage reads",
                "storage.dataset_size_tb",
            )
        )
    if checkpoint["applies"]:
        out.extend(_checkpoint_findings(checkpoint))
    for row in retention["tiers"]:
        if not row["fits"]:
            out.append(
                _finding(
                    f"storage-capacity-tier-{row['tier']}",
                    "warning",
                    f"{row['kind']} holds {row['capacity_tb']:.4g} TB but the dataset and "
                    f"{retention['retention_count']} checkpoints need {row['used_tb']:.4g} TB",
                    f"storage.tiers.{row['tier']}.capacity_tb",
                )
            )
    if network["shared_with_compute"]:
        out.append(
            _finding(
                "storage-traffic-on-compute-fabric",
                "info",
                "checkpoint and data-loading traffic share the compute NICs (converged storage "
                "network)",
                "fabric.storage_network.mode",
            )
        )
    return out


def _checkpoint_findings(checkpoint: dict) -> list[dict]:
    out = []
    minutes = checkpoint["interval_min"]
    if (
        minutes
        and minutes * 60.0 < checkpoint["min_interval_s"]
        and checkpoint["write_fits_interval"]
    ):
        out.append(
            _finding(
                "storage-checkpoint-duty-cycle",
                "warning",
                f"checkpointing every {minutes:g} min keeps the tier writing more than "
                f"{checkpoint['max_write_duty_cycle']:.0%} of the time; the storage sustains "
                f"no interval below {checkpoint['min_interval_s'] / 60.0:.1f} min",
                "storage.checkpoint.interval_min",
            )
        )
    peer = checkpoint["peer_memory"]
    if peer is not None and not peer["fits_host_ram"]:
        out.append(
            _finding(
                "storage-peer-memory-ram",
                "warning",
                f"{peer['copies']} in-memory checkpoint copies hold "
                f"{peer['host_ram_gib_per_node']:.0f} GiB per node, more than the half of host "
                "RAM reserved for it",
                "storage.checkpoint.in_memory_copies",
            )
        )
    if checkpoint["write_fits_interval"] is False:
        out.append(
            _finding(
                "storage-checkpoint-slower-than-interval",
                "error",
                f"writing one checkpoint to the durable tier takes "
                f"{checkpoint['durable_write_s']:.0f} s, longer than the "
                f"{checkpoint['interval_min']:g} min interval",
                "storage.checkpoint.interval_min",
            )
        )
    if checkpoint["async_write"] and not checkpoint["async_staging_fits_host_ram"]:
        out.append(
            _finding(
                "storage-async-staging-ram",
                "warning",
                f"async checkpointing stages {checkpoint['async_staging_gib_per_node']:.0f} GiB "
                "per node in host RAM, more than the half reserved for it",
                "storage.checkpoint.async_write",
            )
        )
    if not checkpoint["async_write"] and checkpoint["blocking_s"] > 60.0:
        out.append(
            _finding(
                "storage-checkpoint-blocking",
                "warning",
                f"synchronous checkpoints stop training for {checkpoint['blocking_s']:.0f} s "
                "each; async_write would block only for the GPU-to-host phase "
                f"({max(checkpoint['gpu_to_host_copy_s'], ASYNC_BLOCKING_FLOOR_S):.1f} s)",
                "storage.checkpoint.async_write",
            )
        )
    return out


from .cluster import evaluate_storage  # noqa: E402  (the cluster assembles the site storage)
