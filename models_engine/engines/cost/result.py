"""Typed result of the cost engine: it prices the bills of materials the other engines own
(fabric, facility, storage, WAN) and their power, and reads time to train, goodput and
egress from their typed results."""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class CostSummary(ResultPart):
    ownership: str
    owned_model: str
    cloud_term: str | None
    capex_usd: float
    opex_usd_per_year: float
    tco_npv_usd: float
    tco_nominal_usd: float
    cost_per_delivered_gpu_hour_usd: float | None
    training_run_cost_usd: float | None
    cost_per_million_tokens_usd: float | None
    breakeven_month: int | None
    breakeven_term: str | None
    carbon_tco2e_per_year: float
    water_m3_per_year: float | None
    unpriced_items_count: int
    unpriced_not_covered_count: int
    all_lines_priced: bool
    warnings: list[str]


class CostResult(EngineResult):
    summary: CostSummary
    unpriced_items: list[JsonDict]
    capex: JsonDict
    opex: JsonDict
    cloud_rental: JsonDict | None
    depreciation: JsonDict
    tco: JsonDict
    unit_costs: JsonDict
    training_run: JsonDict | None
    inference: JsonDict | None
    cloud_comparison: JsonDict
    carbon: JsonDict
    water: JsonDict
    sensitivity: JsonDict
    flat_table: list[JsonDict]
    waterfall: JsonDict
    tco_over_time: JsonDict
    breakdown: JsonDict
    inputs: JsonDict
    derived_inputs: list[JsonDict]
    assumptions: list[JsonDict | str]
    conventions: list[JsonDict | str]
