"""What the WAN adds to a training step, exactly once.

The performance engine's step is the single-site step (no WAN time in it). Across sites the
chosen strategy adds its WAN time per step (`strategies.py`); the job's step is the sum:

    step_time_s = site_step_time_s + wan_added_s_per_step
    tokens_per_s = tokens_per_step / step_time_s
    time_to_train_failure_free_days = tokens_to_train / tokens_per_s / 86,400
      (the performance engine's formula, `failure_free_days`, at that step)

`training_with_wan(spec, performance)` is the rule; the regions engine and the scaling sweep
both call it, so the design and every scaled variant get the same arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

from models_engine.engines.performance.result import PerformanceResult, failure_free_days

from .result import TrainingWithWan
from .strategies import Exchange, evaluate_strategies
from .wan import Path, ring

# Gradient bytes per parameter exchanged across sites by synchronous data parallelism: bf16
# gradients (2 B/param), the precision Megatron-Core all-reduces them in by default.
GRADIENT_EXCHANGE_BYTES_PER_PARAM = 2.0
# Model bytes exchanged per averaging round: bf16 weights / pseudo-gradients (2 B/param).
MODEL_EXCHANGE_BYTES_PER_PARAM = 2.0
# Strategy of a single-site design, or of GPU sites that train independently.
NO_WAN = "none"


@dataclass(frozen=True)
class CrossSite:
    """The cross-site exchange of a training design with GPUs at two or more connected sites."""

    site_ids: list[str]
    hops: list[Path]  # the ring over the GPU sites (one hop for two sites)
    exchange: Exchange
    gradient_bytes: float  # whole model, per synchronous step
    gradient_bytes_per_rank: float  # one data-parallel rank's shard (tp x pp split)
    model_bytes: float  # per averaging round
    site_step_time_s: float  # the performance engine's step
    strategies: list[dict]  # every strategy, each with its WAN time added per step

    def option(self, strategy: str) -> dict | None:
        return next((o for o in self.strategies if o["strategy"] == strategy), None)


def gpu_site_ids(spec) -> list[str]:
    return [site.id for site in spec.regions.sites if site.gpu_share > 0]


def cross_site(spec, performance: PerformanceResult) -> CrossSite | None:
    """The exchange between the GPU sites; None for inference, one GPU site, or GPU sites the
    WAN links do not join (the engine reports that as a finding)."""
    ids = gpu_site_ids(spec)
    if not performance.training or len(ids) < 2:
        return None
    hops = ring(spec.regions.wan_links, ids)
    if hops is None:
        return None
    bandwidth_gbps = min(hop.bandwidth_gbps for hop in hops)
    one_way_latency_s = max(hop.rtt_ms for hop in hops) / 2000.0
    exchange = Exchange(len(ids), bandwidth_gbps * 1e9 / 8.0, one_way_latency_s)
    params = performance.model.parameters_total_b * 1e9
    gradient_bytes = GRADIENT_EXCHANGE_BYTES_PER_PARAM * params
    model_bytes = MODEL_EXCHANGE_BYTES_PER_PARAM * params
    layout = performance.layout
    return CrossSite(
        site_ids=ids,
        hops=hops,
        exchange=exchange,
        gradient_bytes=gradient_bytes,
        gradient_bytes_per_rank=gradient_bytes / (layout.tp * layout.pp),
        model_bytes=model_bytes,
        site_step_time_s=performance.step_time_s,
        strategies=evaluate_strategies(
            exchange=exchange,
            gradient_bytes=gradient_bytes,
            model_bytes=model_bytes,
            compute_s=performance.step_time_s,
            interval_steps=spec.regions.averaging_interval_steps,
        ),
    )


def training_with_wan(
    spec, performance: PerformanceResult, cross: CrossSite | None = None
) -> TrainingWithWan | None:
    """The job's step with the chosen strategy's WAN time added once (None for inference).
    `cross` is `cross_site(spec, performance)` when the caller already has it."""
    if not performance.training:
        return None
    if cross is None:
        cross = cross_site(spec, performance)
    chosen = cross.option(spec.regions.cross_region_strategy) if cross else None
    site_step = performance.step_time_s
    if chosen is None:
        strategy, added, step = NO_WAN, 0.0, site_step
    else:
        # The chosen option's own step (site step + its added time): one number for both.
        strategy = chosen["strategy"]
        added, step = chosen["wan_added_s_per_step"], chosen["step_time_s"]
    tokens_per_s = performance.tokens_per_step / step
    days = failure_free_days(spec.workload.tokens_to_train, tokens_per_s)
    return TrainingWithWan(
        site_step_time_s=site_step,
        wan_added_s_per_step=added,
        step_time_s=step,
        strategy=strategy,
        time_to_train_failure_free_days=days,
        tokens_per_s=tokens_per_s,
    )
