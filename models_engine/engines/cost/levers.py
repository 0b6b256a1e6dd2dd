"""The cost engine over arrays of utilisation and electricity price: what a design sweep asks
of it for many variants that differ only in those two inputs.

Both enter the cost model linearly (`scenario.run_scenario`): electricity is each site's
facility kWh x its $/kWh (`opex.energy_lines`, the price scaled by `Levers.power_price_scale`),
cloud rental bills GPU-hours x utilisation on demand (`cloud.rental_line`), and the GPU-hours
an owner sells are all hours x utilisation (x goodput when delivered). NPV is a sum of
discounted monthly amounts, so the design's TCO is bilinear in (utilisation, price scale):

    TCO(u, s) = T00 + (T10 - T00) u + (T01 - T00) s + (T11 - T10 - T01 + T00) u s

with Tus the engine's own scenario at the four corners u, s in {0, 1}. Nothing here prices
anything itself: the four corners are `run_scenario` with the engine's levers, and the unit
costs divide exactly as `engine.evaluate_cost` does (tests/engine/test_sweep_batch.py checks
every metric against `evaluate` on the same spec, rel tol 1e-9).
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
    training run (None-valued runs, e.g. inference, are NaN); and what neither lever moves:
    the owned build's capex and the carbon of its energy (kWh do not depend on the price)."""

    capex_usd: float
    carbon_tco2e_per_year: float | None
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
    assumption_overrides: Mapping[str, Any] | None = None,
) -> LeverCosts:
    """The cost engine's TCO, $/delivered GPU-hour and $/run at each (utilisation, scale of
    the design's electricity prices) pair; everything else as in `spec`."""
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

    def corner(u: float, s: float):
        levers = type(base)(
            utilisation=u,
            pue=base.pue,
            hardware_life_years=base.hardware_life_years,
            power_price_scale=s,
        )
        return run_scenario(inputs, catalog, assumptions, levers)

    corners = {(u, s): corner(u, s) for u in (0.0, 1.0) for s in (0.0, 1.0)}
    t00, t10, t01, t11 = (corners[key].tco_npv_usd for key in ((0, 0), (1, 0), (0, 1), (1, 1)))
    u = np.asarray(utilisation, dtype=float)
    s = np.asarray(power_price_scale, dtype=float)
    tco = t00 + (t10 - t00) * u + (t01 - t00) * s + (t11 - t10 - t01 + t00) * (u * s)
    # The GPU-hours are proportional to utilisation (all hours x u [x goodput]).
    at_full = corners[(1.0, 1.0)]
    delivered = at_full.delivered_gpu_hours_npv * u
    utilised = at_full.utilised_gpu_hours_npv * u
    days = inputs.time_to_train_days
    if days is None:
        run_usd = np.full_like(u, np.nan)
    else:
        gpu_hours = inputs.gpu_count * days * 24.0
        run_usd = gpu_hours * (tco / utilised)
    carbon, _water = scenario_footprint(at_full, inputs)  # as evaluate_cost reports them
    return LeverCosts(
        capex_usd=total(at_full.owned_capex),
        carbon_tco2e_per_year=carbon["tco2e_per_year"],
        tco_usd=tco,
        usd_per_gpu_hour=tco / delivered,
        training_run_usd=run_usd,
    )


__all__ = ["LeverCosts", "cost_over_levers"]
