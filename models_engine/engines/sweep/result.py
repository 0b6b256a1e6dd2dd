"""Typed result of the scaling sweep (failure-free time to train vs GPU count)."""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class ScalingPoint(ResultPart):
    """One GPU count. `step_time_s` is the job's step with what the WAN adds (the regions
    engine's `training.step_time_s` at that size); the time to train is failure-free at it.
    At the design's size both are the design's own `regions.training` figures."""

    scale: float
    gpu_count: int
    time_to_train_failure_free_days: float | None
    step_time_s: float | None
    mfu: float | None
    fits_memory: bool
    is_design: bool


class ScalingResult(EngineResult):
    points: list[ScalingPoint]
    skipped: list[JsonDict]
    note: str
