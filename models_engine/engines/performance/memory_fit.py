"""Memory per GPU for a design: model states and activations on the busiest pipeline stage
(training) or weights and KV cache (inference), compared with the GPU's HBM."""

import math

from models_engine.engines.performance.attention_shape import attention_shape
from models_engine.engines.performance.candidates import from_layouts, stage_layers
from models_engine.engines.performance.compute_profile import resolve_stack, saves_fp8_inputs
from models_engine.engines.performance.fine_tuning import (
    embedding_trained_share,
    state_shares,
    tuning_of,
)
from models_engine.engines.performance.layout import Layout, candidate_layouts
from models_engine.engines.performance.memory import (
    GIB,
    GRADIENT_BYTES_PER_PARAM,
    MEGATRON_LOSS_LOGITS_BYTES,
    ExpertShape,
    LayerShape,
    embedding_params_per_gpu,
    holds_unsharded_gradients,
    model_state_bytes,
    output_logits_bytes,
    resident_activation_layers,
    state_precision,
)
from models_engine.engines.performance.memory_vector import stored_activation_bytes
from models_engine.engines.performance.pipeline_schedule import (
    activation_layers,
    in_flight_microbatches,
    schedule_code,
)
from models_engine.engines.performance.shapes import model_shape

# Bytes per weight when serving (no optimizer): FP8 weights are one byte.
INFERENCE_WEIGHT_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1}


def _zero_stage(value) -> int:
    return 3 if value == "fsdp" else int(value)


def layer_shape(workload) -> LayerShape:
    return LayerShape(
        hidden_size=workload.hidden_size,
        attention_heads=workload.attention_heads,
        kv_heads=workload.kv_heads_effective,
        head_dim=workload.head_dim or workload.hidden_size // workload.attention_heads,
        ffn_hidden_size=workload.ffn_hidden_size,
        gated_mlp=workload.gated_mlp,
        attention=attention_shape(workload),
    )


def is_moe_layer(workload, index: int) -> bool:
    moe = workload.moe
    if moe is None or index < moe.first_dense_layers:
        return False
    return (index - moe.first_dense_layers) % moe.moe_layer_frequency == 0


def first_stage_layers(workload, layout: Layout) -> int:
    """Layers on the first stage: the layout's uneven split, else ceil(layers / pp) (an
    uneven even-split puts the extra layer first)."""
    if layout.pp <= 1:
        return workload.layers
    first, _ = stage_layers(layout, workload.layers)
    return math.ceil(first)


def stage_params(workload, layout: Layout, layer_indices) -> tuple[float, float]:
    """(dense params, expert params) on one GPU of a stage holding `layer_indices`."""
    shape = layer_shape(workload)
    dense = expert = 0.0
    for index in layer_indices:
        if is_moe_layer(workload, index):
            experts = ExpertShape(
                experts=workload.moe.experts,
                shared_experts=workload.moe.shared_experts,
                expert_ffn_hidden_size=workload.moe.expert_ffn_hidden_size,
            )
            dense += shape.attention_params() + 2 * shape.hidden_size
            dense += experts.shared_params(shape.hidden_size, shape.mlp_matrices)
            expert += experts.routed_params(shape.hidden_size, shape.mlp_matrices) / layout.ep
        else:
            dense += shape.params_per_layer()
    return dense / layout.tp, expert / layout.expert_tp_size


def _rank_layer_indices(workload, layout: Layout) -> list[int]:
    """Layer indices whose parameters one GPU of the first pipeline rank holds (DualPipe's
    rank 0 also holds the last stage)."""
    first = first_stage_layers(workload, layout)
    indices = list(range(first))
    if layout.pipeline_schedule == "dualpipe" and layout.pp > 1:
        _, last = stage_layers(layout, workload.layers)
        indices += list(range(workload.layers - int(last), workload.layers))
    return indices


def _activation_layers(workload, layout: Layout, rank: str = "busiest") -> float:
    """Layers' worth of one micro-batch's activations a rank holds under the schedule: the
    busiest stage's (pipeline_schedule.activation_layers), or the last stage's own (its
    layers x its in-flight micro-batches, one under plain 1F1B)."""
    first, last = stage_layers(layout, workload.layers)
    middle = (workload.layers - first - last) / max(layout.pp - 2, 1)
    # a run of the schedule holds at most its own micro-batches in flight
    microbatches = layout.pipeline_microbatches or workload.global_batch_sequences / (
        layout.dp * layout.micro_batch_size
    )
    schedule = schedule_code(layout.pipeline_schedule)
    p, v = layout.pp, layout.virtual_stages
    if rank == "last":
        in_flight = last * in_flight_microbatches(schedule, p, v, microbatches, p - 1.0)
    else:
        in_flight = activation_layers(schedule, p, v, microbatches, first, middle, last)
    largest = max(first, last, middle if layout.pp > 2 else 0.0)
    return float(resident_activation_layers(in_flight, largest, layout.activation_offload_layers))


def stage_breakdowns_gib(
    workload,
    layout: Layout,
    *,
    attention_kernel: str = "unfused",
    gradient_bytes: int = GRADIENT_BYTES_PER_PARAM,
    fp8_weights: bool = False,
    fp32_master_params: bool = False,
    selective_recompute: str = "attention_core",
    fsdp_grad_sync: str = "every_microbatch",
    pipeline_grad_reduce_at_end: bool = False,
    bf16_master: bool = False,
    fp8_saved_inputs: bool = False,
    embedding_tp: str = "vocab_parallel",
    loss_logits_bytes: float = MEGATRON_LOSS_LOGITS_BYTES,
) -> tuple[dict[str, float], dict[str, float] | None]:
    """GiB per GPU on the first pipeline rank (it holds the embedding) with the activations
    of the busiest stage under the layout's schedule, and on the last rank where it holds the
    output head alone (its layers, the head, its own in-flight activations); each with the
    loss's transient over the output logits where it holds the head. Embedding states are
    kept apart: published per-GPU figures (Korthikanti Fig. 1) count the transformer layers
    only. ZeRO shards over the shard group (default: the data-parallel x context-parallel
    ranks, Megatron's distributed optimizer group)."""
    zero = _zero_stage(layout.zero_stage)
    shard = layout.shard_group_size or layout.dp * layout.cp
    shape, tuning = model_shape(workload), tuning_of(workload)
    bytes_per_param = {
        "gradient_bytes": gradient_bytes,
        "fp32_master_params": fp32_master_params,
        "bf16_master": bf16_master,
    }
    microbatches = workload.global_batch_sequences / (layout.dp * layout.micro_batch_size)
    held = bool(
        holds_unsharded_gradients(
            zero, microbatches, fsdp_grad_sync, layout.pp, pipeline_grad_reduce_at_end
        )
    )
    precision = {
        **state_precision(**bytes_per_param, fp8_weights=fp8_weights),
        **state_shares(shape, tuning),
        "held_gradients": held,
    }
    # One owner of the stored bytes per layer: the search's (memory_vector), on this layout.
    per_layer = float(
        stored_activation_bytes(
            shape,
            from_layouts([layout], workload.layers),
            attention_kernel,
            selective_recompute,
            fp8_saved_inputs,
        )[0]
    )
    tokens = workload.sequence_length / layout.cp * layout.micro_batch_size
    logits = float(
        output_logits_bytes(tokens, workload.vocab_size, layout.tp, embedding_tp, loss_logits_bytes)
    )

    def stage(indices, embedding_params, embedding_share, activation_layers_, loss):
        dense, expert = stage_params(workload, layout, indices)
        dense_states = model_state_bytes(
            params_on_gpu=dense, dp=shard, zero_stage=zero, **precision
        )
        # Expert weights are replicated over dp / ep ranks only (expert data parallelism).
        expert_states = model_state_bytes(
            params_on_gpu=expert, dp=layout.expert_dp, zero_stage=zero, **precision
        )
        weights, gradients, optimizer = (
            d + e for d, e in zip(dense_states, expert_states, strict=True)
        )
        embedding = sum(
            model_state_bytes(
                params_on_gpu=embedding_params,
                dp=shard,
                zero_stage=zero,
                **state_precision(**bytes_per_param),
                trained_share=embedding_share,
                held_gradients=held,
            )
        )
        return {
            "weights": weights / GIB,
            "gradients": gradients / GIB,
            "optimizer_states": optimizer / GIB,
            "embedding_states": embedding / GIB,
            "activations": per_layer * activation_layers_ / GIB,
            "output_logits": loss / GIB,
        }

    holds_head = layout.pp == 1 or layout.pipeline_schedule in ("zb-v", "dualpipe")
    embedding_copies = 2 if (holds_head and not workload.tied_embeddings) else 1
    first = stage(
        _rank_layer_indices(workload, layout),
        embedding_params_per_gpu(
            workload.vocab_size, workload.hidden_size, layout.tp, embedding_copies, embedding_tp
        ),
        embedding_trained_share(shape, tuning, embedding_copies),
        _activation_layers(workload, layout),
        logits if holds_head else 0.0,
    )
    if holds_head:
        return first, None
    _, last_layers = stage_layers(layout, workload.layers)
    last_count = math.ceil(last_layers)
    last = stage(
        range(workload.layers - last_count, workload.layers),
        workload.vocab_size * workload.hidden_size / layout.tp,  # the head (a tied copy too)
        0.0 if tuning.adapters else 1.0,
        _activation_layers(workload, layout, rank="last"),
        logits,
    )
    return first, last


def memory_breakdown_gib(
    workload,
    layout: Layout,
    parallelism=None,  # kept for callers; the layout carries the stage split
    **stack_args,
) -> dict[str, float]:
    """GiB per GPU on the pipeline rank that needs the most (stage_breakdowns_gib)."""
    first, last = stage_breakdowns_gib(workload, layout, **stack_args)
    if last is not None and sum(last.values()) > sum(first.values()):
        return last
    return first


def inference_memory_gib(workload, layout: Layout) -> dict[str, float]:
    """Weights at serving precision plus the KV cache of the whole batch at full context."""
    target = workload.inference
    weight_bytes = INFERENCE_WEIGHT_BYTES[workload.precision]
    dense, expert = stage_params(workload, layout, range(workload.layers // layout.pp))
    embedding = 2 * workload.vocab_size * workload.hidden_size / layout.tp
    context = target.prompt_tokens + target.output_tokens
    kv_cache = (
        (workload.layers / layout.pp)
        * float(attention_shape(workload).kv_cache_width(layout.tp))
        * context
        * target.batch_size
        * weight_bytes
    )
    return {
        "weights": (dense + expert + embedding) * weight_bytes / GIB,
        "kv_cache": kv_cache / GIB,
    }


def explicit_layout(parallelism) -> Layout:
    return Layout(
        tp=parallelism.tp,
        pp=parallelism.pp,
        dp=parallelism.dp,
        cp=parallelism.cp,
        ep=parallelism.ep,
        expert_tp=parallelism.expert_tp,
        virtual_stages=parallelism.virtual_stages,
        micro_batch_size=parallelism.micro_batch_size,
        zero_stage=_zero_stage(parallelism.zero_stage),
        sequence_parallel=parallelism.sequence_parallel,
        recompute=parallelism.recompute,
        recompute_layer_share=parallelism.recompute_layer_share,
        first_stage_layers=parallelism.first_stage_layers,
        last_stage_layers=parallelism.last_stage_layers,
        pipeline_schedule=parallelism.pipeline_schedule,
        shard_group_size=parallelism.shard_group_size,
        activation_offload_layers=parallelism.activation_offload_layers,
        pipeline_microbatches=parallelism.pipeline_microbatches,
    )


def _memory_stack(spec, gpu, stack) -> dict:
    """memory_breakdown_gib's stack arguments (attention kernel, gradient bytes per
    parameter, fp32 parameters as the master, what selective recomputation keeps) of the
    stack the run is modelled with: `stack` as the step model resolved it, else the
    workload's software_stack on this GPU (compute_profile.resolve_stack), so memory and step
    time assume the same stack."""
    if stack is None and gpu is not None:
        stack = resolve_stack(gpu, getattr(spec.workload, "software_stack", None))
    if stack is None:
        return {"attention_kernel": "unfused", "gradient_bytes": GRADIENT_BYTES_PER_PARAM}
    return {
        "attention_kernel": stack.attention_kernel,
        "gradient_bytes": stack.grad_reduce_bytes,
        "fp32_master_params": stack.fp32_master_params,
        "selective_recompute": stack.selective_recompute,
        "fsdp_grad_sync": stack.fsdp_grad_sync,
        "pipeline_grad_reduce_at_end": stack.pipeline_grad_reduce_at_end,
        "bf16_master": stack.bf16_master,
        "fp8_saved_inputs": saves_fp8_inputs(gpu, spec.workload.precision, stack),
        "embedding_tp": stack.embedding_tp,
        "loss_logits_bytes": stack.loss_logits_bytes,
    }


def breakdown_for(spec, layout: Layout, gpu=None, **stack_args) -> dict[str, float]:
    """`stack_args`: _memory_stack's (attention kernel, gradient bytes, fp32 master)."""
    if spec.workload.kind == "inference":
        return inference_memory_gib(spec.workload, layout)
    return memory_breakdown_gib(
        spec.workload,
        layout,
        layout,
        fp8_weights=trains_in_fp8(spec.workload, gpu),
        **stack_args,
    )


def trains_in_fp8(workload, gpu) -> bool:
    """FP8 linear layers: an fp8 run on a GPU with an FP8 tensor path (compute_profile runs
    it at BF16 otherwise)."""
    return workload.precision == "fp8" and bool(gpu is not None and gpu.fp8_dense_tflops)


def choose_layout(spec, hbm_capacity_gib: float, gpu=None, **stack_args) -> Layout:
    parallelism = spec.workload.parallelism
    if parallelism != "auto":
        return explicit_layout(parallelism)
    candidates = candidate_layouts(
        gpu_count=spec.compute.gpu_count,
        domain_gpus=spec.compute.nvlink_domain.gpus,
        layers=spec.workload.layers,
        heads=spec.workload.attention_heads,
        kv_heads=spec.workload.kv_heads_effective,
    )
    for candidate in candidates:
        parts = breakdown_for(spec, candidate, gpu, **stack_args)
        if sum(parts.values()) <= hbm_capacity_gib:
            return candidate
    # Nothing fits: show the most sharded layout so the user sees by how much it misses.
    return candidates[-1]


FIRST_STAGE = (
    "first pipeline stage's states (embedding) + the busiest stage's in-flight activations "
    "under the pipeline schedule + the loss's transient over the output logits where that "
    "stage holds the head"
)
LAST_STAGE = (
    "last pipeline stage (output head): its states + its in-flight activations under the "
    "pipeline schedule + the loss's transient over the output logits, more than the first "
    "stage's"
)


def _peak_breakdown(spec, layout: Layout, gpu, stack_args: dict) -> tuple[dict, str]:
    """The breakdown of the rank that needs the most, and which rank that is."""
    if spec.workload.kind == "inference":
        return inference_memory_gib(spec.workload, layout), (
            "one model replica shard (weights + KV cache)"
        )
    first, last = stage_breakdowns_gib(
        spec.workload, layout, fp8_weights=trains_in_fp8(spec.workload, gpu), **stack_args
    )
    if last is not None and sum(last.values()) > sum(first.values()):
        return last, LAST_STAGE
    return first, FIRST_STAGE


def evaluate_memory(spec, gpu, layout: Layout | None = None, stack=None) -> dict:
    """Memory per GPU of `layout` (default: the spec's layout, or for `auto` the least
    model-parallel one that fits). `stack`: the SoftwareStack the step was modelled with
    (its attention kernel, gradient buffer and master weights set the bytes)."""
    capacity = gpu.hbm_capacity_gib
    stack_args = _memory_stack(spec, gpu, stack)
    layout = layout or choose_layout(spec, capacity, gpu, **stack_args)
    breakdown, stage = _peak_breakdown(spec, layout, gpu, stack_args)
    total = sum(breakdown.values())
    return {
        "layout": layout.as_dict(),
        "memory": {
            "per_gpu_gib": breakdown,
            "total_gib": total,
            "hbm_capacity_gib": capacity,
            "headroom_gib": capacity - total,
            "fits": total <= capacity,
            "stage": stage,
        },
        "model": {"parameters_total_b": total_params(spec.workload) / 1e9},
    }


def total_params(workload) -> float:
    """Every weight trained, multi-token prediction modules included (each: an MoE block,
    as the last layer, and a 2h x h projection; embedding and head shared)."""
    unsharded = Layout(tp=1, pp=1, dp=1)
    dense, expert = stage_params(workload, unsharded, range(workload.layers))
    embedding_copies = 1 if workload.tied_embeddings else 2
    total = dense + expert + embedding_copies * workload.vocab_size * workload.hidden_size
    modules = workload.moe.mtp_modules if workload.moe else 0
    if modules:
        block = sum(stage_params(workload, unsharded, [workload.layers - 1]))
        total += modules * (block + 2 * workload.hidden_size**2)
    return total
