"""Typed result of the scaling sweep (time to train vs GPU count)."""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class ScalingPoint(ResultPart):
    scale: float
    gpu_count: int
    time_to_train_days: float | None
    step_time_s: float | None
    mfu: float | None
    fits_memory: bool
    is_design: bool


class ScalingResult(EngineResult):
    points: list[ScalingPoint]
    skipped: list[JsonDict]
    note: str
