"""The figures a review board compares, each read from the typed result of its owner.

Step time and failure-free time to train are the regions engine's (the performance engine's
single-site step plus what the WAN adds, exactly once); time to train with failures is the
reliability engine's; racks and power the facility engine's totals over every site.
"""

from __future__ import annotations

from models_engine.engines.cost.result import CostResult
from models_engine.engines.facility.result import FacilityResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.result_base import EngineResult
from models_engine.engines.security.result import SecurityResult


def headline(results: dict[str, EngineResult]) -> dict:
    performance: PerformanceResult = results["performance"]
    regions: RegionsResult = results["regions"]
    facility: FacilityResult = results["facility"]
    reliability: ReliabilityResult = results["reliability"]
    cost: CostResult = results["cost"]
    security: SecurityResult = results["security"]
    training = regions.training
    figures = {
        "step_time_s": training.step_time_s if training else performance.step_time_s,
        "time_to_train_days": reliability.time_to_train.with_failures_days
        if reliability.time_to_train
        else None,
        "mfu": performance.mfu,
        "tokens_per_s": training.tokens_per_s if training else performance.tokens_per_s,
        "mtti_h": reliability.mtti_hours,
        "goodput": reliability.goodput,
        "it_power_kw": facility.totals.it_kw,
        "facility_power_kw": facility.totals.facility_kw,
        "racks": facility.totals.total_racks,
        "sites": facility.totals.sites,
        "capex_usd": cost.capex["total_usd"],
        "tco_usd": cost.summary.tco_npv_usd,
        "usd_per_gpu_hour": cost.summary.cost_per_delivered_gpu_hour_usd,
        "training_run_usd": cost.summary.training_run_cost_usd,
        "carbon_tco2e_per_year": cost.summary.carbon_tco2e_per_year,
        "usd_per_million_tokens": cost.summary.cost_per_million_tokens_usd,
        "memory_per_gpu_gib": performance.memory.total_gib,
        "fits_in_hbm": performance.memory.fits,
        "parameters_total_b": performance.model.parameters_total_b,
        "security_score_pct": security.score.overall_pct,
        "security_grade": security.score.grade,
    }
    return {key: value for key, value in figures.items() if value is not None}
