"""What one GPU achieves: peak FLOP/s per precision, measured kernel efficiencies, the software
stack and its named losses, resolved once per design from the GPU figures, the workload's
`software_stack` choice and the data modules (efficiency_data, kernel_data, stacks)."""

from dataclasses import dataclass, replace

from models_engine.engines.performance.efficiency_data import (
    ATTENTION_LENGTH_RAMP,
    ATTENTION_RATE_OF,
    DEFAULT_EFFICIENCY,
    GEMM_TILE_RAMP,
    SKU_EFFICIENCY,
)
from models_engine.engines.performance.kernel_data import KERNEL_EFFICIENCY
from models_engine.engines.performance.memory import EAGER_LOSS_LOGITS_BYTES
from models_engine.engines.performance.offload import (
    PCIE_GEN5_X16_BYTES_PER_S,
    host_link_bytes_per_s,
)
from models_engine.engines.performance.stacks import COMPILE_SPEEDUP, SOFTWARE_STACKS, STACK_LOSSES

TERA = 1e12
AUTO = "auto"
# Precisions whose linear layers run on the 8-bit (or narrower) tensor path.
LOW_PRECISIONS = ("fp8", "mxfp8", "nvfp4")
# Block-scaled formats need Blackwell's block-scaled tensor cores; the catalog marks them by
# an FP4 peak.
BLOCK_SCALED = ("mxfp8", "nvfp4")
# Precisions whose linear-layer inputs Transformer Engine saves in 8 bits for backward (NVFP4
# recipes quantize only the MLP GEMMs and save their inputs in 4 bits: not modelled, BF16)
FP8_SAVING_PRECISIONS = ("fp8", "mxfp8")
# Precisions that pay the per-GEMM fixed cost of a per-tensor scale (amax reduction and scale
# update, then the cast): FP8 with delayed / current scaling, and NVFP4 (its second-level FP32
# scale is per tensor); the stack's `fp8_gemm_fixed_us`. MXFP8's E8M0 scales cover 32 elements
# each and are computed in the cast kernel itself: no per-tensor pass, but each GEMM still
# quantizes its inputs row- and column-wise, allocates data and scale buffers and swizzles the
# scales into the tensor-core layout (Megatron-LM docs/discussions/deepseek-v3-gb200-
# optimization, sections 2.1.2-2.1.3), on the host and the GPU. That costs the stack's
# `mxfp8_gemm_fixed_us` per GEMM call, fitted where a stack has a published MXFP8 run
# (stacks.py), else nothing. It is what makes MXFP8 MoE layers with many small local experts
# slow: one call per expert (kernels.gemm_time_s `batch`).
PER_TENSOR_SCALED = ("fp8", "nvfp4")
BLOCK_SCALED_FIXED_KEY = {"mxfp8": "mxfp8_gemm_fixed_us"}
# FP8 with Transformer Engine's current scaling (software_stack.fp8_recipe): its own fixed
# time per GEMM call where the stack has one fitted (stacks.TE_FP8_CURRENT_GEMM_FIXED_US)
CURRENT_SCALING_KEY = "fp8_current_gemm_fixed_us"
# Recipes whose per-call work Transformer Engine's GroupedLinear (Megatron-Core's MoE experts)
# does once for all its GEMMs: with delayed scaling the scales come from the amax history, so
# the inputs of every expert are cast (and transposed) in one fused_multi_quantize call, forward
# and backward, and the histories of all FP8 tensors are reduced and rolled once per step
# (FP8GlobalStateManager.reduce_and_update_fp8_tensors), not per GEMM
# (transformer_engine/pytorch/module/grouped_linear.py, _GroupedLinear.forward / backward).
# Current scaling takes each expert input's own amax before its cast, MXFP8 quantizes and
# swizzles each expert's blocks, NVFP4 takes a per-tensor amax for its second-level scale:
# their work stays per expert (one call each).
GROUPED_ONCE_RECIPES = {("fp8", "delayed")}
# NVFP4 operand bytes per element: 4-bit E2M1 values plus one E4M3 scale per 16 values.
NVFP4_BYTES = 0.5 + 1.0 / 16
# Generation whose fit stands in where a stack has none for the GPU's generation.
FALLBACK_GENERATION = "hopper"


@dataclass(frozen=True)
class SoftwareStack:
    name: str
    description: str
    attention_kernel: str  # "flash" (fused) or "unfused": what memory and FLOPs assume
    attention_backend: str  # "cudnn", "flash" (flash-attn / PyTorch SDPA flash) or "unfused"
    dropout: bool
    tp_comm_overlap: bool
    dp_comm_overlap: bool
    pp_p2p_overlap: bool
    grad_reduce_bytes: int
    launch_gaps: bool
    # Host time per launched routed-expert operation (layer_cost.expert_launch_wait_s); 0 =
    # not modelled for the stack
    host_s_per_expert_op: float = 0.0
    chosen_by: str = AUTO  # "auto" (the stack of the GPU's published runs) or "workload"
    # Pipeline schedules the stack implements (pipeline_schedule.SCHEDULES); `auto` searches
    # only these. Megatron-Core runs 1F1B and its interleaved form.
    pipeline_schedules: tuple[str, ...] = ("1f1b",)
    # What "selective" recomputation re-runs in backward (layer_cost.selective_recompute_s):
    # "attention_core" (Megatron-LM, Korthikanti et al. 2022) or "alternate_matmuls"
    # (torchtitan's op-level selective activation checkpointing)
    selective_recompute: str = "attention_core"
    # True where the fp32 parameters are the optimizer's master copy (PyTorch FSDP, JAX): no
    # separate BF16 working copy in the model states (memory.state_precision)
    fp32_master_params: bool = False
    # How MoE tokens reach their experts: "all_to_all" (NCCL, one copy per routed expert) or
    # "deepep" (one copy per destination node across the network, one per destination GPU inside
    # an NVLink domain; comm_sizes.ep_dispatch_scale)
    ep_dispatcher: str = "all_to_all"
    # Megatron-Core's combined 1F1B: the forward of one micro-batch runs beside the backward
    # of another, each hiding part of the other's expert all-to-all (--overlap-moe-expert-parallel-
    # comm, Megatron-Core 0.14); `combined_1f1b` where the stack has it, `ep_comm_overlap`
    # where the run turns it on (pipeline_schedule.paired_expert_comm_share)
    combined_1f1b: bool = False
    ep_comm_overlap: bool = False
    # Eager PyTorch stacks torch.compile applies to, and whether this run compiles
    # (stacks.COMPILE_SPEEDUP)
    compilable: bool = False
    compiled: bool = False
    # Without full TP overlap: whether the column-parallel layers' input-gradient collectives
    # still run under the weight-gradient GEMMs (Megatron's asynchronous gradient all-reduce)
    # or wait in autograd order (PyTorch DTensor tensor parallelism)
    tp_grad_overlap: bool = True
    # Transformer Engine keeps the FP8 / MXFP8 copy of each linear layer's input for the
    # weight gradient, not the BF16 one (memory.FP8_SAVED_INPUT_SAVINGS)
    fp8_saved_inputs: bool = False
    # Pure BF16 training (software_stack.master_weights bf16): BF16 weights, stored gradients
    # and Adam moments (memory.state_precision)
    bf16_master: bool = False
    # FSDP under gradient accumulation: reduce-scatter every micro-batch, or only the last
    # one with the unsharded gradients held in between (data_parallel, memory)
    fsdp_grad_sync: str = "every_microbatch"
    # PyTorch FSDP (FSDP1 auto-wrap, FSDP2 fully_shard per block then on the model) leaves the
    # parameters outside the transformer blocks (input embedding, final norm, output head) to
    # the root unit, gathered once per micro-batch before the forward and reduce-scattered
    # after the backward (data_parallel.fsdp_root_exposed_s)
    fsdp_root_unit: bool = False
    # PyTorch's torch.distributed.pipelining with FSDP (torchtitan, NeMo AutoModel): the
    # stage's backward runs with gradient sync off, and the schedule's REDUCE_GRAD action
    # (stage.perform_reduce_grad / backward_maybe_with_nosync: "Manually call post backward
    # for FSDP") reduce-scatters the whole stage's gradients once, after the last run's last
    # backward, and waits for it: nothing left to hide it behind (data_parallel)
    pipeline_grad_reduce_at_end: bool = False
    # Tensor parallelism over the vocabulary: "vocab_parallel" (input embedding and logits
    # split over the TP ranks: Megatron VocabParallelEmbedding and vocab-parallel loss,
    # torchtitan RowwiseParallel and loss parallel) or "replicated" (every TP rank holds the
    # whole input table and gathers the whole logits for the loss; the head's weights stay
    # split)
    embedding_tp: str = "vocab_parallel"
    # Bytes per output-logit value the loss holds at its peak (memory.output_logits_bytes),
    # and the cross-entropy kernel where the stack lets it be chosen (eager PyTorch: fp32,
    # bf16 or fused); Megatron's vocab-parallel loss otherwise
    loss_logits_bytes: float = 6.0
    cross_entropy: str = "vocab_parallel"
    # FP8 runs: Transformer Engine's scaling recipe, "delayed" (amax history) or "current"
    # (the tensor's own amax before each cast); sets the fixed time per FP8 GEMM call
    # (gemm_fixed_s)
    fp8_recipe: str = "delayed"

    @property
    def overlaps_expert_comm(self) -> bool:
        """ep_comm_overlap asked for on a stack that has Megatron-Core's combined 1F1B."""
        return self.ep_comm_overlap and self.combined_1f1b


@dataclass(frozen=True)
class ComputeProfile:
    sku: str
    precision: str
    peak_flops: float  # dense, run precision, FLOP/s
    bf16_peak_flops: float
    gemm_fraction: float  # run precision, large GEMMs (before the tile ramp)
    bf16_gemm_fraction: float
    gemm_fixed_s: float  # run precision: fixed time per GEMM call
    bf16_gemm_fixed_s: float
    mlp_peak_flops: float  # MLP GEMMs: NVFP4 runs put them on the FP4 path, others as above
    mlp_gemm_fraction: float
    mlp_gemm_fixed_s: float
    mlp_input_bytes: float
    attention_forward_fraction: float
    attention_backward_fraction: float
    hbm_bytes_per_s: float  # catalog bandwidth x measured fraction of memory-bound kernels
    stream_bytes_per_s: float  # catalog bandwidth x measured copy fraction (GEMM operands)
    stack: SoftwareStack
    losses: tuple  # ((name, fraction of kernel time), ...) named in the step breakdown
    kernel_source: str
    calibration: str
    warnings: tuple[str, ...] = ()
    m0: float = GEMM_TILE_RAMP["m0"]
    n0: float = GEMM_TILE_RAMP["n0"]
    k0: float = GEMM_TILE_RAMP["k0"]
    attention_length_ramp: float = ATTENTION_LENGTH_RAMP
    # The part of the run precision's fixed time per GEMM call (gemm_fixed_s, mlp_gemm_fixed_s)
    # that a grouped GEMM (MoE experts) pays once per call rather than once per expert
    # (GROUPED_ONCE_RECIPES); 0 where every expert pays all of it.
    grouped_call_fixed_s: float = 0.0
    # Host time of one MoE layer per micro-batch beyond its routed experts' operations, for a
    # stack whose MoE layers are host-bound as a whole (stacks.py moe_layer_host_us); 0 = the
    # host keeps ahead of the GPU outside the routed experts.
    moe_layer_host_s: float = 0.0
    # Fixed time per transformer layer and micro-batch (forward + backward) an eager stack's
    # host work adds beyond its kernels (stacks.py layer_fixed_us), reported with the stack
    # overhead; 0 where the stack's losses are all proportional to kernel time.
    layer_fixed_s: float = 0.0
    # GPU <-> host memory, one direction (offload.host_link_bytes_per_s)
    host_link_bytes_per_s: float = PCIE_GEN5_X16_BYTES_PER_S

    @property
    def gemm_input_bytes(self) -> int:
        return 1 if self.low_precision else 2

    @property
    def saves_fp8_inputs(self) -> bool:
        """Linear layers on the 8-bit path whose stack keeps their quantized inputs."""
        return self.stack.fp8_saved_inputs and self.precision in FP8_SAVING_PRECISIONS

    @property
    def low_precision(self) -> bool:
        """Linear layers on the FP8 / block-scaled path (with Transformer Engine casts)."""
        return self.precision in LOW_PRECISIONS

    @property
    def quantizes_per_expert(self) -> bool:
        """Grouped expert GEMMs whose recipe quantizes each expert's inputs in calls of their
        own (GROUPED_ONCE_RECIPES: delayed-scaling FP8 casts them all in one)."""
        return self.low_precision and (self.precision, self.stack.fp8_recipe) not in (
            GROUPED_ONCE_RECIPES
        )

    @property
    def kernel_time_scale(self) -> float:
        """Wall time per second of kernel time once the stack's losses are added."""
        return 1.0 + sum(fraction for _, fraction in self.losses)

    def as_dict(self) -> dict:
        return {
            "sku": self.sku,
            "precision": self.precision,
            "peak_tflops": self.peak_flops / TERA,
            "gemm_fraction_of_peak": self.gemm_fraction,
            "gemm_fixed_us": self.gemm_fixed_s * 1e6,
            "grouped_gemm_once_us": self.grouped_call_fixed_s * 1e6,
            "moe_layer_host_ms": self.moe_layer_host_s * 1e3,
            "layer_fixed_ms": self.layer_fixed_s * 1e3,
            "attention_backend": self.stack.attention_backend,
            "attention_forward_fraction_of_bf16_peak": self.attention_forward_fraction,
            "attention_backward_fraction_of_bf16_peak": self.attention_backward_fraction,
            "hbm_effective_tb_per_s": self.hbm_bytes_per_s / TERA,
            "losses_fraction_of_kernel_time": dict(self.losses),
            "kernel_source": self.kernel_source,
            "software_stack": self.stack.name,
            "software_stack_description": self.stack.description,
            "calibration": self.calibration,
            "warnings": list(self.warnings),
        }


def _stack(name: str, choice) -> SoftwareStack:
    stack = SoftwareStack(name=name, **SOFTWARE_STACKS[name])
    if choice is None:
        return stack
    changes = {"chosen_by": "workload"} if choice.name != AUTO else {}
    if choice.attention_backend is not None:
        changes["attention_backend"] = choice.attention_backend
        fused = choice.attention_backend != "unfused"
        changes["attention_kernel"] = "flash" if fused else "unfused"
    flags = (
        "tp_comm_overlap",
        "dp_comm_overlap",
        "ep_dispatcher",
        "ep_comm_overlap",
        "compiled",
        "fsdp_grad_sync",
        "embedding_tp",
        "fp8_recipe",
    )
    for flag in flags:
        if getattr(choice, flag) is not None:
            changes[flag] = getattr(choice, flag)
    if choice.master_weights is not None:
        changes["bf16_master"] = choice.master_weights == "bf16"
    if choice.cross_entropy is not None:
        changes["cross_entropy"] = choice.cross_entropy
        changes["loss_logits_bytes"] = EAGER_LOSS_LOGITS_BYTES[choice.cross_entropy]
    return replace(stack, **changes)


def _stack_losses(stack: str, generation: str) -> tuple[dict, tuple[str, ...]]:
    fitted = STACK_LOSSES.get((stack, generation))
    if fitted is not None:
        return fitted, ()
    fallback = (
        STACK_LOSSES.get((stack, FALLBACK_GENERATION))
        or STACK_LOSSES[(SKU_EFFICIENCY["h100-sxm-80gb"]["stack"], FALLBACK_GENERATION)]
    )
    note = (
        f"software stack {stack} has no published runs on {generation} GPUs: its losses are "
        "those fitted on Hopper (UNCERTAIN)"
    )
    return fallback, (note,)


def _attention_fractions(kernels: dict, backend: str) -> tuple[float, float]:
    # The unfused stack runs attention as GEMMs + softmax kernels; the fused fractions are
    # unused there but kept for reporting.
    rates = kernels["attention"]
    return rates.get(ATTENTION_RATE_OF.get(backend, backend), rates["cudnn"])


def resolve_stack(gpu, stack_choice=None) -> SoftwareStack:
    """The software stack a run on `gpu` is modelled with: the workload's `software_stack`
    choice, or (auto / None) the stack of the GPU's published runs (efficiency_data)."""
    entry = SKU_EFFICIENCY.get(gpu.id, DEFAULT_EFFICIENCY)
    chosen = stack_choice.name if stack_choice is not None else AUTO
    return _stack(entry["stack"] if chosen == AUTO else chosen, stack_choice)


def compute_profile(
    gpu,
    precision: str,
    overrides: dict | None = None,
    *,
    serving: bool = False,
    stack_choice=None,
) -> ComputeProfile:
    """`overrides` replaces kernel-efficiency fields (calibration scripts and tests only).
    `stack_choice`: the workload's `software_stack` section (None = auto). `serving`: drop the
    per-GEMM fixed cost and the training losses, which are the training framework's; serving
    engines fuse quantisation and replay CUDA graphs. A GPU carrying an imported measurement
    (`gpu.measured_efficiency`, catalog/measured.py) uses it in place of kernel_data."""
    entry = SKU_EFFICIENCY.get(gpu.id, DEFAULT_EFFICIENCY)
    kernels = _kernels(gpu, entry, overrides)
    stack = resolve_stack(gpu, stack_choice)
    fitted, warnings = _stack_losses(stack.name, entry["generation"])
    if stack.ep_comm_overlap and not stack.combined_1f1b:
        warnings += (
            f"ep_comm_overlap asks for Megatron-Core's combined 1F1B, which {stack.name} does "
            "not have: the expert all-to-all stays exposed",
        )
    precision, fallback = _supported_precision(gpu, precision)
    gemm = kernels["gemm"]
    bandwidth = gpu.hbm_bandwidth_tbytes_per_s * TERA
    low = precision in LOW_PRECISIONS
    peak = (gpu.fp8_dense_tflops if low else gpu.bf16_dense_tflops) * TERA
    # NVFP4 runs keep the non-MLP linear layers on the FP8 path (_mlp_path).
    key = "fp8" if precision == "nvfp4" else precision
    fraction = gemm.get(key) or (gemm.get("fp8") if low else None) or gemm["bf16"]
    # Every GEMM kernel's own fixed GPU time, plus the training stack's FP8 / MXFP8 work per call.
    kernel_fixed = kernels.get("gemm_fixed_us", 0.0) * 1e-6
    recipe_fixed = 0.0 if serving else gemm_fixed_s(fitted, precision, stack.fp8_recipe)
    fixed = kernel_fixed + recipe_fixed
    warnings += _fp8_recipe_warnings(stack, fitted, precision, serving)
    forward, backward = _attention_fractions(kernels, stack.attention_backend)
    return ComputeProfile(
        sku=gpu.id,
        precision=precision,
        peak_flops=peak,
        bf16_peak_flops=gpu.bf16_dense_tflops * TERA,
        gemm_fraction=fraction,
        bf16_gemm_fraction=gemm["bf16"],
        gemm_fixed_s=fixed,
        bf16_gemm_fixed_s=kernel_fixed,
        **_mlp_path(gpu, precision, gemm, peak, fraction, fixed),
        attention_forward_fraction=forward,
        attention_backward_fraction=backward,
        # Serving's memory-bound work is streaming weights and KV cache (copy rate).
        hbm_bytes_per_s=bandwidth * kernels["hbm_copy" if serving else "hbm"],
        stream_bytes_per_s=bandwidth * kernels["hbm_copy"],
        stack=stack,
        losses=_named_losses(stack, kernels, fitted, serving, precision),
        kernel_source=kernels.get("source", "imported measurement"),
        calibration=_with_compile_note(fitted["calibration"], stack, serving),
        warnings=warnings + fallback,
        grouped_call_fixed_s=grouped_call_fixed(precision, stack, recipe_fixed),
        moe_layer_host_s=0.0 if serving else fitted.get("moe_layer_host_us", 0.0) * 1e-6,
        layer_fixed_s=0.0 if serving else fitted.get("layer_fixed_us", 0.0) * 1e-6,
        host_link_bytes_per_s=host_link_bytes_per_s(gpu),
    )


def gemm_fixed_s(fitted: dict, precision: str, fp8_recipe: str = "delayed") -> float:
    """Fixed time per GEMM call of a training run at `precision` on the stack whose fitted
    losses are `fitted` (PER_TENSOR_SCALED, BLOCK_SCALED_FIXED_KEY). FP8 with current scaling
    takes the stack's `fp8_current_gemm_fixed_us` where it has one, else the delayed
    recipe's (_fp8_recipe_warnings says so)."""
    if precision == "fp8" and fp8_recipe == "current" and CURRENT_SCALING_KEY in fitted:
        return fitted[CURRENT_SCALING_KEY] * 1e-6
    if precision in PER_TENSOR_SCALED:
        return fitted["fp8_gemm_fixed_us"] * 1e-6
    key = BLOCK_SCALED_FIXED_KEY.get(precision)
    return fitted.get(key, 0.0) * 1e-6 if key else 0.0


def grouped_call_fixed(precision: str, stack, recipe_fixed: float) -> float:
    """ComputeProfile.grouped_call_fixed_s: the recipe's fixed time per call where a grouped
    GEMM does that work once for all its GEMMs (GROUPED_ONCE_RECIPES), else 0."""
    return recipe_fixed if (precision, stack.fp8_recipe) in GROUPED_ONCE_RECIPES else 0.0


def _fp8_recipe_warnings(stack, fitted: dict, precision: str, serving: bool) -> tuple[str, ...]:
    """Current scaling asked for on a stack without a fitted cost for it."""
    if serving or precision != "fp8" or stack.fp8_recipe != "current":
        return ()
    if CURRENT_SCALING_KEY in fitted:
        return ()
    return (
        f"fp8_recipe current has no fitted cost on {stack.name}: its FP8 GEMMs take the "
        "delayed-scaling recipe's fixed time per call (UNCERTAIN)",
    )


def _kernels(gpu, entry: dict, overrides: dict | None) -> dict:
    """The GPU's kernel efficiencies: its imported measurement, else kernel_data's entry."""
    measured = getattr(gpu, "measured_efficiency", None)
    kernels = dict(measured or KERNEL_EFFICIENCY[entry["kernels"]])
    kernels.update(overrides or {})
    return kernels


def saves_fp8_inputs(gpu, precision: str, stack: SoftwareStack) -> bool:
    """ComputeProfile.saves_fp8_inputs for a workload before its profile exists (memory)."""
    if gpu is None:
        return False
    return stack.fp8_saved_inputs and _supported_precision(gpu, precision)[0] in (
        FP8_SAVING_PRECISIONS
    )


def _supported_precision(gpu, precision: str) -> tuple[str, tuple[str, ...]]:
    """The precision the GPU can run, with a warning where it falls back."""
    warnings = ()
    if precision in BLOCK_SCALED and not gpu.fp4_dense_tflops:
        warnings += (
            f"{gpu.name} has no block-scaled (MX / NVFP4) tensor path: {precision} evaluated as "
            "FP8 with per-tensor scaling instead",
        )
        precision = "fp8"
    if precision in LOW_PRECISIONS and not gpu.fp8_dense_tflops:
        warnings += (f"{gpu.name} has no FP8 tensor path: evaluated at BF16 instead",)
        precision = "bf16"
    return precision, warnings


def _mlp_path(gpu, precision, gemm, peak, fraction, fixed) -> dict:
    """MLP GEMMs: NVFP4 training quantizes only the MLP GEMMs to FP4 (NVIDIA's MaxText and
    Megatron recipes keep attention in higher precision); every other precision runs them
    like the other linear layers."""
    if precision != "nvfp4":
        return {
            "mlp_peak_flops": peak,
            "mlp_gemm_fraction": fraction,
            "mlp_gemm_fixed_s": fixed,
            "mlp_input_bytes": 1.0 if precision in LOW_PRECISIONS else 2.0,
        }
    return {
        "mlp_peak_flops": gpu.fp4_dense_tflops * TERA,
        "mlp_gemm_fraction": gemm.get("nvfp4", fraction),
        "mlp_gemm_fixed_s": fixed,
        "mlp_input_bytes": NVFP4_BYTES,
    }


def _named_losses(
    stack: SoftwareStack, kernels: dict, fitted: dict, serving: bool, precision: str
) -> tuple:
    if serving:
        return ()
    gaps = kernels["launch_gap"] if stack.launch_gaps else 0.0
    overhead = fitted["overhead"]
    if precision in LOW_PRECISIONS:
        overhead = fitted.get("overhead_low_precision", overhead)
    if stack.compiled and stack.compilable:
        gaps, overhead = compiled_losses(gaps, overhead)
    return (("kernel_launch_gaps", gaps), ("stack_overhead", overhead))


def _with_compile_note(calibration: str, stack: SoftwareStack, serving: bool) -> str:
    """The stack's calibration, plus where a compiled run's losses come from unless the
    calibration already says it."""
    if serving or not (stack.compiled and stack.compilable) or "compile" in calibration:
        return calibration
    return (
        f"{calibration} Compiled with torch.compile: the losses are those of a step "
        f"{COMPILE_SPEEDUP:g}x faster than eager at the same kernels (torchtitan's measured "
        "compile speedup, registry family torchtitan-h100-2412)."
    )


def compiled_losses(gaps: float, overhead: float) -> tuple[float, float]:
    """torch.compile's share of eager losses: both named losses shrink by one factor so that
    kernel time x (1 + losses) falls by COMPILE_SPEEDUP (never below the bare kernels)."""
    eager = gaps + overhead
    if eager <= 0.0:
        return gaps, overhead
    remaining = max(0.0, (1.0 + eager) / COMPILE_SPEEDUP - 1.0) / eager
    return gaps * remaining, overhead * remaining
