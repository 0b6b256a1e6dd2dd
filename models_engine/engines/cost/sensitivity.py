"""Tornado data: the design's TCO (NPV) and cost per delivered GPU-hour when one input moves by
-20% and +20%, everything else held. Utilisation is capped at 1 and PUE floored at 1.0 (a
physical bound, reported in `low_value` / `high_value`). Rows are sorted by TCO swing, then by
cost-per-GPU-hour swing (utilisation moves the second, not the first, for an owned build).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_engine.catalog import Catalog

from .assumptions import Assumptions
from .inputs import CostInputs
from .scenario import Levers, Scenario, run_scenario

STEP = 0.20


@dataclass(frozen=True)
class Case:
    name: str
    unit: str
    base_value: float
    low_value: float
    high_value: float
    low: Levers
    high: Levers


def _scale_case(name: str, unit: str, base: Levers, field: str) -> Case:
    low, high = 1.0 - STEP, 1.0 + STEP
    return Case(
        name, unit, 1.0, low, high, replace(base, **{field: low}), replace(base, **{field: high})
    )


def _value_case(name: str, unit: str, base: Levers, field: str, low: float, high: float) -> Case:
    return Case(
        name,
        unit,
        getattr(base, field),
        low,
        high,
        replace(base, **{field: low}),
        replace(base, **{field: high}),
    )


def cases(base: Levers, cloud_design: bool) -> list[Case]:
    low, high = 1.0 - STEP, 1.0 + STEP
    out = [
        _scale_case("gpu_price", "x catalog / override price", base, "gpu_price_scale"),
        _scale_case("power_usd_per_kwh", "x site price", base, "power_price_scale"),
        _value_case(
            "utilisation",
            "fraction",
            base,
            "utilisation",
            base.utilisation * low,
            min(1.0, base.utilisation * high),
        ),
        _value_case("pue", "ratio", base, "pue", max(1.0, base.pue * low), base.pue * high),
        _value_case(
            "hardware_life_years",
            "years",
            base,
            "hardware_life_years",
            base.hardware_life_years * low,
            base.hardware_life_years * high,
        ),
    ]
    if cloud_design:
        out.append(
            _scale_case("cloud_usd_per_gpu_hour", "x cloud price", base, "cloud_price_scale")
        )
    return out


def tornado(inputs: CostInputs, catalog: Catalog, assumptions: Assumptions, base: Scenario) -> dict:
    rows = []
    base_tco = base.tco_npv_usd
    base_unit = base.cost_per_delivered_gpu_hour_usd
    for case in cases(base.levers, base.design_term is not None):
        low = run_scenario(inputs, catalog, assumptions, case.low)
        high = run_scenario(inputs, catalog, assumptions, case.high)
        rows.append(
            {
                "input": case.name,
                "unit": case.unit,
                "base_value": case.base_value,
                "low_value": case.low_value,
                "high_value": case.high_value,
                "tco_npv_low_usd": low.tco_npv_usd,
                "tco_npv_high_usd": high.tco_npv_usd,
                "tco_delta_low_usd": low.tco_npv_usd - base_tco,
                "tco_delta_high_usd": high.tco_npv_usd - base_tco,
                "cost_per_delivered_gpu_hour_low_usd": low.cost_per_delivered_gpu_hour_usd,
                "cost_per_delivered_gpu_hour_high_usd": high.cost_per_delivered_gpu_hour_usd,
                "tco_swing_usd": abs(high.tco_npv_usd - low.tco_npv_usd),
                "cost_per_delivered_gpu_hour_swing_usd": abs(
                    high.cost_per_delivered_gpu_hour_usd - low.cost_per_delivered_gpu_hour_usd
                ),
            }
        )
    rows.sort(key=lambda r: (-r["tco_swing_usd"], -r["cost_per_delivered_gpu_hour_swing_usd"]))
    return {
        "step_fraction": STEP,
        "base_tco_npv_usd": base_tco,
        "base_cost_per_delivered_gpu_hour_usd": base_unit,
        "rows": rows,
    }
