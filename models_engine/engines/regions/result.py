"""Typed result of the regions engine.

The regions engine owns what the WAN adds: the cross-site exchange of the chosen strategy,
the training step with it (`training.step_time_s`), egress, and data-residency findings. For a
single-site design the WAN adds nothing and the training step is the performance engine's.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class TrainingWithWan(ResultPart):
    """The job's step once the chosen cross-site strategy is added (exactly once)."""

    site_step_time_s: float
    wan_added_s_per_step: float
    step_time_s: float
    strategy: str
    time_to_train_failure_free_days: float | None
    tokens_per_s: float


class RegionsResult(EngineResult):
    sites: list[JsonDict]
    wan_links: list[JsonDict]
    cross_region: JsonDict | None
    training: TrainingWithWan | None
    egress: JsonDict
    datasets: list[JsonDict]
    residency_findings: list[JsonDict]
    findings: list[JsonDict]
    breakdown: list[JsonDict]
    sources: dict[str, str]
    assumptions: list[str]
