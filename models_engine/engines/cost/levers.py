"""The cost engine over arrays of utilisation and electricity price: what a design sweep asks
of it for many variants that differ only in those two inputs.

Both enter the cost model linearly (`scenario.run_scenario`): electricity is each site's
facility kWh x its $/kWh (`opex.energy_lines`, the price scaled by `Levers.power_price_scale`),
cloud rental bills GPU-hours x utilisation on demand (`cloud.rental_line`), and the GPU-hours
an owner sells are all hours x utilisation (x goodput when delivered). The cluster PUE is the
engine's third lever (`Levers.pue`): each site's facility kWh is its IT kWh x PUE
(`opex.site_pue`, linear while every site's PUE stays >= 1). NPV is a sum of discounted monthly
amounts, so the design's TCO is affine in each lever separately (multilinear):

    TCO(u, s, w) = sum over corners (a, b, c) in {0, 1}^3 of
                   T[a, b, c] x (u | 1 - u) x (s | 1 - s) x (w | 1 - w)

with w = (PUE - PUE_lo) / (PUE_hi - PUE_lo) and T the engine's own scenario at the corners
(u, s in {0, 1}; PUE at the lowest and highest swept value, both >= 1 so the clamp in
`site_pue` never acts). Carbon and capex come from the full-utilisation corners, interpolated
in w the same way. Nothing here prices anything itself: the corners are `run_scenario` with the
engine's levers, and the unit costs divide exactly as `engine.evaluate_cost` does
(tests/engine/test_sweep_batch.py checks every metric against `evaluate` on the same spec,
rel tol 1e-9).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from models_engine.catalog import Catalog
from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.facility.result import FacilityResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.storage.result import StorageResult
from models_engine.spec import DesignSpec

from .assumptions import load_assumptions
from .engine import scenario_footprint
from .inputs import resolve_inputs
from .scenario import base_levers, run_scenario
from .trace import total


@dataclass(frozen=True)
class LeverCosts:
    """Per variant: the design's TCO (NPV), cost per delivered GPU-hour and cost of one
    training run (None-valued runs, e.g. inference, are NaN); the owned build's capex and the
    carbon of its energy (neither moves with utilisation or price; carbon follows the PUE)."""

    capex_usd: np.ndarray
    carbon_tco2e_per_year: np.ndarray | None
    tco_usd: np.ndarray
    usd_per_gpu_hour: np.ndarray
    training_run_usd: np.ndarray


def cost_over_levers(
    spec: DesignSpec,
    catalog: Catalog,
    *,
    fabric: FabricResult,
    facility: FacilityResult,
    storage: StorageResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    reliability: ReliabilityResult,
    utilisation: np.ndarray,
    power_price_scale: np.ndarray,
    pue: np.ndarray | None = None,
    assumption_overrides: Mapping[str, Any] | None = None,
) -> LeverCosts:
    """The cost engine's TCO, $/delivered GPU-hour and $/run at each (utilisation, scale of
    the design's electricity prices[, cluster PUE]) triple; everything else as in `spec`
    (whose facility result is taken at any one of the swept PUEs: the PUE lever replaces it)."""
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
    base = base_levers(inputs)
    u = np.asarray(utilisation, dtype=float)
    s = np.asarray(power_price_scale, dtype=float)
    pue_corners, w = _pue_corners(base.pue, pue)

    def corner(u: float, s: float, pue: float):
        levers = type(base)(
            utilisation=u,
            pue=pue,
            hardware_life_years=base.hardware_life_years,
            power_price_scale=s,
        )
        return run_scenario(inputs, catalog, assumptions, levers)

    corners = {
        (a, b, c): corner(float(a), float(b), pue_corners[c])
        for a in (0, 1)
        for b in (0, 1)
        for c in range(len(pue_corners))
    }

    def weight(value: np.ndarray, at_one: int) -> np.ndarray:
        return value if at_one else 1.0 - value

    tco = np.zeros(np.broadcast(u, s, w).shape)
    for (a, b, c), scenario in corners.items():
        tco = tco + scenario.tco_npv_usd * weight(u, a) * weight(s, b) * weight(w, c)
    # The GPU-hours are proportional to utilisation (all hours x u [x goodput]); neither the
    # price nor the PUE moves them.
    at_full = corners[(1, 1, 0)]
    delivered = at_full.delivered_gpu_hours_npv * u
    utilised = at_full.utilised_gpu_hours_npv * u
    days = inputs.time_to_train_days
    if days is None:
        run_usd = np.full_like(tco, np.nan)
    else:
        gpu_hours = inputs.gpu_count * days * 24.0
        run_usd = gpu_hours * (tco / utilised)
    full = [corners[(1, 1, c)] for c in range(len(pue_corners))]
    carbon = [scenario_footprint(scenario, inputs)[0]["tco2e_per_year"] for scenario in full]
    capex = [total(scenario.owned_capex) for scenario in full]
    return LeverCosts(
        capex_usd=_along_pue(capex, w),
        carbon_tco2e_per_year=None if carbon[0] is None else _along_pue(carbon, w),
        tco_usd=tco,
        usd_per_gpu_hour=tco / delivered,
        training_run_usd=run_usd,
    )


def _pue_corners(design_pue: float, pue: np.ndarray | None) -> tuple[list[float], np.ndarray]:
    """The PUE lever's corners and each variant's weight w on the upper one: the design's own
    PUE alone (w = 0) when the PUE is not swept."""
    if pue is None:
        return [design_pue], np.zeros(1)
    pue = np.asarray(pue, dtype=float)
    low, high = float(pue.min()), float(pue.max())
    if low < 1.0:
        raise ValueError(f"facility.pue: {low:g} is below 1 (facility power over IT power)")
    if high == low:
        return [low], np.zeros_like(pue)
    return [low, high], (pue - low) / (high - low)


def _along_pue(values: list[float], w: np.ndarray) -> np.ndarray:
    """A quantity affine in the PUE, from its value at the lower (and upper) corner."""
    if len(values) == 1:
        return np.full_like(w, values[0], dtype=float)
    return values[0] * (1.0 - w) + values[1] * w


__all__ = ["LeverCosts", "cost_over_levers"]
