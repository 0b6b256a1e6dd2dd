"""Data-parallel gradient and parameter traffic per step, how much of it the schedule hides,
and the optimizer step (an HBM-bound sweep over this GPU's shard of the states)."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import PARAM_GATHER_BYTES, stride_local
from models_engine.engines.performance.fine_tuning import FULL, Tuning, layer_trained_share
from models_engine.engines.performance.layer_cost import OVERLAP_SLOWDOWN
from models_engine.engines.performance.pipeline_schedule import stages_held

# Megatron-Core DDP bucket: max(40M parameters, 1M x dp); the last bucket's reduce-scatter
# starts only when the backward pass ends.
BUCKET_PARAMS = 40e6
# Adam step per parameter of the local shard, bytes through HBM: read fp32 master weight,
# momentum, variance and gradient (16), write the three states (12) and the bf16 weight (2),
# plus the gradient-norm read (4) and zeroing the gradient buffer (4).
OPTIMIZER_BYTES_PER_PARAM = 38.0


def stage_params_per_gpu(shape, cand):
    """(dense, expert) parameters one GPU of the heaviest stage holds."""
    dense_layer = shape.dense_params_per_layer() + shape.dense_mlp_params()
    moe_dense = shape.moe_layer_dense_params()
    moe_expert = shape.moe_layer_expert_params()
    embedding = shape.vocab * shape.hidden
    best_dense = np.zeros_like(cand.tp)
    best_expert = np.zeros_like(cand.tp)
    kinds = (
        (cand.first_layers, True, embedding),
        (cand.middle_layers, False, 0.0),
        (cand.last_layers, False, embedding),
    )
    for layers, first, extra in kinds:
        n_moe = shape.moe_layers_in(layers, first_stage=first)
        dense = (layers - n_moe) * dense_layer + n_moe * moe_dense + extra
        if first:
            # pp == 1: the single stage also holds the output head (unless tied).
            untied_head = 0.0 if shape.tied_embeddings else embedding
            dense = dense + np.where(cand.pp <= 1, untied_head, 0.0)
        expert = n_moe * moe_expert
        best_dense = np.maximum(best_dense, dense)
        best_expert = np.maximum(best_expert, expert)
    held = stages_held(cand.schedule)  # DualPipe: stage i and p-1-i on one rank
    return held * best_dense / cand.tp, held * best_expert / (cand.etp * cand.ep)


def _time(op, size, ranks, local, topology):
    return collective_time_s(op, size, ranks, local, topology)[0]


def _time_pair(op, size, layers, ranks, local, topology):
    """(time of `size`, time of `size / layers`): one collectives call for both."""
    times = _time(
        op,
        np.concatenate([size, size / layers]),
        np.tile(ranks, 2),
        np.tile(local, 2),
        topology,
    )
    return times[: size.shape[0]], times[size.shape[0] :]


def _hidden(comm, window):
    return np.maximum(comm - window, 0.0)


def _overlap(comm, window):
    """Exposed part of `comm` run under `window` of compute, plus the slowdown the NCCL
    kernels inflict on the compute they share the GPU with (layer_cost.OVERLAP_SLOWDOWN)."""
    hidden = np.minimum(comm, window)
    return comm - hidden + OVERLAP_SLOWDOWN * hidden


def stage_layer_count(cand):
    """Transformer layers on the heaviest stage (the per-layer collectives of ZeRO-3)."""
    middle = np.where(cand.pp > 2, cand.middle_layers, 0.0)
    layers = np.maximum(np.maximum(cand.first_layers, cand.last_layers), middle)
    return np.maximum(layers * stages_held(cand.schedule), 1.0)


@dataclass
class _Group:
    """One gradient-reduction group: `params` per GPU, `replicas` ranks holding a copy,
    sharded over `shard` of them (hybrid sharding when shard < replicas), rank `stride`."""

    params: np.ndarray
    replicas: np.ndarray
    shard: np.ndarray
    stride: np.ndarray


def gradient_reductions(zero, microbatches, stack):
    """Micro-batches per step whose gradients are reduce-scattered: every one under ZeRO-2 and
    FSDP (unless the stack syncs FSDP gradients on the last micro-batch only), one under
    ZeRO-1 (the distributed optimizer reduces the accumulated gradients once)."""
    zero = np.asarray(zero)
    last_only = (zero == 3) & (stack.fsdp_grad_sync == "last_microbatch")
    per_microbatch = (zero >= 2) & ~last_only
    return np.where(per_microbatch, microbatches, np.minimum(microbatches, 1.0))


def _fully_sharded(comm, microbatches, layers, fwd_window, bwd_window, overlap, scatters=None):
    """ZeRO-3 / FSDP: every micro-batch all-gathers each layer's weights before its forward
    and again before its backward, and reduce-scatters its gradients after it (Zhao et al.
    2023, PyTorch FSDP, section 3.2; reshard after forward). Each gather is issued one layer
    ahead (FSDP's backward_prefetch / forward prefetch, Megatron-FSDP's default), so in the
    steady state a layer takes max(its compute, its collectives): a deeper prefetch only
    absorbs jitter, it cannot raise the collectives' rate; what the compute hides still costs
    it the SMs the collectives run on. The first gather of each pass and
    the last reduce-scatter have nothing to hide behind. Per-collective latency comes from
    the collectives model (ring: one hop per rank), which is what slows large shard groups
    down when a layer's compute per micro-batch is short. `scatters`: micro-batches whose
    backward reduce-scatters (gradient_reductions; default all): with gradient sync off for
    all but the last (FSDP2 set_requires_gradient_sync(False)) the others only accumulate
    unsharded gradients."""
    gather, scatter = comm
    m = microbatches
    scatters = m if scatters is None else scatters
    total = layers * (m * 2.0 * gather + scatters * scatter)
    if not overlap:
        return total, total
    fwd, bwd = fwd_window / layers, bwd_window / layers
    forward = _overlap(gather, fwd)
    synced = (layers - 1.0) * (forward + _overlap(gather + scatter, bwd))
    unsynced = (layers - 1.0) * (forward + _overlap(gather, bwd))
    edges = m * 2.0 * gather + scatters * scatter  # first gather per pass, last scatter
    exposed = edges + scatters * synced + (m - scatters) * unsynced
    return exposed, total


def _group_exposed(group, cand, profile, topology, microbatches, windows, trained=1.0):
    """(exposed, total) seconds per step of one group's data-parallel collectives.
    `trained`: share of the weights that train (fine-tuning): only their gradients are
    reduced and only they change, so ZeRO-1/2 re-gathers only them; ZeRO-3 still gathers
    every weight for each pass."""
    fwd_window, bwd_window = windows
    domain = topology.scale_up.gpus
    params, replicas, shard = group.params, group.replicas, group.shard
    local = stride_local(group.stride, shard, domain)
    grads = params * trained * profile.stack.grad_reduce_bytes
    weights = params * PARAM_GATHER_BYTES
    all_reduce = _time(
        "all_reduce", grads, replicas, stride_local(group.stride, replicas, domain), topology
    )
    layers = stage_layer_count(cand)
    # Whole-stage and per-layer sizes in one call each (the per-layer ones are ZeRO-3's).
    gather, gather_layer = _time_pair("all_gather", weights, layers, shard, local, topology)
    if trained != 1.0:
        gather = _time("all_gather", weights * trained, shard, local, topology)
    scatter, scatter_layer = _time_pair("reduce_scatter", grads, layers, shard, local, topology)
    # Hybrid sharding: each shard's gradients are all-reduced across the replica groups.
    groups = replicas / shard
    if np.any(groups > 1):
        cross_local = stride_local(group.stride * shard, groups, domain)
        cross, cross_layer = _time_pair(
            "all_reduce", grads / shard, layers, groups, cross_local, topology
        )
        scatter, scatter_layer = scatter + cross, scatter_layer + cross_layer
    bucket = np.minimum(1.0, np.maximum(BUCKET_PARAMS, 1e6 * shard) / np.maximum(params, 1.0))
    per_layer = (gather_layer, scatter_layer)
    overlap = profile.stack.dp_comm_overlap
    z, m = cand.zero, microbatches
    scatters = gradient_reductions(np.full_like(z, 3), m, profile.stack)
    fsdp_exposed, fsdp_total = _fully_sharded(
        per_layer, m, layers, fwd_window, bwd_window, overlap, scatters
    )
    step_total = np.select(
        [z == 0, z == 1, z == 2], [all_reduce, scatter + gather, m * scatter + gather], fsdp_total
    )
    if not overlap:
        return step_total, step_total
    exposed = np.select(
        [z == 0, z == 1, z == 2],
        [
            _hidden(all_reduce, bwd_window) + bucket * all_reduce,
            _hidden(scatter, bwd_window)
            + bucket * scatter
            + _hidden(gather, fwd_window)
            + bucket * gather,
            m * _hidden(scatter, bwd_window)
            + bucket * scatter
            + _hidden(gather, fwd_window)
            + bucket * gather,
        ],
        fsdp_exposed,
    )
    return exposed, step_total


def data_parallel_exposed_s(
    shape, cand, profile, topology, microbatches, fwd_window, bwd_window, tuning: Tuning = FULL
):
    """(exposed seconds per step, total collective seconds per step); `tuning`: which
    weights train (fine_tuning.py)."""
    trained = layer_trained_share(shape, tuning)
    dense, expert = stage_params_per_gpu(shape, cand)
    replicas = cand.dp * cand.cp
    expert_replicas = cand.expert_replicas
    groups = (
        _Group(dense, replicas, np.minimum(cand.shard, replicas), cand.tp),
        _Group(expert, expert_replicas, expert_replicas, cand.etp * cand.ep),
    )
    exposed = np.zeros_like(cand.tp)
    total = np.zeros_like(cand.tp)
    windows = (fwd_window, bwd_window)
    for group in groups:
        active = (group.replicas > 1) & (group.params > 0)
        if not np.any(active):
            continue
        group_exposed, group_total = _group_exposed(
            group, cand, profile, topology, microbatches, windows, trained
        )
        exposed = exposed + np.where(active, group_exposed, 0.0)
        total = total + np.where(active, group_total, 0.0)
    return exposed, total


def optimizer_s(shape, cand, profile, tuning: Tuning = FULL):
    """Adam over this GPU's shard of the weights that train (fine-tuning: only those)."""
    dense, expert = stage_params_per_gpu(shape, cand)
    trained = layer_trained_share(shape, tuning)
    sharded = cand.zero >= 1
    dense_shard = dense / np.where(sharded, cand.shard, 1.0)
    expert_shard = expert / np.where(sharded, np.maximum(cand.expert_replicas, 1.0), 1.0)
    states = (dense_shard + expert_shard) * trained
    return states * OPTIMIZER_BYTES_PER_PARAM / profile.hbm_bytes_per_s
