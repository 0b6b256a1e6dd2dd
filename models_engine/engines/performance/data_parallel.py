"""Data-parallel gradient and parameter traffic per step, how much of it the schedule hides,
and the optimizer step (an HBM-bound sweep over this GPU's shard of the states)."""

from dataclasses import dataclass

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import PARAM_GATHER_BYTES, stride_local
from models_engine.engines.performance.fine_tuning import FULL, Tuning, layer_trained_share
from models_engine.engines.performance.layer_cost import overlap_exposed_s
from models_engine.engines.performance.pipeline_schedule import stages_held

# Megatron-Core DDP bucket: max(40M parameters, 1M x dp); the last bucket's reduce-scatter
# starts only when the backward pass ends.
BUCKET_PARAMS = 40e6
# Adam step per parameter of the local shard, bytes through HBM: read fp32 master weight,
# momentum, variance and gradient (16), write the three states (12) and the bf16 weight (2),
# plus the gradient-norm read (4) and zeroing the gradient buffer (4).
OPTIMIZER_BYTES_PER_PARAM = 38.0


def _embedding_split(cand, embedding_tp: str):
    """TP ranks the input embedding is split over (stack's embedding_tp)."""
    return cand.tp if embedding_tp == "vocab_parallel" else np.ones_like(cand.tp)


def stage_params(shape, cand, embedding_tp: str = "vocab_parallel"):
    """(dense, expert, outside-the-blocks) parameters one GPU of the heaviest stage holds; the
    third is the dense part that is not a transformer layer (input embedding, output head:
    FSDP's root unit). `embedding_tp`: the stack's (vocab_parallel or replicated)."""
    dense_layer = shape.dense_params_per_layer() + shape.dense_mlp_params()
    moe_dense = shape.moe_layer_dense_params()
    moe_expert = shape.moe_layer_expert_params()
    table = shape.vocab * shape.hidden
    head = table / cand.tp
    # pp == 1: the single stage also holds the output head (unless tied).
    untied_head = 0.0 if shape.tied_embeddings else head
    first_root = table / _embedding_split(cand, embedding_tp) + np.where(
        cand.pp <= 1, untied_head, 0.0
    )
    kinds = (
        (cand.first_layers, True, first_root),
        (cand.middle_layers, False, np.zeros_like(cand.tp)),
        (cand.last_layers, False, head),
    )
    best_dense = np.zeros_like(cand.tp)
    best_expert = np.zeros_like(cand.tp)
    best_root = np.zeros_like(cand.tp)
    for layers, first, root in kinds:
        n_moe = shape.moe_layers_in(layers, first_stage=first)
        dense = ((layers - n_moe) * dense_layer + n_moe * moe_dense) / cand.tp + root
        heavier = dense > best_dense
        best_root = np.where(heavier, root, best_root)
        best_dense = np.maximum(best_dense, dense)
        best_expert = np.maximum(best_expert, n_moe * moe_expert)
    held = stages_held(cand.schedule)  # DualPipe: stage i and p-1-i on one rank
    return held * best_dense, held * best_expert / (cand.etp * cand.ep), held * best_root


def stage_params_per_gpu(shape, cand, embedding_tp: str = "vocab_parallel"):
    """(dense, expert) parameters one GPU of the heaviest stage holds."""
    dense, expert, _ = stage_params(shape, cand, embedding_tp)
    return dense, expert


def _time(op, size, ranks, local, topology):
    return collective_time_s(op, size, ranks, local, topology)[0]


def _times(op, sizes, ranks, local, topology):
    """The time of each array in `sizes` (same ranks and placement): one collectives call."""
    count = len(sizes)
    times = _time(op, np.concatenate(sizes), np.tile(ranks, count), np.tile(local, count), topology)
    return np.split(times, count)


def _hidden(comm, window):
    return np.maximum(comm - window, 0.0)


def _bucketed_exposed(comm, window, bucket):
    """A bucketed collective under `window` of compute: its last bucket (`bucket` of it) can
    only start when the compute is over, the other buckets hide behind the compute as far as
    it lasts. Never more than the collective itself."""
    return bucket * comm + _hidden((1.0 - bucket) * comm, window)


def stage_layer_count(cand):
    """Transformer layers on the heaviest stage (the per-layer collectives of ZeRO-3)."""
    middle = np.where(cand.pp > 2, cand.middle_layers, 0.0)
    layers = np.maximum(np.maximum(cand.first_layers, cand.last_layers), middle)
    return np.maximum(layers * stages_held(cand.schedule), 1.0)


@dataclass
class _Group:
    """One gradient-reduction group: `params` per GPU, `replicas` ranks holding a copy,
    sharded over `shard` of them (hybrid sharding when shard < replicas), rank `stride`;
    `root`: the part of `params` in FSDP's root unit (stacks with fsdp_root_unit)."""

    params: np.ndarray
    replicas: np.ndarray
    shard: np.ndarray
    stride: np.ndarray
    root: np.ndarray | float = 0.0


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
    forward = overlap_exposed_s(gather, fwd)
    synced = (layers - 1.0) * (forward + overlap_exposed_s(gather + scatter, bwd))
    unsynced = (layers - 1.0) * (forward + overlap_exposed_s(gather, bwd))
    edges = m * 2.0 * gather + scatters * scatter  # first gather per pass, last scatter
    exposed = edges + scatters * synced + (m - scatters) * unsynced
    return exposed, total


def fsdp_root_exposed_s(gather, scatter, microbatches, scatters):
    """Seconds per step of FSDP's root unit (embedding, final norm, output head outside the
    wrapped blocks), all exposed: it is gathered before each micro-batch's forward, when
    nothing runs yet, and kept through that micro-batch's backward (PyTorch FSDP does not
    reshard the root after forward: FSDP1 _post_forward_reshard, FSDP2 _lazy_init clears the
    root's post-forward mesh), and its gradients are reduce-scattered after the last layer's
    backward, with nothing left to hide behind. `scatters`: micro-batches that reduce
    (gradient_reductions)."""
    return microbatches * gather + scatters * scatter


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
    z, m = cand.zero, microbatches
    # ZeRO-3 / FSDP: the transformer layers are gathered and reduce-scattered one at a time;
    # a root unit (fsdp_root_unit) apart, once per micro-batch (fsdp_root_exposed_s).
    root = np.where(z == 3, group.root, 0.0)
    layer_share = (params - root) / np.maximum(params, 1.0) / layers
    root_share = root / np.maximum(params, 1.0)
    # Whole-stage, per-layer and root sizes in one call each.
    gather, gather_layer, gather_root = _times(
        "all_gather", [weights, weights * layer_share, weights * root_share], shard, local, topology
    )
    if trained != 1.0:
        gather = _time("all_gather", weights * trained, shard, local, topology)
    scatter, scatter_layer, scatter_root = _times(
        "reduce_scatter", [grads, grads * layer_share, grads * root_share], shard, local, topology
    )
    # Hybrid sharding: each shard's gradients are all-reduced across the replica groups.
    groups = replicas / shard
    if np.any(groups > 1):
        cross_local = stride_local(group.stride * shard, groups, domain)
        shard_grads = grads / shard
        cross, cross_layer, cross_root = _times(
            "all_reduce",
            [shard_grads, shard_grads * layer_share, shard_grads * root_share],
            groups,
            cross_local,
            topology,
        )
        scatter, scatter_layer = scatter + cross, scatter_layer + cross_layer
        scatter_root = scatter_root + cross_root
    bucket = np.minimum(1.0, np.maximum(BUCKET_PARAMS, 1e6 * shard) / np.maximum(params, 1.0))
    per_layer = (gather_layer, scatter_layer)
    overlap = profile.stack.dp_comm_overlap
    # torch.distributed.pipelining: one reduction of the whole stage after the last backward
    at_end = reduced_after_pipeline(cand, profile.stack)
    scatters = np.where(at_end, 0.0, gradient_reductions(np.full_like(z, 3), m, profile.stack))
    end_scatter = np.where(at_end, scatter, 0.0)
    fsdp_exposed, fsdp_total = _fully_sharded(
        per_layer, m, layers, fwd_window, bwd_window, overlap, scatters
    )
    root_s = fsdp_root_exposed_s(gather_root, scatter_root, m, scatters)
    fsdp_exposed, fsdp_total = fsdp_exposed + root_s, fsdp_total + root_s
    zero2_scatters = np.where(at_end, 1.0, m)
    step_total = np.select(
        [z == 0, z == 1, z == 2],
        [all_reduce, scatter + gather, zero2_scatters * scatter + gather],
        fsdp_total + end_scatter,
    )
    if not overlap:
        return step_total, step_total
    zero2_scatter_exposed = np.where(
        at_end, scatter, m * _hidden((1.0 - bucket) * scatter, bwd_window) + bucket * scatter
    )
    gather_exposed = _bucketed_exposed(gather, fwd_window, bucket)
    exposed = np.select(
        [z == 0, z == 1, z == 2],
        [
            _bucketed_exposed(all_reduce, bwd_window, bucket),
            _bucketed_exposed(scatter, bwd_window, bucket) + gather_exposed,
            zero2_scatter_exposed + gather_exposed,
        ],
        fsdp_exposed + end_scatter,
    )
    return exposed, step_total


def reduced_after_pipeline(cand, stack) -> np.ndarray:
    """Layouts whose gradients are reduce-scattered once, after the pipeline schedule's last
    backward, with nothing to hide behind: ZeRO-2 / FSDP sharding under a pipeline on a
    stack that pipelines through torch.distributed.pipelining
    (SoftwareStack.pipeline_grad_reduce_at_end)."""
    return (cand.pp > 1) & (cand.zero >= 2) & stack.pipeline_grad_reduce_at_end


def data_parallel_exposed_s(
    shape, cand, profile, topology, microbatches, fwd_window, bwd_window, tuning: Tuning = FULL
):
    """(exposed seconds per step, total collective seconds per step); `tuning`: which
    weights train (fine_tuning.py)."""
    trained = layer_trained_share(shape, tuning)
    stack = profile.stack
    dense, expert, root = stage_params(shape, cand, stack.embedding_tp)
    root = root if stack.fsdp_root_unit else 0.0
    replicas = cand.dp * cand.cp
    expert_replicas = cand.expert_replicas
    groups = (
        _Group(dense, replicas, np.minimum(cand.shard, replicas), cand.tp, root),
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
    dense, expert = stage_params_per_gpu(shape, cand, profile.stack.embedding_tp)
    trained = layer_trained_share(shape, tuning)
    sharded = cand.zero >= 1
    dense_shard = dense / np.where(sharded, cand.shard, 1.0)
    expert_shard = expert / np.where(sharded, np.maximum(cand.expert_replicas, 1.0), 1.0)
    states = (dense_shard + expert_shard) * trained
    return states * OPTIMIZER_BYTES_PER_PARAM / profile.hbm_bytes_per_s
