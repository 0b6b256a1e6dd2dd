"""Storage engine: data-loading bandwidth needed vs provided, cache fit, checkpoint size and
write / read time per tier (sync vs async), retention over the horizon, and durability.

    evaluate_storage(spec, catalog, *, fabric, tokens_per_s, parameters, sites=None)
        -> StorageResult
    evaluate_site_storage(site, site_fabric, catalog, *, tokens_per_s, parameters)
        -> SiteStorage

The storage engine owns checkpoint bytes (params x 18 B; data.py gives the derivation) and the
checkpoint write / read times: no other engine computes them. It reads the storage network
bandwidth from the fabric engine's `SiteFabric` of each site (a separate storage network, or
the compute NICs when converged) and the job's tokens/s and the model's parameter count
from the performance engine.
`checkpoint_bytes` overrides the derived size (a given figure, reported as "given").
"""

from __future__ import annotations

from models_engine.hardware import resolve_gpu

from .checkpoint import checkpoint_block, retention_block, tier_read_gbytes_per_s
from .data import SERVING_BYTES_PER_WEIGHT
from .durability import durability_block
from .result import SiteStorage, StorageResult
from .throughput import cache_block, network_gbytes_per_s, read_block

__all__ = ["SiteStorage", "StorageResult", "evaluate_site_storage", "evaluate_storage"]


def _finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def evaluate_site_storage(
    site,
    site_fabric,
    catalog,
    *,
    tokens_per_s: float,
    parameters: float,
    checkpoint_bytes: float | None = None,
) -> SiteStorage:
    """Storage of one site (`site`: a `SiteSlice`, its spec scoped to that site) on that site's
    networks (`site_fabric`: the fabric engine's `SiteFabric`); `tokens_per_s` is the site's
    share of the job's rate; `parameters` the model's parameter count (the performance
    engine's `model.parameters_total_b`)."""
    spec = site.spec
    gpu = resolve_gpu(spec.compute, catalog)
    compute, storage = spec.compute, spec.storage
    nodes = compute.gpu_count // compute.gpus_per_node
    network = network_gbytes_per_s(site_fabric)
    read = read_block(storage, spec.workload, nodes, float(tokens_per_s), network)
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
        storage_network=network,
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
    if not checkpoint["write_fits_interval"]:
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
                "each; async_write would block only for the GPU-to-host copy "
                f"({checkpoint['gpu_to_host_copy_s']:.1f} s)",
                "storage.checkpoint.async_write",
            )
        )
    return out


from .cluster import evaluate_storage  # noqa: E402  (the cluster assembles the site storage)
