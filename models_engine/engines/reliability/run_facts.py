"""The facts of the training run the reliability and regions engines need: model size, step
time, failure-free time to train, gradient and checkpoint bytes, checkpoint write / read time.

Each comes from the other engines' results when the lead passes them, else from a small
derivation here; `sources` says which, so the page can show an estimate as an estimate."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from models_engine.hardware import resolve_gpu

from .lookup import pick, pick_number

SECONDS_PER_DAY = 86_400.0

# Model FLOPs utilisation used only when the performance engine's step time is absent.
# Assumption inside the published range: Llama 3 405B reports 38-43% BF16 MFU on 16K H100
# (Dubey et al. 2024, Table 4); NVIDIA's Llama 3.1 70B recipe ~54% (performance.md [S15]).
FALLBACK_MFU = 0.40
# Checkpointed training state per parameter: bf16 weights 2 + fp32 master 4 + Adam m 4 + v 4
# (reliability.md "Checkpoint size model", 14-16 B/param; gradients are not saved).
CHECKPOINT_BYTES_PER_PARAM = 14.0
# Gradient bytes per parameter exchanged by data parallelism (bf16 gradients).
GRADIENT_BYTES_PER_PARAM = 2.0
# Asynchronous checkpoint: the blocking part is a device-to-host copy of each GPU's shard.
# Assumption: ~20 GB/s per GPU pinned D2H (about half of PCIe Gen5 x16) plus 1 s of
# coordination (barrier, metadata); CheckFreq reports <= 3.5% overhead (reliability.md).
ASYNC_SNAPSHOT_GBYTES_PER_S_PER_GPU = 20.0
ASYNC_COORDINATION_S = 1.0
# Restart overhead besides reading the checkpoint: detection, rescheduling, NCCL init.
# Kokolis et al. assume 5 min (reliability.md, ETTR estimator u0, [S]).
RESTART_OVERHEAD_MIN = 5.0


@dataclass(frozen=True)
class ModelSize:
    total_params: float
    active_params: float  # weights a token multiplies (MoE: top-k experts only)


@dataclass
class RunFacts:
    training: bool
    gpus: int
    nodes: int
    model: ModelSize
    tp: int
    pp: int
    step_time_s: float | None
    failure_free_days: float | None
    gradient_bytes_per_step: float  # whole model, exchanged across data-parallel replicas
    gradient_bytes_per_rank: float  # one data-parallel rank's shard (2 B x params / (tp x pp))
    checkpoint_bytes: float
    checkpoint_write_s: float  # persist the checkpoint to the durable tier
    checkpoint_read_s: float  # load it on restart
    checkpoint_blocking_s: float  # time training is stopped per checkpoint
    checkpoint_tier: str
    checkpoint_durable: bool
    restart_overhead_s: float
    sources: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)


def model_size(workload) -> ModelSize:
    """Parameter counts from the architecture (dense and MoE layers, embeddings)."""
    hidden = workload.hidden_size
    heads = workload.attention_heads
    head_dim = workload.head_dim or hidden // heads
    kv = workload.kv_heads_effective
    matrices = 3 if workload.gated_mlp else 2
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv * head_dim + 2 * hidden
    dense_layer = attention + matrices * hidden * workload.ffn_hidden_size
    moe = workload.moe
    moe_layers = 0
    if moe is not None and workload.layers > moe.first_dense_layers:
        moe_layers = math.ceil((workload.layers - moe.first_dense_layers) / moe.moe_layer_frequency)
    dense_layers = workload.layers - moe_layers
    total = active = dense_layers * dense_layer
    if moe_layers:
        expert = matrices * hidden * moe.expert_ffn_hidden_size
        shared = attention + moe.shared_experts * expert + hidden * moe.experts
        total += moe_layers * (shared + moe.experts * expert)
        active += moe_layers * (shared + moe.top_k * expert)
    head = workload.vocab_size * hidden
    embeddings = head * (1 if workload.tied_embeddings else 2)
    return ModelSize(total_params=total + embeddings, active_params=active + head)


def _layout(spec, performance) -> tuple[int, int]:
    par = spec.workload.parallelism
    if not isinstance(par, str):
        return par.tp, par.pp
    tp = pick_number(performance, "parallelism.tp", "layout.tp", "best_layout.tp")
    pp = pick_number(performance, "parallelism.pp", "layout.pp", "best_layout.pp")
    default_tp = min(8, spec.compute.nvlink_domain.gpus, spec.compute.gpu_count)
    return int(tp or default_tp), int(pp or 1)


def _shared_tier(tiers):
    shared = [t for t in tiers if t.kind != "local-nvme"]
    if shared:
        return max(shared, key=lambda t: t.write_gbytes_per_s), True
    return tiers[0], False


def _storage_network_gbytes_per_s(spec, nodes: int) -> float:
    fabric = spec.fabric
    network = fabric.storage_network
    if network.mode == "separate":
        return nodes * network.nics_per_node * network.nic_speed_gbps / 8.0
    return nodes * fabric.nics_per_node * fabric.nic_speed_gbps / 8.0


def _checkpoint_times(spec, nodes: int, size_bytes: float) -> tuple[float, float, str, bool]:
    """(write s, read s, tier kind, durable) to the best shared tier, limited by the storage
    network; a design with only node-local NVMe writes in parallel but loses a node's shard
    with the node."""
    tier, durable = _shared_tier(spec.storage.tiers)
    if durable:
        network = _storage_network_gbytes_per_s(spec, nodes)
        write = min(tier.write_gbytes_per_s, network)
        read = min(tier.read_gbytes_per_s, network)
    else:
        write = tier.write_gbytes_per_s * nodes
        read = tier.read_gbytes_per_s * nodes
    return size_bytes / (write * 1e9), size_bytes / (read * 1e9), tier.kind, durable


def _fallback_step_time_s(spec, catalog, model: ModelSize, gpus: int) -> float:
    gpu = resolve_gpu(spec.compute, catalog)
    workload = spec.workload
    peak = gpu.bf16_dense_tflops
    if workload.precision == "fp8" and gpu.fp8_dense_tflops:
        peak = gpu.fp8_dense_tflops
    tokens = workload.global_batch_sequences * workload.sequence_length
    return 6.0 * model.active_params * tokens / (gpus * peak * 1e12 * FALLBACK_MFU)


def _engine_tier_kind(storage: dict | None) -> str | None:
    """Kind of the storage engine's durable checkpoint tier (its index into its tier list)."""
    index = pick(storage, "checkpoint.durable_tier")
    tiers = pick(storage, "checkpoint.tiers")
    if isinstance(index, int) and isinstance(tiers, list):
        for tier in tiers:
            if isinstance(tier, dict) and tier.get("tier") == index:
                return str(tier.get("kind")) if tier.get("kind") else None
    kind = pick(storage, "checkpoint.best_tier.kind", "checkpoint.best_tier_kind")
    return str(kind) if kind else None


def derive_run_facts(
    spec,
    catalog,
    *,
    storage: dict | None = None,
    performance: dict | None = None,
    restart_overhead_min: float | None = None,
) -> RunFacts:
    compute, workload = spec.compute, spec.workload
    gpus = compute.gpu_count
    nodes = gpus // compute.gpus_per_node
    training = workload.kind == "training"
    model = model_size(workload)
    tp, pp = _layout(spec, performance)
    sources: dict[str, str] = {}
    assumptions: list[str] = []

    step_s = failure_free_days = None
    if training:
        step_s = pick_number(
            performance, "step_time_s", "step_time.total_s", "step.time_s", "training.step_time_s"
        )
        sources["step_time_s"] = "performance" if step_s else "derived"
        if step_s is None:
            step_s = _fallback_step_time_s(spec, catalog, model, gpus)
            assumptions.append(
                f"step time estimated at {FALLBACK_MFU:.0%} MFU (6 x active params x tokens); "
                "the performance engine's figure replaces it"
            )
        failure_free_days = pick_number(
            performance, "time_to_train_days", "training.time_to_train_days", "time.train_days"
        )
        sources["failure_free_days"] = "performance" if failure_free_days else "derived"
        if failure_free_days is None:
            tokens_per_step = workload.global_batch_sequences * workload.sequence_length
            steps = workload.tokens_to_train / tokens_per_step
            failure_free_days = steps * step_s / SECONDS_PER_DAY

    gradient_step = pick_number(
        performance,
        "dp_gradient_bytes",
        "gradient_bytes_per_step",
        "collectives.dp_gradient_bytes",
        "communication.dp_gradient_bytes",
    )
    sources["gradient_bytes"] = "performance" if gradient_step else "derived"
    if gradient_step is None:
        gradient_rank = GRADIENT_BYTES_PER_PARAM * model.total_params / (tp * pp)
        gradient_step = GRADIENT_BYTES_PER_PARAM * model.total_params
    else:
        # The performance engine reports a data-parallel rank's gradient shard.
        gradient_rank = gradient_step
        gradient_step = gradient_rank * tp * pp

    size = pick_number(storage, "checkpoint.size_bytes", "checkpoint_size_bytes")
    if size is None:
        size_tb = pick_number(storage, "checkpoint.size_tb")
        size = size_tb * 1e12 if size_tb else None
    sources["checkpoint_bytes"] = "storage" if size else "derived"
    if size is None:
        size = CHECKPOINT_BYTES_PER_PARAM * model.total_params
    write_s, read_s, tier, durable = _checkpoint_times(spec, nodes, size)
    engine_write = pick_number(
        storage,
        "checkpoint.durable_write_s",
        "checkpoint.best_tier.write_time_s",
        "checkpoint.write_time_s",
        "checkpoint.write_s",
    )
    engine_read = pick_number(
        storage,
        "checkpoint.best_tier.read_time_s",
        "checkpoint.read_time_s",
        "checkpoint.restore_time_s",
        "checkpoint.load_time_s",
    )
    tier = _engine_tier_kind(storage) or tier
    sources["checkpoint_write_s"] = "storage" if engine_write else "derived"
    write_s = engine_write or write_s
    read_s = engine_read or read_s

    policy = spec.storage.checkpoint
    blocking = pick_number(
        storage, "checkpoint.blocking_s", "checkpoint.blocking_time_s", "checkpoint.stall_s"
    )
    sources["checkpoint_blocking_s"] = "storage" if blocking else "derived"
    if blocking is None:
        if policy.async_write:
            per_gpu = size / gpus
            snapshot = per_gpu / (ASYNC_SNAPSHOT_GBYTES_PER_S_PER_GPU * 1e9)
            blocking = min(write_s, ASYNC_COORDINATION_S + snapshot)
            assumptions.append(
                "async checkpoint: blocking time = device-to-host copy of each GPU's shard at "
                f"{ASYNC_SNAPSHOT_GBYTES_PER_S_PER_GPU:g} GB/s + {ASYNC_COORDINATION_S:g} s; "
                "the write to storage continues in the background"
            )
        else:
            blocking = write_s
    overhead_min = RESTART_OVERHEAD_MIN if restart_overhead_min is None else restart_overhead_min
    return RunFacts(
        training=training,
        gpus=gpus,
        nodes=nodes,
        model=model,
        tp=tp,
        pp=pp,
        step_time_s=step_s,
        failure_free_days=failure_free_days,
        gradient_bytes_per_step=gradient_step,
        gradient_bytes_per_rank=gradient_rank,
        checkpoint_bytes=size,
        checkpoint_write_s=write_s,
        checkpoint_read_s=read_s,
        checkpoint_blocking_s=blocking,
        checkpoint_tier=tier,
        checkpoint_durable=durable,
        restart_overhead_s=overhead_min * 60.0,
        sources=sources,
        assumptions=assumptions,
    )
