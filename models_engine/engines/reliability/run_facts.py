"""The facts of the training run the reliability engine needs, read from the typed results of
the engines that own them (no derivation of another engine's quantity here):

- step time and failure-free time to train: `regions.training` (the regions engine's job step,
  WAN time included; for one site it is the performance engine's step);
- layout (tp / pp / dp) and the model's parameters: the performance engine;
- checkpoint size, write / read / blocking times and the durable tier: the storage engine
  (`StorageResult.checkpoint`).

`sources` names the engine behind each figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.storage.result import Checkpoint

SECONDS_PER_DAY = 86_400.0

# Gradient bytes per parameter exchanged by data parallelism: bf16 gradients (2 B), the
# convention of the collectives model (Megatron reduces bf16 gradients across DP replicas).
GRADIENT_BYTES_PER_PARAM = 2.0
# Restart overhead besides reading the checkpoint: detection, rescheduling, NCCL init.
# Kokolis et al. assume 5 min (reliability.md, ETTR estimator u0, [S]).
RESTART_OVERHEAD_MIN = 5.0


@dataclass(frozen=True)
class ModelSize:
    total_params: float
    active_params: float  # weights a token multiplies (MoE: top-k experts only)


@dataclass
class RunFacts:
    training: bool
    gpus: int
    nodes: int
    model: ModelSize
    tp: int
    pp: int
    dp: int
    step_time_s: float | None
    failure_free_days: float | None
    gradient_bytes_per_step: float  # whole model, exchanged across data-parallel replicas
    gradient_bytes_per_rank: float  # one data-parallel rank's shard (2 B x params / (tp x pp))
    checkpoint_bytes: float
    checkpoint_write_s: float  # write it to the tier restarts read (peer memory or durable)
    checkpoint_read_s: float  # load it on restart
    checkpoint_blocking_s: float  # time training is stopped per checkpoint
    checkpoint_min_interval_s: float  # the storage sustains no shorter interval (duty cycle)
    checkpoint_durable_min_interval_s: float  # the same for the durable tier
    checkpoint_tier: str
    checkpoint_durable: bool
    restart_overhead_s: float
    sources: dict[str, str] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FailureFreeRun:
    step_time_s: float
    days: float | None
    source: str


def failure_free_run(regions: RegionsResult) -> FailureFreeRun:
    """The job's step and failure-free time to train: the regions engine's
    `RegionsResult.training` (the single-site step plus what the WAN adds, once)."""
    if regions.training is None:
        raise ValueError("a training design needs the regions engine's training step")
    training = regions.training
    return FailureFreeRun(
        training.step_time_s,
        training.time_to_train_failure_free_days,
        "regions engine (job step incl. WAN)",
    )


def model_size(performance: PerformanceResult) -> ModelSize:
    """Parameters of the model, from the performance engine (billions -> count)."""
    model = performance.model
    total = model.parameters_total_b * 1e9
    active = model.active_parameters_b * 1e9 if model.active_parameters_b is not None else total
    return ModelSize(total_params=total, active_params=active)


def gradient_bytes(performance: PerformanceResult) -> tuple[float, float]:
    """(per step, per data-parallel rank) gradient bytes: bf16 gradients of every parameter
    the performance engine counts (2 B x params), a rank holding 1 / (tp x pp) of them."""
    params = model_size(performance).total_params
    layout = performance.layout
    per_step = GRADIENT_BYTES_PER_PARAM * params
    return per_step, per_step / (layout.tp * layout.pp)


def run_facts(
    spec,
    *,
    performance: PerformanceResult,
    checkpoint: Checkpoint,
    regions: RegionsResult,
    restart_overhead_min: float | None = None,
) -> RunFacts:
    """The run's facts from the typed results (`checkpoint`: `StorageResult.checkpoint`)."""
    compute = spec.compute
    training = spec.workload.kind == "training"
    step_s = failure_free_days = None
    sources: dict[str, str] = {
        "layout": "performance engine",
        "gradient_bytes": "performance engine (parameters x 2 B bf16)",
        "checkpoint_bytes": "storage engine",
        "checkpoint_write_s": "storage engine",
        "checkpoint_read_s": "storage engine",
        "checkpoint_blocking_s": "storage engine",
        "checkpoint_min_interval_s": "storage engine (write time / write duty cycle)",
    }
    if training:
        run = failure_free_run(regions)
        step_s, failure_free_days = run.step_time_s, run.days
        sources["step_time_s"] = run.source
        sources["failure_free_days"] = run.source
    per_step, per_rank = gradient_bytes(performance)
    layout = performance.layout
    durable = checkpoint.durable
    overhead_min = RESTART_OVERHEAD_MIN if restart_overhead_min is None else restart_overhead_min
    return RunFacts(
        training=training,
        gpus=compute.gpu_count,
        nodes=compute.gpu_count // compute.gpus_per_node,
        model=model_size(performance),
        tp=layout.tp,
        pp=layout.pp,
        dp=layout.dp,
        step_time_s=step_s,
        failure_free_days=failure_free_days,
        gradient_bytes_per_step=per_step,
        gradient_bytes_per_rank=per_rank,
        checkpoint_bytes=checkpoint.size_bytes,
        checkpoint_write_s=checkpoint.restart_write_s,
        checkpoint_read_s=checkpoint.restart_read_s,
        checkpoint_blocking_s=checkpoint.blocking_s,
        checkpoint_min_interval_s=checkpoint.min_interval_s,
        checkpoint_durable_min_interval_s=checkpoint.durable_min_interval_s,
        checkpoint_tier=checkpoint.restart_source if checkpoint.peer_memory else durable.kind,
        checkpoint_durable=checkpoint.durable_against_node_loss,
        restart_overhead_s=overhead_min * 60.0,
        sources=sources,
    )
