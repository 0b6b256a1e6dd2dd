"""Training evaluation of a design: the layout (explicit, or `auto`), its single-site step
time and breakdown, throughput, MFU / HFU, failure-free time to train, memory and the
collectives it runs, on the network the fabric engine built."""

from models_engine.engines.collectives import Topology
from models_engine.engines.performance import auto as auto_search
from models_engine.engines.performance.candidates import from_layouts
from models_engine.engines.performance.collective_report import collective_report
from models_engine.engines.performance.compute_profile import TERA, compute_profile
from models_engine.engines.performance.fine_tuning import tuning_of
from models_engine.engines.performance.flops import (
    MFU_CONVENTION,
    model_flops_per_token,
    recompute_flops_per_token,
)
from models_engine.engines.performance.memory_fit import evaluate_memory, explicit_layout
from models_engine.engines.performance.pipeline_schedule import COMBINED_1F1B_CONCURRENT_SHARE
from models_engine.engines.performance.result import PerformanceResult, failure_free_days
from models_engine.engines.performance.shapes import model_shape
from models_engine.engines.performance.step_model import StepContext, training_step
from models_engine.engines.storage.result import StorageSupply


def step_context(spec, shape, storage_supply: StorageSupply, site_id: str) -> StepContext:
    """The step's data loading, read at the site the step runs on (`site_id`: the largest).

    The job reads `data_bytes_per_step` per step over all its sites; each site reads its GPU
    share of it from its own storage, as the storage engine feeds each site its share of the
    job's tokens/s. The single-site step waits on that site's share read at the bandwidth the
    site's data loading reads from (`StorageSupply`: the storage engine's figure, not
    re-derived here)."""
    storage = spec.storage
    if storage.bytes_per_sample is not None:
        job_bytes = storage.bytes_per_sample * shape.global_batch
    else:
        job_bytes = storage.bytes_per_token * shape.seq_len * shape.global_batch
    site = storage_supply.site(site_id)
    share = site.gpus / sum(s.gpus for s in storage_supply.sites)
    return StepContext(
        data_bytes_per_step=job_bytes * share,
        storage_read_bytes_per_s=site.data_loading_gbytes_per_s * 1e9,
        job_data_bytes_per_step=job_bytes,
        site_id=site_id,
        site_share=share,
        storage_tier=site.data_loading_tier,
        tuning=tuning_of(spec.workload),
    )


def _floats(breakdown: dict, index: int = 0) -> dict:
    return {f"{key}": float(value[index]) for key, value in breakdown.items()}


def evaluate_training(
    spec, gpu, topology: Topology, storage_supply: StorageSupply, site_id: str
) -> PerformanceResult:
    """The training step at site `site_id` (the largest), its I/O stall read from that site's
    `storage_supply`."""
    workload = spec.workload
    shape = model_shape(workload)
    profile = compute_profile(gpu, workload.precision, stack_choice=workload.software_stack)
    context = step_context(spec, shape, storage_supply, site_id)
    auto_section = None
    if workload.parallelism == "auto":
        found = auto_search.search(
            shape,
            profile,
            topology,
            context,
            gpus=spec.compute.gpu_count,
            tp_domain=spec.compute.nvlink_domain.gpus,
            capacity_gib=gpu.hbm_capacity_gib,
        )
        ranking = auto_search.ranking(found, gpu.hbm_capacity_gib)
        index = found.best if found.best is not None else int(found.memory_gib.argmin())
        layout = found.candidates.layout(index, chosen_by="auto: fastest layout that fits")
        auto_section = {
            "candidates_evaluated": found.evaluated,
            "candidates_fitting_memory": int(found.fits.sum()),
            "best": ranking[0] if ranking else None,
            "top": ranking,
            "found_layout_that_fits": found.best is not None,
            "global_batch_splits_evenly": found.strict,
        }
    else:
        layout = explicit_layout(workload.parallelism)
    cand = from_layouts([layout], shape.layers)
    step = training_step(shape, cand, profile, topology, context)
    step_s = float(step.step_s[0])
    gpus = spec.compute.gpu_count
    tokens_per_step = shape.global_batch * shape.seq_len
    tokens_per_s = tokens_per_step / step_s
    model_flops = model_flops_per_token(shape, context.tuning)
    hardware_flops = model_flops + recompute_flops_per_token(
        shape, layout.recompute, profile.stack.selective_recompute, layout.recompute_layer_share
    )
    tflops_per_gpu = model_flops * tokens_per_s / gpus / TERA
    peak_tflops = profile.peak_flops / TERA
    days = failure_free_days(workload.tokens_to_train, tokens_per_s)
    result = evaluate_memory(spec, gpu, layout, stack=profile.stack)
    result["model"].update(
        {
            "active_parameters_b": shape.active_params_per_token() / 1e9,
            "model_flops_per_token": model_flops,
            "moe_layers": shape.moe_layers,
        }
    )
    result.update(
        {
            "kind": "training",
            "step_time_s": step_s,
            "breakdown_s": _floats(step.breakdown_s),
            "microbatches_per_step": float(step.microbatches[0]),
            "tokens_per_step": tokens_per_step,
            "tokens_per_s": tokens_per_s,
            "tokens_per_s_per_gpu": tokens_per_s / gpus,
            "tflops_per_gpu": tflops_per_gpu,
            "hardware_tflops_per_gpu": hardware_flops * tokens_per_s / gpus / TERA,
            "peak_tflops_per_gpu": peak_tflops,
            "mfu": tflops_per_gpu / peak_tflops,
            "hfu": hardware_flops * tokens_per_s / gpus / TERA / peak_tflops,
            "steps_to_train": workload.tokens_to_train / tokens_per_step,
            "time_to_train_days": days,
            "collectives": collective_report(
                shape,
                cand,
                profile,
                topology,
                step.microbatches,
                context.tuning,
            ),
            "auto": auto_section,
            "hardware": {"compute": profile.as_dict(), "topology": topology.as_dict()},
            "software_stack": stack_used(profile),
            "warnings": list(profile.warnings)
            + tuning_warnings(context.tuning)
            + memory_pressure_warnings(result["memory"]),
            "io": {
                "site_id": context.site_id,
                "site_share": context.site_share,
                "data_bytes_per_step": context.job_data_bytes_per_step,
                "site_data_bytes_per_step": context.data_bytes_per_step,
                "data_read_needed_gb_per_s": context.data_bytes_per_step / step_s / 1e9,
                "storage_read_gb_per_s": context.storage_read_bytes_per_s / 1e9,
                "storage_tier": context.storage_tier,
            },
            "conventions": conventions(profile),
        }
    )
    return PerformanceResult(**result)


# Headroom below which a run's memory is "tight": the engine counts weights, gradients,
# optimizer states and stored activations, not the transient buffers around them (output logits
# and the loss, collective buffers, the caching allocator's fragmentation). KempnerForge's 70B
# on 8 H200 (weak_scaling_160gpu/README.md) peaked at 128.5 of 141 GB (9 % left) and ran at 78 %
# of its 32-GPU throughput per GPU, which the source puts down to memory pressure.
TIGHT_MEMORY_HEADROOM = 0.10


def memory_pressure_warnings(memory: dict) -> list[str]:
    """A warning where the layout fits with less than TIGHT_MEMORY_HEADROOM of HBM left."""
    capacity, total = memory["hbm_capacity_gib"], memory["total_gib"]
    if not memory["fits"] or capacity - total >= TIGHT_MEMORY_HEADROOM * capacity:
        return []
    return [
        f"memory is tight: {total:.1f} of {capacity:.0f} GiB per GPU, less than "
        f"{TIGHT_MEMORY_HEADROOM:.0%} left for what the engine does not count (output logits "
        "and the loss, collective buffers, allocator fragmentation); runs this close slow down "
        "or run out of memory (KempnerForge's 70B at 128.5 of 141 GB ran at 78 % of its "
        "32-GPU throughput per GPU)"
    ]


def tuning_warnings(tuning) -> list[str]:
    if tuning.is_full:
        return []
    targets = LORA_TARGETS_TEXT[tuning.lora_targets]
    adapters = (
        f" and adds rank-{tuning.lora_rank} adapters on the {targets}" if tuning.adapters else ""
    )
    return [
        f"fine-tuning ({tuning.mode}): the step leaves out the gradients frozen weights do not "
        f"need{adapters}; memory per GPU, the optimizer step and the data-parallel gradient "
        "reduction count the trained weights only"
    ]


LORA_TARGETS_TEXT = {
    "all": "QKV, attention output and MLP projections",
    "attention": "QKV and attention output projections",
    "qkv": "QKV projection",
}


def stack_used(profile) -> dict:
    """The software stack the step was modelled with, its losses and their calibration."""
    stack = profile.stack
    return {
        "name": stack.name,
        "chosen_by": stack.chosen_by,
        "attention_backend": stack.attention_backend,
        "tp_comm_overlap": stack.tp_comm_overlap,
        "dp_comm_overlap": stack.dp_comm_overlap,
        "ep_dispatcher": stack.ep_dispatcher,
        "ep_comm_overlap": stack.overlaps_expert_comm,
        "ep_comm_concurrent_share": (
            COMBINED_1F1B_CONCURRENT_SHARE if stack.overlaps_expert_comm else None
        ),
        "fp8_recipe": stack.fp8_recipe if profile.precision == "fp8" else None,
        "compiled": stack.compiled and stack.compilable,
        "fsdp_grad_sync": stack.fsdp_grad_sync,
        "master_weights": "bf16" if stack.bf16_master else "fp32",
        "embedding_tp": stack.embedding_tp,
        "cross_entropy": stack.cross_entropy,
        "losses_fraction_of_kernel_time": dict(profile.losses),
        "kernel_source": profile.kernel_source,
        "calibration": profile.calibration,
    }


def memory_convention(stack) -> str:
    """How the stack's memory per GPU is counted (memory.state_precision,
    flops.selective_stored)."""
    if stack.bf16_master:
        states = "pure BF16: 2 B weight + 2 B gradient + 4 B Adam moments per parameter"
    elif stack.fp32_master_params:
        states = (
            f"fp32 parameters as the optimizer's master (4 B) + {stack.grad_reduce_bytes} B "
            "gradient + 8 B Adam moments per parameter"
        )
    else:
        states = (
            f"2 B working weights + {stack.grad_reduce_bytes} B gradient + 12 B fp32 master and "
            "Adam moments per parameter (+1 B FP8 weight copy in FP8 runs)"
        )
    kept = (
        "selective recomputation keeps every second matmul output, the layer input and the "
        "attention output (torchtitan's op-level policy; dense models)"
        if stack.selective_recompute == "alternate_matmuls"
        else "selective recomputation keeps all but the attention core (Korthikanti et al. 2022)"
    )
    scores = (
        "no s x s scores (flash kernel)"
        if stack.attention_kernel == "flash"
        else ("s x s attention scores stored without recomputation (unfused kernel)")
    )
    held = (
        "; with gradient accumulation FSDP keeps the unsharded gradients between micro-batches "
        f"(+{stack.grad_reduce_bytes} B per parameter, in the reduction dtype: gradient sync on "
        "the last micro-batch only)"
        if stack.fsdp_grad_sync == "last_microbatch"
        else ""
    )
    split = "split over the TP ranks" if stack.embedding_tp == "vocab_parallel" else "whole"
    logits = (
        f"the rank with the output head holds the loss's transient over one micro-batch's "
        f"logits ({split}), {stack.loss_logits_bytes:g} B per logit value"
    )
    return (
        f"{stack.name}: {states}; ZeRO / FSDP shard them over the shard group{held}; {kept}; "
        f"{scores}; {logits}"
    )


def conventions(profile) -> dict:
    return {
        "mfu": MFU_CONVENTION,
        "hfu": "as MFU, plus recomputed forward work, same peak",
        "peak": f"{profile.precision} dense peak of {profile.sku}: "
        f"{profile.peak_flops / TERA:.0f} TFLOP/s",
        "time_to_train": "failure-free: tokens_to_train / tokens_per_s at the single-site step "
        "(the regions engine adds the WAN, the reliability engine interruptions)",
        "step_time": "single site: m x slowest pipeline stage + the schedule's bubble "
        "((p - 1)/v x mean stage for 1F1B; Qi et al. 2023 / DeepSeek-V3 closed forms for "
        "zero-bubble and DualPipe) + exposed DP communication + exposed activation offload "
        "copies (PCIe Gen5 x16 or a Grace's NVLink-C2C share) + optimizer + I/O stall; no WAN "
        "time",
        "io": "the site's GPU share of the job's data per step, read at the site's "
        "data-loading bandwidth (storage engine's StorageSupply: the tier that provides the "
        "most, shared tiers capped by the storage network); stalls only what the step does "
        "not hide",
        "software_stack": profile.stack.description,
        "memory": memory_convention(profile.stack),
        "busbw": "nccl-tests: all-reduce 2(n-1)/n x algbw; all-gather, reduce-scatter, "
        "all-to-all (n-1)/n; broadcast, send/recv 1",
    }
