"""Data-parallel gradient and parameter traffic per step, how much of it the schedule hides,
and the optimizer step (an HBM-bound sweep over this GPU's shard of the states)."""

import numpy as np

from models_engine.engines.collectives import collective_time_s
from models_engine.engines.performance.comm_sizes import PARAM_GATHER_BYTES, stride_local

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
    return best_dense / cand.tp, best_expert / (cand.tp * cand.ep)


def _time(op, size, ranks, local, topology):
    return collective_time_s(op, size, ranks, local, topology)[0]


def _hidden(comm, window):
    return np.maximum(comm - window, 0.0)


def data_parallel_exposed_s(shape, cand, profile, topology, microbatches, fwd_window, bwd_window):
    """(exposed seconds per step, total collective seconds per step)."""
    dense, expert = stage_params_per_gpu(shape, cand)
    grad_bytes = profile.stack.grad_reduce_bytes
    domain = topology.scale_up.gpus
    exposed = np.zeros_like(cand.tp)
    total = np.zeros_like(cand.tp)
    groups = (
        (dense, cand.dp * cand.cp, cand.tp),
        (expert, cand.dp * cand.cp / cand.ep, cand.tp * cand.ep),
    )
    for params, ranks, stride in groups:
        local = stride_local(stride, ranks, domain)
        grads = params * grad_bytes
        weights = params * PARAM_GATHER_BYTES
        all_reduce = _time("all_reduce", grads, ranks, local, topology)
        scatter = _time("reduce_scatter", grads, ranks, local, topology)
        gather = _time("all_gather", weights, ranks, local, topology)
        bucket = np.minimum(1.0, np.maximum(BUCKET_PARAMS, 1e6 * ranks) / np.maximum(params, 1.0))
        z, m = cand.zero, microbatches
        step_total = np.select(
            [z == 0, z == 1, z == 2],
            [all_reduce, scatter + gather, m * scatter + gather],
            m * (2 * gather + scatter),
        )
        if profile.stack.dp_comm_overlap:
            hidden_exposed = np.select(
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
                m * (_hidden(gather, fwd_window) + _hidden(gather + scatter, bwd_window))
                + bucket * (2 * gather + scatter),
            )
        else:
            hidden_exposed = step_total
        active = ranks > 1
        exposed = exposed + np.where(active & (params > 0), hidden_exposed, 0.0)
        total = total + np.where(active & (params > 0), step_total, 0.0)
    return exposed, total


def optimizer_s(shape, cand, profile):
    dense, expert = stage_params_per_gpu(shape, cand)
    sharded = cand.zero >= 1
    dense_shard = dense / np.where(sharded, cand.dp * cand.cp, 1.0)
    expert_shard = expert / np.where(sharded, np.maximum(cand.dp * cand.cp / cand.ep, 1.0), 1.0)
    return (dense_shard + expert_shard) * OPTIMIZER_BYTES_PER_PARAM / profile.hbm_bytes_per_s
