"""Regions engine: per-site GPUs, power price, carbon and jurisdiction; WAN links; whether
synchronous data-parallel training across sites is viable and the alternatives (hierarchical,
async averaging, federated); what the chosen strategy adds to the step, exactly once
(`RegionsResult.training`); egress volume and cost; data-residency findings.

    evaluate_regions(spec, catalog, *, performance: PerformanceResult,
                     storage: StorageResult) -> RegionsResult
    training_with_wan(spec, performance) -> TrainingWithWan | None   # the WAN-added rule
"""

from .engine import evaluate_regions
from .result import RegionsResult, TrainingWithWan
from .training import training_with_wan

__all__ = ["RegionsResult", "TrainingWithWan", "evaluate_regions", "training_with_wan"]
