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
    in_flight_microbatches,
)


def _params_of(shape, cand, layers, moe_layers):
    """(dense, expert) parameters on one GPU for `layers` transformer layers, `moe_layers` of
    them MoE."""
    dense_layer = shape.attention_params() + shape.dense_mlp_params() + 2 * shape.hidden
    moe_dense = shape.attention_params() + 2 * shape.hidden
    moe_dense = moe_dense + shape.shared_experts * shape.expert_params()
    moe_dense = moe_dense + shape.hidden * shape.experts  # router
    routed = shape.experts * shape.expert_params()
    dense = ((layers - moe_layers) * dense_layer + moe_layers * moe_dense) / cand.tp
    expert = moe_layers * routed / cand.ep / cand.etp
    return dense, expert


def _rank_params(shape, cand):
    """(dense, expert) parameters on one GPU of the first pipeline rank (DualPipe's rank 0
    also holds the last stage)."""
    first = np.where(cand.pp > 1, np.ceil(cand.first_layers), shape.layers)
    n_moe = shape.moe_layers_in(first, first_stage=True)
    dual = (cand.schedule == DUALPIPE) & (cand.pp > 1)
    last = np.where(dual, cand.last_layers, 0.0)
    last_moe = shape.moe_layers_in(last, first_stage=False)
    return _params_of(shape, cand, first + last, n_moe + last_moe)


def _last_rank_params(shape, cand):
    """(dense, expert) parameters on one GPU of the last pipeline rank."""
    last = np.ceil(cand.last_layers)
    return _params_of(shape, cand, last, shape.moe_layers_in(last, first_stage=False))


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
    pipeline_grad_reduce_at_end: bool = False,
    bf16_master: bool = False,
    fp8_saved_inputs: bool = False,
    embedding_tp: str = "vocab_parallel",
    loss_logits_bytes: float = MEGATRON_LOSS_LOGITS_BYTES,
) -> dict:
    """GiB per GPU on the pipeline rank with the most, per candidate (dict of arrays): the
    first rank (embedding, the busiest stage's in-flight activations) or, where the last rank
    holds the output head alone, the last (its layers, the head, its own in-flight
    activations and the loss's transient over the logits, memory.output_logits_bytes, which
    peaks with the stored activations). `tuning`: which weights train (fine_tuning.py): only
    they keep gradients and optimizer states."""
    microbatches = shape.global_batch / (cand.dp * cand.mbs)
    held = holds_unsharded_gradients(
        cand.zero, microbatches, fsdp_grad_sync, cand.pp, pipeline_grad_reduce_at_end
    )
    bytes_per_param = {
        "gradient_bytes": gradient_bytes,
        "fp32_master_params": fp32_master_params,
        "bf16_master": bf16_master,
    }
    precision = {
        **state_precision(**bytes_per_param, fp8_weights=fp8_weights),
        **state_shares(shape, tuning),
        "held_gradients": held,
    }
    embedding_precision = {**state_precision(**bytes_per_param), "held_gradients": held}
    per_layer = stored_activation_bytes(
        shape, cand, attention_kernel, selective_recompute, fp8_saved_inputs
    )
    tokens = shape.seq_len / cand.cp * cand.mbs
    logits = output_logits_bytes(tokens, shape.vocab, cand.tp, embedding_tp, loss_logits_bytes)

    def stage(params, embedding_params, embedding_share, activation_layers_, loss):
        dense, expert = params
        dense_states = model_state_bytes(
            params_on_gpu=dense, dp=cand.shard, zero_stage=cand.zero, **precision
        )
        expert_states = model_state_bytes(
            params_on_gpu=expert,
            dp=np.maximum(1, np.floor(cand.expert_replicas)),
            zero_stage=cand.zero,
            **precision,
        )
        embedding = sum(
            model_state_bytes(
                params_on_gpu=embedding_params,
                dp=cand.shard,
                zero_stage=cand.zero,
                trained_share=embedding_share,
                **embedding_precision,
            )
        )
        layers = resident_activation_layers(
            activation_layers_, cand.largest_stage_layers, cand.offload
        )
        return {
            "weights": (dense_states[0] + expert_states[0]) / GIB,
            "gradients": (dense_states[1] + expert_states[1]) / GIB,
            "optimizer_states": (dense_states[2] + expert_states[2]) / GIB,
            "embedding_states": embedding / GIB,
            "activations": per_layer * layers / GIB,
            "output_logits": loss / GIB,
        }

    holds_head = (cand.pp <= 1) | ends_on_first_rank(cand.schedule)
    copies = np.where(holds_head & (not shape.tied_embeddings), 2.0, 1.0)
    per_run = cand.microbatches_per_run(microbatches)  # in flight: one run's at most
    busiest = activation_layers(
        cand.schedule,
        cand.pp,
        cand.vp,
        per_run,
        cand.first_layers,
        cand.middle_layers,
        cand.last_layers,
    )
    first = stage(
        _rank_params(shape, cand),
        embedding_params_per_gpu(shape.vocab, shape.hidden, cand.tp, copies, embedding_tp),
        embedding_trained_share(shape, tuning, copies),
        busiest,
        np.where(holds_head, logits, 0.0),
    )
    last_in_flight = cand.last_layers * in_flight_microbatches(
        cand.schedule, cand.pp, cand.vp, per_run, cand.pp - 1.0
    )
    last = stage(
        _last_rank_params(shape, cand),
        shape.vocab * shape.hidden / cand.tp,  # the output head (a tied one's copy too)
        0.0 if tuning.adapters else 1.0,
        last_in_flight,
        logits,
    )
    on_last = ~holds_head & (total_gib(last) > total_gib(first))
    return {key: np.where(on_last, last[key], first[key]) for key in first}


def total_gib(parts: dict) -> np.ndarray:
    return sum(parts.values())
