"""Typed result of the performance engine.

The performance engine owns the single-site step: memory fit per GPU, the layout, the step
time split into compute, exposed communication, bubble and I/O, tokens/s, MFU and the
failure-free time to train at that step. What the WAN adds across sites is the regions
engine's; interruptions and restarts are the reliability engine's.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart

SECONDS_PER_DAY = 86_400.0


def failure_free_days(tokens_to_train: float, tokens_per_s: float) -> float:
    """Time to train with no interruption, days: tokens_to_train / tokens_per_s. The one
    formula for the single-site step (performance) and the step with the WAN (regions)."""
    return tokens_to_train / tokens_per_s / SECONDS_PER_DAY


class Layout(ResultPart):
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    expert_tp: int | None = None  # stored results from before the field: expert_tp = tp
    virtual_stages: int
    micro_batch_size: int
    zero_stage: int
    sequence_parallel: bool
    recompute: str
    first_stage_layers: int | None
    last_stage_layers: int | None
    pipeline_schedule: str = "1f1b"  # stored results from before the field default to 1F1B
    shard_group_size: int | None = None
    recompute_layer_share: float = 1.0  # stored results from before the field: all layers
    activation_offload_layers: int = 0  # stored results from before the field: none
    # micro-batches per run of the pipeline schedule; None = all of the step's in one run
    pipeline_microbatches: int | None = None
    chosen_by: str


class Memory(ResultPart):
    per_gpu_gib: dict[str, float]
    total_gib: float
    hbm_capacity_gib: float
    headroom_gib: float
    fits: bool
    stage: str


class ModelSize(ResultPart):
    parameters_total_b: float
    active_parameters_b: float | None = None
    model_flops_per_token: float | None = None
    moe_layers: int | None = None

    @property
    def parameters(self) -> float:
        """Total parameters (count)."""
        return self.parameters_total_b * 1e9


class Io(ResultPart):
    """Training data the step reads at the site it runs on (the largest), against what that
    site's storage delivers: `storage_read_gb_per_s` is the storage engine's
    `StorageSupply.site(site_id).data_loading_gbytes_per_s`, from tier `storage_tier`."""

    site_id: str
    site_share: float  # the site's GPUs / the job's GPUs
    data_bytes_per_step: float  # the job's, over all sites
    site_data_bytes_per_step: float  # the site's share: what the step waits on
    data_read_needed_gb_per_s: float  # site_data_bytes_per_step / step time
    storage_read_gb_per_s: float
    storage_tier: int


class SoftwareStackUsed(ResultPart):
    """The training framework the step was modelled with (`workload.software_stack`, or the
    GPU's published-runs stack when 'auto') and the named losses it adds to kernel time."""

    name: str
    chosen_by: str  # "auto" or "workload"
    attention_backend: str
    tp_comm_overlap: bool
    dp_comm_overlap: bool
    losses_fraction_of_kernel_time: dict[str, float]
    kernel_source: str  # where the kernel efficiencies come from (measurement or fit)
    calibration: str  # the published runs the stack's losses were fitted on
    ep_dispatcher: str = "all_to_all"  # MoE dispatch: NCCL all-to-all or DeepEP (per node)
    # Megatron-Core's combined 1F1B hides the expert all-to-all under another micro-batch's
    # compute (software_stack.ep_comm_overlap, on a stack that has it)
    ep_comm_overlap: bool = False
    # Of the all-to-all paired with compute under combined 1F1B, the share measured to run
    # concurrently (pipeline_schedule.COMBINED_1F1B_CONCURRENT_SHARE); None where the overlap is off
    ep_comm_concurrent_share: float | None = None
    # FP8 runs: Transformer Engine's scaling recipe, delayed or current
    # (software_stack.fp8_recipe); None for other precisions and stored results
    fp8_recipe: str | None = None
    compiled: bool = False  # torch.compile (stacks.COMPILE_SPEEDUP); stored results: eager
    # FSDP gradient reduce-scatter under accumulation: every micro-batch or the last only
    fsdp_grad_sync: str = "every_microbatch"
    master_weights: str = "fp32"  # bf16: pure BF16 weights, gradients and Adam moments
    # input embedding over the TP ranks: split (vocab_parallel) or whole on each (replicated)
    embedding_tp: str = "vocab_parallel"
    # cross-entropy over the output logits: Megatron's vocab_parallel, or (eager PyTorch) fp32,
    # bf16 or fused
    cross_entropy: str = "vocab_parallel"


class PerformanceResult(EngineResult):
    """`step_time_s` is the single-site step (no WAN time); `time_to_train_days` is failure-free
    at that step (tokens_to_train / tokens_per_s). The job's step with the WAN is
    `RegionsResult.training`."""

    kind: str
    layout: Layout
    memory: Memory
    model: ModelSize
    step_time_s: float
    breakdown_s: dict[str, float]
    tokens_per_s: float
    tokens_per_s_per_gpu: float
    tflops_per_gpu: float
    mfu: float
    hfu: float
    time_to_train_days: float | None
    microbatches_per_step: float | None = None
    tokens_per_step: int | None = None
    hardware_tflops_per_gpu: float | None = None
    peak_tflops_per_gpu: float | None = None
    steps_to_train: float | None = None
    collectives: JsonDict | None = None
    inference: JsonDict | None = None
    io: Io | None = None
    software_stack: SoftwareStackUsed | None = None
    auto: JsonDict | None
    hardware: JsonDict
    warnings: list[str]
    conventions: JsonDict

    @property
    def training(self) -> bool:
        return self.kind == "training"
