"""One run of the cost model for a set of levers (the base case, or one sensitivity case).

The owned build (on-prem, or colocation when the design says so; a cloud design is compared
against on-prem) and the cloud at every term are both priced; the design's TCO is whichever
its ownership model is.
"""

from __future__ import annotations

from dataclasses import dataclass

from models_engine.catalog import Catalog

from . import capex as capex_mod
from . import opex as opex_mod
from .assumptions import Assumptions
from .cashflow import HOURS_PER_MONTH, Schedule, build_schedule, npv_of_monthly
from .cloud import (
    OVERRIDE,
    CloudTermPrice,
    cloud_storage_lines,
    cloud_term_prices,
    design_cloud_term,
    rental_line,
)
from .inputs import CostInputs
from .trace import CostLine

HARDWARE_PARTS = ("compute", "scale_up", "network", "storage", "spares")
OWNED_MODELS = ("on-prem", "colocation")


@dataclass(frozen=True)
class Levers:
    """The inputs the sensitivity analysis moves."""

    utilisation: float
    pue: float
    hardware_life_years: float
    gpu_price_scale: float = 1.0
    power_price_scale: float = 1.0
    cloud_price_scale: float = 1.0


def base_levers(inputs: CostInputs) -> Levers:
    economics = inputs.spec.economics
    return Levers(
        utilisation=economics.utilisation,
        pue=inputs.pue,
        hardware_life_years=economics.depreciation_years,
    )


@dataclass(frozen=True)
class Scenario:
    levers: Levers
    owned_model: str
    owned_capex: tuple[CostLine, ...]
    owned_opex: tuple[CostLine, ...]
    covered_failures: tuple[dict, ...]
    owned: Schedule
    cloud_prices: dict[str, CloudTermPrice]
    cloud_opex: dict[str, tuple[CostLine, ...]]
    cloud: dict[str, Schedule]
    design_term: str | None
    delivered_gpu_hours_npv: float
    utilised_gpu_hours_npv: float
    all_gpu_hours_npv: float
    delivered_gpu_hours_per_year: float

    @property
    def design(self) -> Schedule:
        return self.owned if self.design_term is None else self.cloud[self.design_term]

    @property
    def design_capex(self) -> tuple[CostLine, ...]:
        return self.owned_capex if self.design_term is None else ()

    @property
    def design_opex(self) -> tuple[CostLine, ...]:
        return self.owned_opex if self.design_term is None else self.cloud_opex[self.design_term]

    @property
    def tco_npv_usd(self) -> float:
        return self.design.npv_usd

    @property
    def cost_per_delivered_gpu_hour_usd(self) -> float:
        return self.tco_npv_usd / self.delivered_gpu_hours_npv

    @property
    def cost_per_utilised_gpu_hour_usd(self) -> float:
        """NPV of cost / NPV of the GPU-hours jobs occupy (utilisation, failures included)."""
        return self.tco_npv_usd / self.utilised_gpu_hours_npv


def _scale_cloud(price: CloudTermPrice, factor: float) -> CloudTermPrice:
    if price.usd_per_gpu_hour is None or factor == 1.0:
        return price
    return CloudTermPrice(
        price.term, price.usd_per_gpu_hour * factor, price.trace, price.catalog_id, price.provider
    )


def run_scenario(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions, levers: Levers
) -> Scenario:
    economics = inputs.spec.economics
    owned_model = economics.ownership if economics.ownership in OWNED_MODELS else "on-prem"

    compute = capex_mod.compute_lines(inputs, assumptions, levers.gpu_price_scale)
    network = capex_mod.bom_lines(inputs, catalog, assumptions)
    storage, services = capex_mod.storage_lines(inputs, catalog, assumptions)
    hardware = compute + network + storage
    installation = capex_mod.installation_lines(inputs, assumptions)
    spares = [capex_mod.spares_line(inputs, hardware)]
    facility = (
        capex_mod.facility_lines(inputs, catalog, assumptions) if owned_model == "on-prem" else []
    )
    owned_capex = hardware + facility + installation + spares

    energy = opex_mod.energy_lines(inputs, power_scale=levers.power_price_scale, pue=levers.pue)
    colocation = opex_mod.colocation_lines(inputs) if owned_model == "colocation" else []
    maintained = [line for line in owned_capex if line.part in HARDWARE_PARTS]
    replacement, covered = opex_mod.replacement_lines(
        inputs, catalog, assumptions, network, storage
    )
    licences = opex_mod.licence_lines(inputs, assumptions)
    egress = opex_mod.egress_lines(inputs)
    owned_opex = (
        energy
        + colocation
        + opex_mod.staff_lines(inputs, assumptions, owned_model)
        + opex_mod.maintenance_lines(inputs, assumptions, maintained)
        + licences
        + egress
        + services
        + replacement
    )
    lives = {
        "hardware": levers.hardware_life_years,
        "facility": assumptions.number("facility-life-years"),
    }
    schedule_args = {
        "horizon_years": economics.horizon_years,
        "discount_rate": economics.discount_rate,
        "lives_years": lives,
    }
    owned = build_schedule(owned_capex, owned_opex, **schedule_args)

    prices = {
        term: _scale_cloud(price, levers.cloud_price_scale)
        for term, price in cloud_term_prices(inputs, catalog, assumptions).items()
    }
    common = cloud_storage_lines(inputs, catalog, assumptions) + licences + egress
    cloud_opex: dict[str, tuple[CostLine, ...]] = {}
    cloud: dict[str, Schedule] = {}
    all_hours_for_override = economics.ownership != "cloud-on-demand"
    for term, price in prices.items():
        pays_all = price.pays_all_hours if term != OVERRIDE else all_hours_for_override
        rental = rental_line(inputs, price, utilisation=levers.utilisation, pays_all_hours=pays_all)
        lines = (rental, *common)
        cloud_opex[term] = lines
        cloud[term] = build_schedule([], list(lines), **schedule_args)

    design_term = None
    if economics.ownership not in OWNED_MODELS:
        design_term = design_cloud_term(inputs, prices)

    months = owned.months
    all_per_month = inputs.gpu_count * HOURS_PER_MONTH
    utilised_per_month = all_per_month * levers.utilisation
    delivered_per_month = utilised_per_month * inputs.goodput
    return Scenario(
        levers=levers,
        owned_model=owned_model,
        owned_capex=tuple(owned_capex),
        owned_opex=tuple(owned_opex),
        covered_failures=tuple(covered),
        owned=owned,
        cloud_prices=prices,
        cloud_opex=cloud_opex,
        cloud=cloud,
        design_term=design_term,
        delivered_gpu_hours_npv=npv_of_monthly(
            delivered_per_month, months, economics.discount_rate
        ),
        utilised_gpu_hours_npv=npv_of_monthly(utilised_per_month, months, economics.discount_rate),
        all_gpu_hours_npv=npv_of_monthly(all_per_month, months, economics.discount_rate),
        delivered_gpu_hours_per_year=delivered_per_month * 12.0,
    )
