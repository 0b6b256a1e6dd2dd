"""The facts of the training run the reliability engine needs, read from the typed results of
the engines that own them (no derivation of another engine's quantity here):

- step time and failure-free time to train: `regions.training` (the regions engine's job step,
  WAN time included) or, where the regions engine gives none, the performance engine's step
  (`failure_free_run`: one rule, in one place);
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
    checkpoint_write_s: float  # persist the checkpoint to the durable tier
    checkpoint_read_s: float  # load it on restart
    checkpoint_blocking_s: float  # time training is stopped per checkpoint
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


def failure_free_run(performance: PerformanceResult, regions: RegionsResult) -> FailureFreeRun:
    """The job's step and failure-free time to train: `regions.training or performance`.

    The regions engine owns what the WAN adds and publishes the job's step with it
    (`RegionsResult.training`). Where it publishes none (a single-site design while the regions
    engine does not yet fill `training` for one site) the job's step IS the performance
    engine's single-site step: with one site the WAN adds nothing, so both are the same number
    by definition."""
    if regions.training is not None:
        training = regions.training
        return FailureFreeRun(
            training.step_time_s,
            training.time_to_train_failure_free_days,
            "regions engine (job step incl. WAN)",
        )
    return FailureFreeRun(
        performance.step_time_s,
        performance.time_to_train_days,
        "performance engine (single-site step; no WAN)",
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
    }
    if training:
        run = failure_free_run(performance, regions)
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
        checkpoint_write_s=checkpoint.durable_write_s,
        checkpoint_read_s=checkpoint.durable_read_s,
        checkpoint_blocking_s=checkpoint.blocking_s,
        checkpoint_tier=durable.kind,
        checkpoint_durable=checkpoint.durable_against_node_loss,
        restart_overhead_s=overhead_min * 60.0,
        sources=sources,
    )


def derive_run_facts(
    spec,
    catalog,
    *,
    storage=None,
    performance=None,
    restart_overhead_min: float | None = None,
) -> RunFacts:
    """TRANSITIONAL, for the regions engine only (it still passes the stored JSON of the
    performance result and of the largest site's storage, or nothing); delete when regions
    reads typed results. Results not passed are computed by the engines that own them (never
    re-derived here); the step is the performance engine's (single site, no WAN)."""
    from models_engine.engines.fabric import evaluate_fabric
    from models_engine.engines.performance import evaluate_performance
    from models_engine.engines.storage import evaluate_storage
    from models_engine.engines.storage.result import SiteStorage, StorageResult
    from models_engine.hardware import resolve_gpu

    if isinstance(performance, PerformanceResult):
        perf = performance
    elif performance is not None:
        perf = PerformanceResult.model_validate(performance)
    else:
        gpu = resolve_gpu(spec.compute, catalog)
        perf = PerformanceResult.model_validate(evaluate_performance(spec, gpu, catalog))
    if isinstance(storage, StorageResult | SiteStorage):
        checkpoint = storage.checkpoint
    elif storage is not None:
        checkpoint = SiteStorage.model_validate(storage).checkpoint
    else:
        fabric = evaluate_fabric(spec, catalog)
        checkpoint = evaluate_storage(
            spec, catalog, fabric=fabric, tokens_per_s=perf.tokens_per_s
        ).checkpoint
    no_wan = RegionsResult.model_construct(training=None)
    return run_facts(
        spec,
        performance=perf,
        checkpoint=checkpoint,
        regions=no_wan,
        restart_overhead_min=restart_overhead_min,
    )
