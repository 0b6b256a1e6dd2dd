"""evaluate_cost: capex, opex, TCO, unit costs, cloud comparison, carbon, water, sensitivity,
per site and for the cluster."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models_engine.catalog import Catalog
from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.facility.result import FacilityResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.storage.result import StorageResult
from models_engine.spec import DesignSpec

from .assumptions import load_assumptions
from .capex import capex_completeness
from .cashflow import HOURS_PER_MONTH, npv_of_monthly
from .cloud import OVERRIDE, market_range
from .footprint import footprint
from .inputs import CostInputs, resolve_inputs
from .report import (
    CAPEX_PARTS,
    CLUSTER_WIDE,
    OPEX_PARTS,
    by_part,
    flat_table,
    site_breakdown,
    tco_over_time,
    unpriced,
    waterfall,
)
from .result import CostResult
from .scenario import Scenario, base_levers, run_scenario
from .sensitivity import tornado
from .trace import total

TIME_TO_TRAIN_SOURCE = "reliability.time_to_train.with_failures_days"
CONVENTIONS = (
    "Sites: every line carries its site; compute is each site's systems (facility engine), "
    "network each site's fabric BOM plus the WAN / DCI equipment the fabric engine tags with "
    "its site, storage each site's tiers (storage engine); by_site adds them up per site and "
    "the totals are the sum of the sites (the job's hot spares and WAN egress form one "
    "cluster-wide entry).",
    "Energy: each site's facility energy (facility engine: IT energy on its load profile x the "
    "site's PUE) x that site's $/kWh, the same every year whether GPUs are busy or idle.",
    "Colocation: $/kW-month x 12 on each site's provisioned IT kW; energy billed on top at the "
    "site price.",
    "TCO: cash at month m discounted by (1 + r)^(-m/12); capex in month 0, opex monthly; "
    "hardware re-bought at the end of its life within the horizon and its remaining "
    "straight-line book value credited at the horizon end.",
    "Depreciation: straight line over economics.depreciation_years (hardware) and the "
    "facility life (assumption facility-life-years); reported, not added to the TCO (cash).",
    "Cost per delivered GPU-hour: NPV of cost / NPV of GPU-hours x utilisation x goodput "
    "(goodput: reliability engine).",
    "Training run: GPUs x the time to train with failures "
    f"({TIME_TO_TRAIN_SOURCE}, the headline's time to train, used as is) x 24 h = the "
    "GPU-hours the run occupies, priced at the cost per utilised GPU-hour (NPV of cost / NPV "
    "of GPU-hours x utilisation); failures are already in that time, so goodput is not "
    "applied again. Carbon per run uses the same time.",
    "Cloud: on-demand pays utilised GPU-hours only, committed terms pay every reserved hour; "
    "licences, WAN egress and storage services are on both sides; owned staff is not.",
)


def _line_dicts(lines) -> list[dict]:
    return [line.as_dict() for line in lines]


def _headline_term(scenario: Scenario) -> str | None:
    if scenario.design_term is not None:
        return scenario.design_term
    if OVERRIDE in scenario.cloud_prices:
        return OVERRIDE
    if scenario.cloud_prices["on-demand"].usd_per_gpu_hour is not None:
        return "on-demand"
    return None


def _cloud_comparison(scenario: Scenario, inputs, catalog, timeline: dict) -> dict:
    terms = []
    for term, price in scenario.cloud_prices.items():
        schedule = scenario.cloud[term]
        rental = scenario.cloud_opex[term][0]
        available = price.usd_per_gpu_hour is not None
        terms.append(
            {
                **price.as_dict(),
                "available": available,
                "billed_gpu_hours_per_year": rental.quantity,
                "cost_usd_per_year": total(scenario.cloud_opex[term]) if available else None,
                "tco_npv_usd": schedule.npv_usd if available else None,
                "tco_nominal_usd": schedule.nominal_usd if available else None,
                "cost_per_delivered_gpu_hour_usd": (
                    schedule.npv_usd / scenario.delivered_gpu_hours_npv if available else None
                ),
                "owned_minus_cloud_npv_usd": (
                    scenario.owned.npv_usd - schedule.npv_usd if available else None
                ),
                "breakeven_month": timeline["breakeven_month"].get(term),
            }
        )
    return {
        "owned_model": scenario.owned_model,
        "owned_tco_npv_usd": scenario.owned.npv_usd,
        "owned_tco_nominal_usd": scenario.owned.nominal_usd,
        "owned_cost_per_delivered_gpu_hour_usd": (
            scenario.owned.npv_usd / scenario.delivered_gpu_hours_npv
        ),
        "headline_term": timeline["headline_term"],
        "headline_breakeven_month": timeline["headline_breakeven_month"],
        "terms": terms,
        "market_range": market_range(inputs, catalog),
        "basis": CONVENTIONS[-1],
    }


def _training_run(scenario: Scenario, inputs: CostInputs) -> dict | None:
    """One run over the reliability engine's time to train with failures (exactly that
    number: the headline's)."""
    days = inputs.time_to_train_days
    if days is None:
        return None
    gpu_hours = inputs.gpu_count * days * 24.0
    per_hour = scenario.cost_per_utilised_gpu_hour_usd
    cloud = {}
    for term, price in scenario.cloud_prices.items():
        usd = price.usd_per_gpu_hour
        cloud[term] = None if usd is None else usd * gpu_hours
    return {
        "time_to_train_days": days,
        "time_to_train_source": TIME_TO_TRAIN_SOURCE,
        "failure_free_days": inputs.failure_free_days,
        "goodput": inputs.goodput,
        "wall_clock_days": days,
        "gpu_hours": gpu_hours,
        "cost_per_utilised_gpu_hour_usd": per_hour,
        "cost_usd": gpu_hours * per_hour,
        "cost_basis": "GPUs x time to train with failures x 24 h x cost per utilised GPU-hour",
        "cloud_cost_usd_by_term": cloud,
        "cloud_basis": "GPUs x time to train with failures x 24 h x $/GPU-hour "
        "(rented for the whole run)",
    }


def scenario_footprint(scenario: Scenario, inputs: CostInputs) -> tuple[dict, dict]:
    """Carbon and water of the owned build's energy, per year and per training run (over the
    reliability engine's time to train with failures)."""
    energy = [line for line in scenario.owned_opex if line.part == "energy"]
    days = inputs.time_to_train_days
    return footprint(inputs, energy, days * 24.0 if days is not None else None)


def _inference(scenario: Scenario, inputs) -> dict | None:
    if inputs.spec.workload.kind != "inference" or not inputs.tokens_per_s:
        return None
    utilisation = scenario.levers.utilisation
    tokens_per_month = inputs.tokens_per_s * 3600.0 * HOURS_PER_MONTH * utilisation
    tokens_npv = npv_of_monthly(
        tokens_per_month, scenario.owned.months, inputs.spec.economics.discount_rate
    )
    tokens_per_year = tokens_per_month * 12.0
    cloud = {}
    for term, schedule in scenario.cloud.items():
        if scenario.cloud_prices[term].usd_per_gpu_hour is not None:
            cloud[term] = schedule.npv_usd / tokens_npv * 1e6
    return {
        "tokens_per_s": inputs.tokens_per_s,
        "tokens_per_s_source": inputs.sources["tokens_per_s"],
        "tokens_per_year": tokens_per_year,
        "cost_per_million_tokens_usd": scenario.tco_npv_usd / tokens_npv * 1e6,
        "owned_cost_per_million_tokens_usd": scenario.owned.npv_usd / tokens_npv * 1e6,
        "cloud_cost_per_million_tokens_usd_by_term": cloud,
        "basis": "NPV of cost / NPV of tokens (tokens/s x utilisation x hours)",
    }


def _warnings(scenario: Scenario, missing: list[dict]) -> list[str]:
    """Gaps a finance reader must see before trusting the totals."""
    out = []
    if any(item["part"] == "compute" for item in missing):
        out.append(
            "compute is unpriced: set economics.price_overrides.gpu_price_usd or system_price_usd"
        )
    if any(item["part"] == "cloud_rental" for item in missing):
        out.append(
            "no cloud price for this GPU at the design's term: set "
            "economics.price_overrides.cloud_usd_per_gpu_hour"
        )
    uncovered = [item for item in missing if not item["covered_by_allowance"]]
    if uncovered:
        out.append(
            f"{len(uncovered)} line(s) have no price and no allowance; totals exclude them "
            "(see unpriced_items)"
        )
    return out


def _assumption_list(assumptions) -> list[dict]:
    return [
        {**entry.as_dict(), "overridden": entry.id in assumptions.overridden}
        for entry in assumptions.entries.values()
    ]


def evaluate_cost(
    spec: DesignSpec,
    catalog: Catalog,
    *,
    fabric: FabricResult,
    facility: FacilityResult,
    storage: StorageResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    reliability: ReliabilityResult,
    assumption_overrides: Mapping[str, Any] | None = None,
) -> CostResult:
    """Cost of a design from the typed results of the engines that own each quantity (all
    required). `assumption_overrides` replaces entries of assumptions.yaml for a team (e.g.
    {"software-licence-usd-per-gpu-year": 0})."""
    assumptions = load_assumptions().with_overrides(assumption_overrides)
    inputs = resolve_inputs(
        spec,
        catalog,
        assumptions,
        fabric=fabric,
        facility=facility,
        storage=storage,
        performance=performance,
        regions=regions,
        reliability=reliability,
    )
    scenario = run_scenario(inputs, catalog, assumptions, base_levers(inputs))
    design = scenario.design
    training = _training_run(scenario, inputs)
    carbon, water = scenario_footprint(scenario, inputs)
    headline = _headline_term(scenario)
    timeline = tco_over_time(scenario, headline)
    capex_total = total(scenario.owned_capex)
    owned_opex_recurring = [line for line in scenario.owned_opex if not line.one_time]
    design_lines = (*scenario.design_capex, *scenario.design_opex)
    missing = unpriced(design_lines)
    applies = scenario.design_term is None
    inference = _inference(scenario, inputs)
    sites = site_breakdown(scenario, inputs, carbon)
    complete = capex_completeness(list(scenario.design_capex))

    return CostResult.model_validate(
        {
            "summary": {
                "ownership": spec.economics.ownership,
                "owned_model": scenario.owned_model,
                "cloud_term": scenario.design_term,
                "capex_usd": total(scenario.design_capex),
                "opex_usd_per_year": total(
                    [line for line in scenario.design_opex if not line.one_time]
                ),
                "tco_npv_usd": design.npv_usd,
                "tco_nominal_usd": design.nominal_usd,
                "cost_per_delivered_gpu_hour_usd": scenario.cost_per_delivered_gpu_hour_usd,
                "training_run_cost_usd": training["cost_usd"] if training else None,
                "cost_per_million_tokens_usd": (
                    inference["cost_per_million_tokens_usd"] if inference else None
                ),
                "breakeven_month": timeline["headline_breakeven_month"],
                "breakeven_term": headline,
                "carbon_tco2e_per_year": carbon["tco2e_per_year"],
                "water_m3_per_year": water["m3_per_year"],
                "unpriced_items_count": len(missing),
                "unpriced_not_covered_count": sum(
                    1 for item in missing if not item["covered_by_allowance"]
                ),
                "all_lines_priced": not missing,
                "capex_priced_share_by_value": complete["priced_share_by_value"],
                "allowance_lines_count": len(complete["allowance_lines"]),
                "warnings": _warnings(scenario, missing),
            },
            "unpriced_items": missing,
            "completeness": complete,
            "capex": {
                "basis": f"{scenario.owned_model} build",
                "applies_to_design": applies,
                "lines": _line_dicts(scenario.owned_capex),
                "by_part_usd": by_part(scenario.owned_capex, CAPEX_PARTS),
                "total_usd": capex_total,
                "unpriced_items": unpriced(scenario.owned_capex),
                "unpriced_count": len(unpriced(scenario.owned_capex)),
                "by_site_usd": {_site_key(s["site_id"]): s["capex_usd"] for s in sites},
            },
            "opex": {
                "basis": f"{scenario.owned_model} build, USD per year",
                "applies_to_design": applies,
                "lines": _line_dicts(scenario.owned_opex),
                "by_part_usd_per_year": by_part(scenario.owned_opex, OPEX_PARTS),
                "total_usd_per_year": total(owned_opex_recurring),
                "one_time_usd": total([line for line in scenario.owned_opex if line.one_time]),
                "unpriced_items": unpriced(scenario.owned_opex),
                "replacement_covered_by_maintenance": list(scenario.covered_failures),
                "by_site_usd_per_year": {
                    _site_key(s["site_id"]): s["opex_usd_per_year"] for s in sites
                },
            },
            "by_site": sites,
            "cloud_rental": (
                None
                if applies
                else {
                    "term": scenario.design_term,
                    "lines": _line_dicts(scenario.design_opex),
                    "total_usd_per_year": total(
                        [line for line in scenario.design_opex if not line.one_time]
                    ),
                }
            ),
            "depreciation": {
                "method": "straight-line",
                "hardware_life_years": spec.economics.depreciation_years,
                "facility_life_years": assumptions.number("facility-life-years"),
                "applies_to_design": applies,
                "by_year": [
                    {"year": row["year"], "depreciation_usd": row["depreciation_usd"]}
                    for row in scenario.owned.by_year()
                ],
            },
            "tco": {
                "ownership": spec.economics.ownership,
                "horizon_years": spec.economics.horizon_years,
                "discount_rate": spec.economics.discount_rate,
                "currency": spec.economics.currency,
                "npv_usd": design.npv_usd,
                "nominal_usd": design.nominal_usd,
                "residual_value_usd": float(design.residual.sum()),
                "by_year": design.by_year(),
            },
            "unit_costs": {
                "gpu_count": inputs.gpu_count,
                "utilisation": scenario.levers.utilisation,
                "goodput": inputs.goodput,
                "delivered_gpu_hours_per_year": scenario.delivered_gpu_hours_per_year,
                "cost_per_delivered_gpu_hour_usd": scenario.cost_per_delivered_gpu_hour_usd,
                "cost_per_gpu_hour_usd": design.npv_usd / scenario.all_gpu_hours_npv,
                "cost_per_utilised_gpu_hour_usd": scenario.cost_per_utilised_gpu_hour_usd,
                "cost_per_gpu_hour_basis": "every provisioned GPU-hour (utilisation 1, goodput 1)",
            },
            "training_run": training,
            "inference": inference,
            "cloud_comparison": _cloud_comparison(scenario, inputs, catalog, timeline),
            "carbon": carbon,
            "water": water,
            "sensitivity": tornado(inputs, catalog, assumptions, scenario),
            "flat_table": flat_table(design),
            "waterfall": waterfall(scenario),
            "tco_over_time": timeline,
            "breakdown": {
                "capex_by_part_usd": by_part(scenario.owned_capex, CAPEX_PARTS),
                "opex_by_part_usd_per_year": by_part(scenario.design_opex, OPEX_PARTS),
                "tco_by_year": design.by_year(),
            },
            "inputs": {
                "it_power_kw": inputs.it_power_kw,
                "pue": inputs.pue,
                "facility_energy_mwh_per_year": sum(site.energy_kwh for site in inputs.sites)
                / 1000,
                "goodput": inputs.goodput,
                "time_to_train_days": inputs.time_to_train_days,
                "hot_spare_nodes": inputs.hot_spare_nodes,
                "egress_usd_per_month": inputs.egress_usd_per_month,
                "fabric_tiers": {site.id: site.fabric_tiers for site in inputs.sites},
                "systems": inputs.systems,
                "nodes": inputs.nodes,
                "sites": [
                    {
                        "site": site.id,
                        "gpus": site.gpus,
                        "systems": site.systems,
                        "it_power_kw": site.it_power_kw,
                        "pue": site.pue,
                        "facility_energy_mwh_per_year": site.energy_kwh / 1000,
                        "power_usd_per_kwh": site.power_usd_per_kwh,
                    }
                    for site in inputs.sites
                ],
                "sources": dict(inputs.sources),
            },
            "derived_inputs": list(inputs.derived),
            "assumptions": _assumption_list(assumptions),
            "conventions": list(CONVENTIONS),
        }
    )


def _site_key(site_id: str | None) -> str:
    return CLUSTER_WIDE if site_id is None else site_id
