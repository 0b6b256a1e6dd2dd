"""Monthly cash flows over the horizon: purchases (with refresh at end of life), straight-line
depreciation, residual book value credited at the horizon end, opex, NPV and breakeven.

Conventions: month 0 holds the initial purchase; opex is paid monthly from month 1; a one-time
opex item falls in month 1. Hardware is re-bought at the end of its depreciation life when the
horizon is longer (same price: no price decline modelled); whatever book value remains at the
horizon end (straight line) is credited back, so the TCO charges each asset for the share of
its life the horizon uses. Cash at month m is discounted by (1 + r)^(-m/12).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .trace import CostLine

HOURS_PER_MONTH = 730.0


def horizon_months(horizon_years: float) -> int:
    return max(1, round(horizon_years * 12))


def year_of_month(months: int) -> np.ndarray:
    """Year index of months 0..M: 0 for the initial purchase, then 1, 2, ..."""
    index = np.arange(months + 1)
    return np.where(index == 0, 0, np.ceil(index / 12.0)).astype(int)


def discount_factors(months: int, rate: float) -> np.ndarray:
    return (1.0 + rate) ** (-np.arange(months + 1) / 12.0)


@dataclass(frozen=True)
class LineFlows:
    """Monthly flows of one line (arrays of length M + 1)."""

    line: CostLine
    capex: np.ndarray
    residual: np.ndarray
    opex: np.ndarray
    depreciation: np.ndarray


@dataclass(frozen=True)
class Schedule:
    months: int
    discount_rate: float
    lines: tuple[LineFlows, ...]

    def _sum(self, name: str) -> np.ndarray:
        out = np.zeros(self.months + 1)
        for flows in self.lines:
            out += getattr(flows, name)
        return out

    @property
    def capex(self) -> np.ndarray:
        return self._sum("capex")

    @property
    def residual(self) -> np.ndarray:
        return self._sum("residual")

    @property
    def opex(self) -> np.ndarray:
        return self._sum("opex")

    @property
    def depreciation(self) -> np.ndarray:
        return self._sum("depreciation")

    @property
    def cash(self) -> np.ndarray:
        return self.capex + self.opex - self.residual

    @property
    def factors(self) -> np.ndarray:
        return discount_factors(self.months, self.discount_rate)

    @property
    def npv_usd(self) -> float:
        return float(np.dot(self.cash, self.factors))

    @property
    def nominal_usd(self) -> float:
        return float(self.cash.sum())

    @property
    def cumulative_usd(self) -> np.ndarray:
        return np.cumsum(self.cash)

    def by_year(self) -> list[dict]:
        years = year_of_month(self.months)
        count = int(years[-1]) + 1
        cash, factors = self.cash, self.factors

        def per_year(values: np.ndarray) -> np.ndarray:
            out = np.zeros(count)
            np.add.at(out, years, values)
            return out

        capex, opex = per_year(self.capex), per_year(self.opex)
        residual, dep = per_year(self.residual), per_year(self.depreciation)
        yearly_cash, discounted = per_year(cash), per_year(cash * factors)
        cum_cash, cum_disc = np.cumsum(yearly_cash), np.cumsum(discounted)
        return [
            {
                "year": year,
                "capex_usd": float(capex[year]),
                "opex_usd": float(opex[year]),
                "residual_value_usd": float(residual[year]),
                "depreciation_usd": float(dep[year]),
                "cash_usd": float(yearly_cash[year]),
                "discounted_usd": float(discounted[year]),
                "cumulative_cash_usd": float(cum_cash[year]),
                "cumulative_discounted_usd": float(cum_disc[year]),
            }
            for year in range(count)
        ]


def _capex_flows(line: CostLine, months: int, life_years: float) -> LineFlows:
    capex = np.zeros(months + 1)
    residual = np.zeros(months + 1)
    depreciation = np.zeros(months + 1)
    cost = line.total_usd or 0.0
    life = max(1, round(life_years * 12))
    for purchase in range(0, months, life):
        capex[purchase] += cost
        end = min(purchase + life, months)
        depreciation[purchase + 1 : end + 1] += cost / life
        if purchase + life > months:
            residual[months] += cost * (1.0 - (months - purchase) / life)
    return LineFlows(line, capex, residual, np.zeros(months + 1), depreciation)


def _opex_flows(line: CostLine, months: int) -> LineFlows:
    opex = np.zeros(months + 1)
    amount = line.total_usd or 0.0
    if line.one_time:
        opex[1] = amount
    else:
        opex[1:] = amount / 12.0
    zeros = np.zeros(months + 1)
    return LineFlows(line, zeros, zeros.copy(), opex, zeros.copy())


def build_schedule(
    capex_lines: list[CostLine],
    opex_lines: list[CostLine],
    *,
    horizon_years: float,
    discount_rate: float,
    lives_years: dict[str, float],
) -> Schedule:
    """Flows of every line (unpriced lines contribute zero and stay visible in the line list)."""
    months = horizon_months(horizon_years)
    flows = [
        _capex_flows(line, months, lives_years[line.depreciation or "hardware"])
        for line in capex_lines
    ]
    flows += [_opex_flows(line, months) for line in opex_lines]
    return Schedule(months, discount_rate, tuple(flows))


def npv_of_monthly(amount_per_month: float, months: int, rate: float) -> float:
    """NPV of a constant amount received in months 1..M."""
    return float(amount_per_month * discount_factors(months, rate)[1:].sum())


def breakeven_month(owned_cumulative: np.ndarray, cloud_cumulative: np.ndarray) -> int | None:
    """First month (>= 1) where owning has cost no more than renting, cumulatively."""
    crossed = np.nonzero(owned_cumulative[1:] <= cloud_cumulative[1:])[0]
    return int(crossed[0]) + 1 if crossed.size else None


def straight_line_depreciation_usd_per_year(cost_usd: float, life_years: float) -> float:
    """Straight-line depreciation: cost / life, each full year of the life."""
    if life_years <= 0 or not math.isfinite(life_years):
        raise ValueError("life_years must be a positive number")
    return cost_usd / life_years
