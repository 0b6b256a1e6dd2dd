"""Performance section: the layout and the single-site step (or the inference SLOs), the
job's step once the regions engine adds the WAN, the auto layout search, memory per GPU,
warnings and conventions."""

from models_engine import PerformanceResult, TrainingWithWan
from studio.runs.sections.blocks import (
    Block,
    BulletList,
    Card,
    Cards,
    Column,
    Definitions,
    Group,
    Paragraph,
    cell,
    findings_list,
    muted,
    strong,
    table,
    text,
)
from studio.runs.sections.format import DASH, TIMES, count, label, number, percent, yes_no
from studio.runs.selectors import TypedResults


def blocks(results: TypedResults, run=None) -> list[Block]:
    performance = results.performance
    if performance is None:
        return []
    wan = results.regions.training if results.regions else None
    if wan is not None and not wan.wan_added_s_per_step:
        wan = None
    if performance.kind == "inference" and performance.inference:
        built: list[Block] = [Cards(inference_cards(performance.inference), css="headline-cards")]
        built += findings_list(performance.inference.get("findings") or [], "inference-findings")
    else:
        built = [layout_paragraph(performance, wan is not None)]
        if performance.software_stack is not None:
            built.append(stack_paragraph(performance.software_stack))
        if wan is not None:
            built.append(wan_paragraph(performance, wan))
    if performance.auto:
        built.append(auto_table(performance.auto))
    built.append(memory_table(performance))
    if performance.warnings:
        built.append(BulletList([text(w) for w in performance.warnings], css="warnings"))
    conventions = [(key, str(value)) for key, value in performance.conventions.items()]
    built.append(Group([Definitions(conventions)], summary="Conventions"))
    return built


def _slo(met) -> str:
    return yes_no(met, "met", "missed")


def inference_cards(inference: dict) -> list[Card]:
    slo = inference.get("slo", {})
    return [
        Card(
            "Time to first token",
            count(inference["time_to_first_token_s"] * 1000),
            "ms",
            f"(SLO {slo.get('time_to_first_token_ms')} ms: "
            f"{_slo(slo.get('time_to_first_token_met'))})",
        ),
        Card(
            "Time per output token",
            count(inference["time_per_output_token_s"] * 1000),
            "ms",
            f"(SLO {slo.get('time_per_output_token_ms')} ms: "
            f"{_slo(slo.get('time_per_output_token_met'))})",
        ),
        Card(
            "Fleet throughput",
            count(inference.get("fleet_tokens_per_s")),
            "tokens/s",
            f"(target {count(inference.get('target_tokens_per_s'))}: "
            f"{_slo(slo.get('throughput_target_met'))})",
        ),
        Card(
            "GPUs needed for the target",
            count(inference.get("gpus_needed_for_target")),
            "GPUs",
            f"({inference.get('replicas')} replicas {TIMES} {inference.get('gpus_per_replica')} "
            "GPUs designed)",
        ),
    ]


def layout_name(performance: PerformanceResult) -> str:
    layout = performance.layout
    parts = [f"TP{layout.tp}", f"PP{layout.pp}"]
    if layout.virtual_stages > 1:
        parts[-1] += f" ({TIMES}{layout.virtual_stages} virtual)"
    parts.append(f"DP{layout.dp}")
    parts += [f"{name}{size}" for name, size in (("CP", layout.cp), ("EP", layout.ep)) if size > 1]
    return " · ".join(parts)


def layout_paragraph(performance: PerformanceResult, with_wan: bool) -> Paragraph:
    layout = performance.layout
    days = number(performance.time_to_train_days, 1)
    return Paragraph(
        text(
            "Layout: ",
            strong(layout_name(performance)),
            f", micro-batch {layout.micro_batch_size}, ZeRO {layout.zero_stage}, "
            f"recompute {layout.recompute}",
            layout.recompute_layer_share < 1
            and f" ({percent(layout.recompute_layer_share, 0)} of the layers)",
            layout.sequence_parallel and ", sequence parallel",
            layout.activation_offload_layers
            and f", activations of {layout.activation_offload_layers} layers per GPU offloaded "
            "to host memory",
            layout.pipeline_microbatches
            and f", the pipeline filled and drained every {layout.pipeline_microbatches} "
            "micro-batches",
            " ",
            muted(f"({layout.chosen_by})"),
            f". {count(performance.tokens_per_s)} tokens/s, "
            f"{count(performance.tflops_per_gpu)} TFLOP/s per GPU, "
            f"MFU {percent(performance.mfu, 0)}, HFU {percent(performance.hfu, 0)}, "
            f"{days} days for the token budget before interruptions"
            + (" at the single-site step." if with_wan else "."),
        )
    )


STACK_CHOSEN_BY = {
    "auto": "auto: the stack of this GPU's published runs",
    "workload": "chosen in the workload",
}
# The eager PyTorch stacks' cross-entropy kernels (Megatron's vocab-parallel loss goes unsaid)
CROSS_ENTROPY_WORDS = {
    "fp32": "cross-entropy on fp32 logits",
    "bf16": "cross-entropy on the bf16 logits",
    "fused": "fused cross-entropy kernel",
}


# The attention kernel (software_stack.attention_backend)
ATTENTION_WORDS = {
    "cudnn": "cuDNN fused attention",
    "flash": "flash attention",
    "flex": "FlexAttention (compiled PyTorch)",
    "unfused": "unfused attention (softmax as separate kernels)",
}


# FP8 runs' scaling recipe (software_stack.fp8_recipe); absent on other precisions
FP8_RECIPE_WORDS = {
    "delayed": "FP8 delayed scaling (amax history)",
    "current": "FP8 current scaling (each tensor's own amax before its cast)",
}


def stack_traits(stack) -> str:
    """What the step was modelled with beyond the stack's name, in words: the attention kernel,
    what overlaps, the MoE dispatch, the FP8 recipe and the eager-PyTorch choices (the results
    page and the comparison say the same)."""
    flags = (("TP", stack.tp_comm_overlap), ("DP", stack.dp_comm_overlap))
    overlapped = " and ".join(name for name, on in flags if on)
    traits = ["compiled with torch.compile"] if stack.compiled else []
    traits.append(
        ATTENTION_WORDS.get(stack.attention_backend, f"{stack.attention_backend} attention")
    )
    traits.append(f"{overlapped} communication overlapped" if overlapped else "no overlap")
    if stack.ep_dispatcher == "deepep":
        traits.append(
            "DeepEP expert dispatch (one copy per destination node across the network,"
            " one per destination GPU over NVLink)"
        )
    if stack.ep_comm_overlap:
        share = stack.ep_comm_concurrent_share
        measured = (
            f": {percent(share, 2)} of the paired exchange runs concurrently, as measured on H100"
            if share is not None
            else ""
        )
        traits.append(
            "expert all-to-all partly overlapped with another micro-batch's compute"
            f" (Megatron-Core combined 1F1B{measured})"
        )
    if stack.fp8_recipe in FP8_RECIPE_WORDS:
        traits.append(FP8_RECIPE_WORDS[stack.fp8_recipe])
    if stack.fsdp_grad_sync == "last_microbatch":
        traits.append("FSDP gradients reduce-scattered on the last micro-batch only")
    if stack.master_weights == "bf16":
        traits.append("pure BF16 weights and optimizer states")
    if stack.embedding_tp == "replicated":
        traits.append("input embedding replicated and logits gathered over the TP ranks")
    if stack.cross_entropy in CROSS_ENTROPY_WORDS:
        traits.append(CROSS_ENTROPY_WORDS[stack.cross_entropy])
    return ", ".join(traits)


def stack_summary(stack) -> str:
    """One line: the stack's name, how it was chosen and its traits (the comparison and the
    report's headline section)."""
    chosen = STACK_CHOSEN_BY.get(stack.chosen_by, stack.chosen_by).split(":")[0]
    return f"{stack.name} ({chosen}): {stack_traits(stack)}"


def stack_paragraph(stack) -> Paragraph:
    """The software stack the step was modelled with and the losses it adds to kernel time."""
    losses = ", ".join(
        f"{name.replace('_', ' ')} {percent(fraction, 0)}"
        for name, fraction in stack.losses_fraction_of_kernel_time.items()
    )
    return Paragraph(
        text(
            "Software stack: ",
            strong(stack.name),
            " ",
            muted(f"({STACK_CHOSEN_BY.get(stack.chosen_by, stack.chosen_by)})"),
            f", {stack_traits(stack)}; losses on kernel time: {losses}. ",
            muted(
                f"Kernels: {stack.kernel_source.rstrip('.')}. Losses fitted on: {stack.calibration}"
            ),
        ),
        id="software-stack",
    )


def wan_paragraph(performance: PerformanceResult, wan: TrainingWithWan) -> Paragraph:
    return Paragraph(
        text(
            f"Across sites the {wan.strategy} exchange adds ",
            strong(f"{number(wan.wan_added_s_per_step, 3)} s"),
            " per step (regions engine): the job's step is ",
            strong(f"{number(wan.step_time_s, 3)} s"),
            f" ({number(performance.step_time_s, 3)} s in one site), "
            f"{count(wan.tokens_per_s)} tokens/s, "
            f"{number(wan.time_to_train_failure_free_days, 1)} days before interruptions.",
        ),
        id="job-step-with-wan",
    )


AUTO_COLUMNS = [
    Column("#"),
    Column("layout"),
    Column("step time", "s", numeric=True),
    Column("memory per GPU", "GiB", numeric=True),
    Column("why it lost"),
]


def auto_table(auto: dict):
    rows = [
        [
            str(candidate.get("rank", DASH)),
            f"{candidate.get('summary')}, ZeRO {candidate['layout'].get('zero_stage')}, "
            f"recompute {candidate['layout'].get('recompute')}",
            number(candidate.get("step_time_s"), 3),
            number(candidate.get("memory_per_gpu_gib"), 1),
            candidate.get("lost_because") or "best",
        ]
        for candidate in auto.get("top", [])
    ]
    return table(
        "auto-top",
        AUTO_COLUMNS,
        rows,
        caption=f"Auto layout search: {auto.get('candidates_evaluated')} layouts, "
        f"{auto.get('candidates_fitting_memory')} fit in memory",
        css="grid rc-table compact-table",
        scroll=False,
    )


def memory_table(performance: PerformanceResult):
    memory = performance.memory
    rows = [[label(part), number(gib, 2)] for part, gib in memory.per_gpu_gib.items()]
    rows += [
        [strong("Total"), cell(strong(number(memory.total_gib, 2)))],
        ["HBM capacity", number(memory.hbm_capacity_gib, 0)],
        ["Headroom", cell(number(memory.headroom_gib, 2), "ok" if memory.fits else "bad")],
    ]
    columns = [Column(f"memory per GPU, {memory.stage}"), Column("size", "GiB", numeric=True)]
    return table("memory-table", columns, rows, css="grid rc-table compact-table", scroll=False)
