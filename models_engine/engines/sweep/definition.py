"""A design-space sweep: a base design, axes over spec paths, constraints and objectives.

Variants are numbered in mixed radix over the axes (the last axis varies fastest), so a chunk of
work is a range of indices. The axes are ordered so that those the cost engine takes as arrays
(`VECTOR_PATHS`) are the fastest digits: a contiguous range then spans few structural groups.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

# Metrics a sweep reports per variant: name -> (owner engine, unit, label).
METRICS: dict[str, tuple[str, str, str]] = {
    "time_to_train_days": ("reliability", "days", "Time to train (with failures)"),
    "goodput": ("reliability", "fraction", "Goodput"),
    "facility_power_mw": ("facility", "MW", "Facility power"),
    "security_score_pct": ("security", "%", "Security score"),
    "fits_in_hbm": ("performance", "yes/no", "Fits in GPU memory"),
    "capex_usd": ("cost", "USD", "Capex"),
    "tco_usd": ("cost", "USD, NPV", "TCO"),
    "training_run_usd": ("cost", "USD", "Cost per training run"),
    "usd_per_gpu_hour": ("cost", "USD/GPU-hour", "Cost per delivered GPU-hour"),
    "carbon_tco2e_per_year": ("cost", "tCO2e/year", "Carbon"),
}
# Objectives: metric and direction.
OBJECTIVES: dict[str, tuple[str, str]] = {
    "tco": ("tco_usd", "min"),
    "time_to_train": ("time_to_train_days", "min"),
    "cost_per_run": ("training_run_usd", "min"),
    "carbon": ("carbon_tco2e_per_year", "min"),
    "goodput": ("goodput", "max"),
}
# Spec paths evaluated as arrays: the cost engine's levers (engines/cost/levers.py) and the
# facility engine's energy formula for the PUE; every other axis groups variants, and each group
# runs the engines once (reusing each engine's result while its inputs are unchanged).
UTILISATION_PATH = "economics.utilisation"
POWER_PRICE_PATH = "economics.price_overrides.power_usd_per_kwh"
PUE_PATH = "facility.pue"
VECTOR_PATHS = (PUE_PATH, UTILISATION_PATH, POWER_PRICE_PATH)
# Metrics and the engine steps that must run to give them (with what those consume).
METRIC_STEPS = ("fabric", "storage", "performance", "facility", "regions", "reliability")
SECURITY_METRIC = "security_score_pct"
MAX_VALUES_PER_AXIS = 10_000
MAX_VARIANTS = 10_000_000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NumericRange(_Strict):
    """`count` evenly spaced values from `start` to `stop` (both included)."""

    start: float
    stop: float
    count: int = Field(ge=1, le=MAX_VALUES_PER_AXIS)
    integer: bool = Field(False, description="round each value to a whole number")


class Axis(_Strict):
    path: str = Field(min_length=1, max_length=200, pattern=r"^[a-z_][a-z0-9_]*(\.[a-z0-9_]+)*$")
    values: list[float | int | str | bool] | None = Field(None, max_length=MAX_VALUES_PER_AXIS)
    range: NumericRange | None = None

    @model_validator(mode="after")
    def _one_source(self):
        if (self.values is None) == (self.range is None):
            raise ValueError("give either values (a list) or range {start, stop, count}")
        if self.values is not None and not self.values:
            raise ValueError("values must not be empty")
        return self

    def resolved(self) -> list:
        if self.values is not None:
            return list(self.values)
        grid = np.linspace(self.range.start, self.range.stop, self.range.count)
        if self.range.integer:
            return sorted({round(v) for v in grid})
        return [float(v) for v in grid]


class Constraints(_Strict):
    """Limits a feasible variant meets; null = no limit."""

    max_time_to_train_days: float | None = Field(None, gt=0)
    max_facility_power_mw: float | None = Field(None, gt=0)
    max_capex_usd: float | None = Field(None, gt=0)
    min_security_score_pct: float | None = Field(None, ge=0, le=100)
    memory_must_fit: bool = True


class SweepDefinition(_Strict):
    axes: list[Axis] = Field(min_length=1, max_length=12)
    constraints: Constraints = Constraints()
    objectives: list[Literal["tco", "time_to_train", "cost_per_run", "carbon", "goodput"]] = Field(
        default_factory=lambda: ["tco", "time_to_train"], min_length=1, max_length=5
    )

    @model_validator(mode="after")
    def _distinct(self):
        paths = [axis.path for axis in self.axes]
        if len(set(paths)) != len(paths):
            raise ValueError("each spec path may be swept by one axis only")
        if len(set(self.objectives)) != len(self.objectives):
            raise ValueError("objectives repeat")
        if self.variant_count() > MAX_VARIANTS:
            raise ValueError(f"{self.variant_count():,} variants; at most {MAX_VARIANTS:,}")
        for axis in self.axes:
            if axis.path in VECTOR_PATHS and not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in axis.resolved()
            ):
                raise ValueError(f"{axis.path} takes numbers")
        return self

    def ordered_axes(self) -> list[Axis]:
        """Structural axes first (slow digits), then the vectorised ones (fast digits)."""
        return [a for a in self.axes if a.path not in VECTOR_PATHS] + [
            a for a in self.axes if a.path in VECTOR_PATHS
        ]

    def reads_security(self) -> bool:
        """Whether a constraint reads the security score (no objective does): the security
        engine (and the network plan it consumes) runs only then."""
        return self.constraints.min_security_score_pct is not None

    def variant_count(self) -> int:
        return math.prod(len(axis.resolved()) for axis in self.axes)


__all__ = [
    "METRICS",
    "OBJECTIVES",
    "POWER_PRICE_PATH",
    "PUE_PATH",
    "UTILISATION_PATH",
    "VECTOR_PATHS",
    "Axis",
    "Constraints",
    "NumericRange",
    "SweepDefinition",
]
