"""Typed result of the cost engine: it prices the bills of materials the other engines own
(fabric incl. the WAN / DCI equipment, facility, storage) and each site's energy, and reads
time to train with failures, goodput, hot spares and egress from their typed results.
Every priced line carries its site; `by_site` adds them up per site."""

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
    capex_priced_share_by_value: float | None = None
    allowance_lines_count: int = 0
    warnings: list[str]


class SiteCost(ResultPart):
    """The owned build's cost at one site; `site_id` None holds the lines that belong to no
    single site (the job's hot spares, WAN egress). The entries add up to the totals."""

    site_id: str | None
    site_name: str
    gpus: int
    capex_usd: float
    capex_by_part_usd: dict[str, float]
    opex_usd_per_year: float
    opex_by_part_usd_per_year: dict[str, float]
    one_time_opex_usd: float
    power_usd_per_kwh: float | None
    facility_energy_mwh_per_year: float
    carbon_tco2e_per_year: float
    unpriced_count: int


class TrainingRun(ResultPart):
    """One training run, priced over the reliability engine's time to train with failures."""

    time_to_train_days: float
    time_to_train_source: str
    failure_free_days: float
    goodput: float
    wall_clock_days: float
    gpu_hours: float
    cost_per_utilised_gpu_hour_usd: float
    cost_usd: float
    cost_basis: str
    cloud_cost_usd_by_term: dict[str, float | None]
    cloud_basis: str


class CostResult(EngineResult):
    summary: CostSummary
    unpriced_items: list[JsonDict]
    completeness: JsonDict = {}
    capex: JsonDict
    opex: JsonDict
    by_site: list[SiteCost]
    cloud_rental: JsonDict | None
    depreciation: JsonDict
    tco: JsonDict
    unit_costs: JsonDict
    training_run: TrainingRun | None
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
