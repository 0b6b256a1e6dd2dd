"""Storage engine: data-loading bandwidth needed vs provided, cache fit, checkpoint size and
write time per tier (sync vs async), retention over the horizon, and durability.

    evaluate_storage(spec, catalog, *, tokens_per_s=None) -> StorageResult  # per site
    evaluate_site_storage(site_spec, catalog, *, tokens_per_s=None, checkpoint_bytes=None)
        -> dict   # the storage of one site

`tokens_per_s` comes from the performance engine; without it a placeholder is estimated (6 x
params FLOPs per token at 40% of BF16 peak) and flagged. `checkpoint_bytes` overrides the derived
size (params x 18 B; see data.py for the convention).
"""

from __future__ import annotations

from models_engine.engines.performance.memory_fit import total_params
from models_engine.hardware import resolve_gpu

from .checkpoint import checkpoint_block, retention_block
from .data import PLACEHOLDER_MFU, SERVING_BYTES_PER_WEIGHT, TRAINING_FLOPS_PER_PARAM_PER_TOKEN
from .durability import durability_block
from .result import SiteStorage, StorageResult
from .throughput import cache_block, network_gbytes_per_s, read_block

__all__ = ["SiteStorage", "StorageResult", "evaluate_site_storage", "evaluate_storage"]


def _finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def placeholder_tokens_per_s(spec, gpu, parameters: float) -> float:
    peak_tflops = gpu.bf16_dense_tflops
    flops = peak_tflops * 1e12 * spec.compute.gpu_count * PLACEHOLDER_MFU
    return flops / (TRAINING_FLOPS_PER_PARAM_PER_TOKEN * parameters)


def evaluate_site_storage(spec, catalog, *, tokens_per_s=None, checkpoint_bytes=None) -> dict:
    """Storage of one site (`spec` scoped to that site); `tokens_per_s` is that site's rate."""
    gpu = resolve_gpu(spec.compute, catalog)
    compute, storage = spec.compute, spec.storage
    nodes = compute.gpu_count // compute.gpus_per_node
    parameters = total_params(spec.workload)
    source = "given"
    if tokens_per_s is None:
        training = spec.workload.kind == "training"
        tokens_per_s = placeholder_tokens_per_s(spec, gpu, parameters) if training else 0.0
        source = "placeholder (performance engine not run)" if training else "inference"
    network = network_gbytes_per_s(spec.fabric, nodes)
    read = read_block(storage, spec.workload, nodes, float(tokens_per_s), network)
    read["tokens_per_s_source"] = source
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
    durability = durability_block(storage)
    model_load = _model_load(spec, parameters, checkpoint)
    findings = _findings(spec, read, cache, checkpoint, retention, network)
    return {
        "read": read,
        "cache": cache,
        "storage_network": network,
        "checkpoint": checkpoint,
        "retention": retention,
        "durability": durability,
        "model_load": model_load,
        "findings": findings,
        "breakdown": {
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
    }


def _model_load(spec, parameters: float, checkpoint: dict) -> dict:
    """Reading the model at start-up: serving weights (inference) or a checkpoint (restart)."""
    if spec.workload.kind == "inference":
        size = parameters * SERVING_BYTES_PER_WEIGHT[spec.workload.precision]
        what = "serving weights"
    else:
        size, what = checkpoint["size_bytes"], "checkpoint (restart)"
    rows = [
        {
            "tier": row["tier"],
            "kind": row["kind"],
            "read_s": size
            / (
                tier.read_gbytes_per_s
                * 1e9
                * (checkpoint["writer_nodes"] if tier.kind == "local-nvme" else 1)
            ),
        }
        for row, tier in zip(checkpoint["tiers"], spec.storage.tiers, strict=True)
    ]
    return {"what": what, "size_bytes": size, "tiers": rows}


def _findings(spec, read, cache, checkpoint, retention, network) -> list[dict]:
    out = []
    if read["tokens_per_s_source"].startswith("placeholder"):
        out.append(
            _finding(
                "storage-tokens-placeholder",
                "info",
                f"read bandwidth uses a placeholder of {read['tokens_per_s']:.3g} tokens/s "
                "(40% MFU); run with the performance engine's tokens/s for the real figure",
                "workload",
            )
        )
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
