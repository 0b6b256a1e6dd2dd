"""Memory per GPU of many candidate layouts at once (numpy), the same formulas as
memory_fit.memory_breakdown_gib (tests check they agree) for the `auto` search."""

import numpy as np

from models_engine.engines.performance.memory import (
    GIB,
    activation_bytes_per_layer,
    in_flight_layers,
    model_state_bytes,
)


def training_memory_gib(shape, cand, attention_kernel: str) -> dict:
    """GiB per GPU on the first pipeline stage, per candidate (dict of arrays)."""
    first = np.where(cand.pp > 1, np.ceil(cand.first_layers), shape.layers)
    n_moe = shape.moe_layers_in(first, first_stage=True)
    dense_layer = shape.attention_params() + shape.dense_mlp_params() + 2 * shape.hidden
    moe_dense = shape.attention_params() + 2 * shape.hidden
    moe_dense = moe_dense + shape.shared_experts * shape.expert_params()
    moe_dense = moe_dense + shape.hidden * shape.experts  # router
    routed = shape.experts * shape.expert_params()
    dense = ((first - n_moe) * dense_layer + n_moe * moe_dense) / cand.tp
    expert = n_moe * routed / cand.ep / cand.tp
    shard = cand.dp * cand.cp
    dense_states = model_state_bytes(params_on_gpu=dense, dp=shard, zero_stage=cand.zero)
    expert_dp = np.maximum(1, np.floor(shard / cand.ep))
    expert_states = model_state_bytes(params_on_gpu=expert, dp=expert_dp, zero_stage=cand.zero)
    copies = np.where((cand.pp > 1) | shape.tied_embeddings, 1.0, 2.0)
    embedding_params = copies * shape.vocab * shape.hidden / cand.tp
    embedding = sum(
        model_state_bytes(params_on_gpu=embedding_params, dp=shard, zero_stage=cand.zero)
    )
    per_layer = activation_bytes_per_layer(
        seq_len=shape.seq_len / cand.cp,
        micro_batch=cand.mbs,
        hidden=shape.hidden,
        heads=shape.heads,
        tp=cand.tp,
        sequence_parallel=cand.sp,
        recompute=cand.recompute,
        attention_kernel=attention_kernel,
    )
    activations = per_layer * in_flight_layers(
        layers=shape.layers, pp=cand.pp, virtual_stages=cand.vp
    )
    return {
        "weights": (dense_states[0] + expert_states[0]) / GIB,
        "gradients": (dense_states[1] + expert_states[1]) / GIB,
        "optimizer_states": (dense_states[2] + expert_states[2]) / GIB,
        "embedding_states": embedding / GIB,
        "activations": activations / GIB,
    }


def total_gib(parts: dict) -> np.ndarray:
    return sum(parts.values())
