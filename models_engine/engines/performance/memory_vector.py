"""Memory per GPU of many candidate layouts at once (numpy), the same formulas as
memory_fit.memory_breakdown_gib (tests check they agree) for the `auto` search."""

import numpy as np

from models_engine.engines.performance.fine_tuning import (
    FULL,
    Tuning,
    embedding_trained_share,
    state_shares,
)
from models_engine.engines.performance.flops import selective_stored
from models_engine.engines.performance.memory import (
    GIB,
    GRADIENT_BYTES_PER_PARAM,
    MEGATRON_LOSS_LOGITS_BYTES,
    activation_bytes_per_layer,
    embedding_params_per_gpu,
    holds_unsharded_gradients,
    model_state_bytes,
    output_logits_bytes,
    resident_activation_layers,
    state_precision,
)
from models_engine.engines.performance.pipeline_schedule import (
    DUALPIPE,
    activation_layers,
    ends_on_first_rank,
)


def _rank_params(shape, cand):
    """(dense, expert) parameters on one GPU of the first pipeline rank (DualPipe's rank 0
    also holds the last stage)."""
    first = np.where(cand.pp > 1, np.ceil(cand.first_layers), shape.layers)
    n_moe = shape.moe_layers_in(first, first_stage=True)
    dual = (cand.schedule == DUALPIPE) & (cand.pp > 1)
    last = np.where(dual, cand.last_layers, 0.0)
    last_moe = shape.moe_layers_in(last, first_stage=False)
    dense_layer = shape.attention_params() + shape.dense_mlp_params() + 2 * shape.hidden
    moe_dense = shape.attention_params() + 2 * shape.hidden
    moe_dense = moe_dense + shape.shared_experts * shape.expert_params()
    moe_dense = moe_dense + shape.hidden * shape.experts  # router
    routed = shape.experts * shape.expert_params()
    layers, moe_layers = first + last, n_moe + last_moe
    dense = ((layers - moe_layers) * dense_layer + moe_layers * moe_dense) / cand.tp
    expert = moe_layers * routed / cand.ep / cand.etp
    return dense, expert


def stored_activation_bytes(
    shape, cand, attention_kernel: str, selective_recompute: str, fp8_saved_inputs=False
):
    """Bytes one transformer layer keeps for backward per micro-batch on one GPU (memory
    and the activation offload's copies, offload.py)."""
    return activation_bytes_per_layer(
        fp8_saved_inputs=fp8_saved_inputs,
        seq_len=shape.seq_len / cand.cp,
        micro_batch=cand.mbs,
        hidden=shape.hidden,
        heads=shape.heads,
        tp=cand.tp,
        sequence_parallel=cand.sp,
        recompute=cand.recompute,
        attention_kernel=attention_kernel,
        full_share=cand.recompute_share,
        attention_sharded=shape.attention.stored_sharded_bytes_per_hidden(),
        attention_replicated=shape.attention.stored_replicated_bytes_per_hidden(),
        selective_stored=selective_stored(shape, selective_recompute),
    )


def training_memory_gib(
    shape,
    cand,
    attention_kernel: str,
    gradient_bytes: int = GRADIENT_BYTES_PER_PARAM,
    fp8_weights: bool = False,
    tuning: Tuning = FULL,
    fp32_master_params: bool = False,
    selective_recompute: str = "attention_core",
    fsdp_grad_sync: str = "every_microbatch",
    bf16_master: bool = False,
    fp8_saved_inputs: bool = False,
    embedding_tp: str = "vocab_parallel",
    loss_logits_bytes: float = MEGATRON_LOSS_LOGITS_BYTES,
) -> dict:
    """GiB per GPU on the first pipeline stage, per candidate (dict of arrays). `tuning`:
    which weights train (fine_tuning.py): only they keep gradients and optimizer states.
    Where that rank holds the output head, the loss's transient over the logits
    (memory.output_logits_bytes) peaks with the stored activations."""
    dense, expert = _rank_params(shape, cand)
    shard = cand.shard
    bytes_per_param = {
        "gradient_bytes": gradient_bytes,
        "fp32_master_params": fp32_master_params,
        "bf16_master": bf16_master,
    }
    microbatches = shape.global_batch / (cand.dp * cand.mbs)
    held = holds_unsharded_gradients(cand.zero, microbatches, fsdp_grad_sync)
    precision = {
        **state_precision(**bytes_per_param, fp8_weights=fp8_weights),
        **state_shares(shape, tuning),
        "held_gradients": held,
    }
    dense_states = model_state_bytes(
        params_on_gpu=dense, dp=shard, zero_stage=cand.zero, **precision
    )
    expert_dp = np.maximum(1, np.floor(cand.expert_replicas))
    expert_states = model_state_bytes(
        params_on_gpu=expert, dp=expert_dp, zero_stage=cand.zero, **precision
    )
    holds_head = (cand.pp <= 1) | ends_on_first_rank(cand.schedule)
    copies = np.where(holds_head & (not shape.tied_embeddings), 2.0, 1.0)
    embedding_params = embedding_params_per_gpu(
        shape.vocab, shape.hidden, cand.tp, copies, embedding_tp
    )
    embedding = sum(
        model_state_bytes(
            params_on_gpu=embedding_params,
            dp=shard,
            zero_stage=cand.zero,
            **state_precision(**bytes_per_param),
            trained_share=embedding_trained_share(shape, tuning, copies),
            held_gradients=held,
        )
    )
    per_layer = stored_activation_bytes(
        shape, cand, attention_kernel, selective_recompute, fp8_saved_inputs
    )
    in_flight = activation_layers(
        cand.schedule,
        cand.pp,
        cand.vp,
        microbatches,
        cand.first_layers,
        cand.middle_layers,
        cand.last_layers,
    )
    layers = resident_activation_layers(in_flight, cand.largest_stage_layers, cand.offload)
    tokens = shape.seq_len / cand.cp * cand.mbs
    logits = output_logits_bytes(tokens, shape.vocab, cand.tp, embedding_tp, loss_logits_bytes)
    return {
        "weights": (dense_states[0] + expert_states[0]) / GIB,
        "gradients": (dense_states[1] + expert_states[1]) / GIB,
        "optimizer_states": (dense_states[2] + expert_states[2]) / GIB,
        "embedding_states": embedding / GIB,
        "activations": per_layer * layers / GIB,
        "output_logits": np.where(holds_head, logits, 0.0) / GIB,
    }


def total_gib(parts: dict) -> np.ndarray:
    return sum(parts.values())
