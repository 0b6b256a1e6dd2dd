"""Typed result of the facility engine.

The facility engine owns racks, IT and facility power, energy, cooling and water. Each site
has its own facility (`SiteFacility`), sized to that site's GPUs, network and storage; the
cluster result (`FacilityResult`) holds every site and the cluster totals.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class RackSummary(ResultPart):
    systems: int
    systems_per_rack: int
    nodes_per_rack: int
    compute_racks: int
    network_racks: int
    storage_racks: int | None
    total_racks: int
    rack_power_limit_kw: float
    max_rack_kw: float
    compute_rack_kw: float
    rack_circuit_kw_needed: float
    floor: JsonDict


class ItPower(ResultPart):
    """IT power by consumer, kW at max draw; `energy_basis_total` is the average draw."""

    gpus: float
    hosts: float
    switches: float
    optics: float
    storage: float
    total: float
    energy_basis_total: float


class FacilityPower(ResultPart):
    it_kw: ItPower
    systems_kw: float
    systems_kw_per_scalable_unit: float | None
    pue: float
    pue_source: str
    facility_kw: float
    facility_overhead_kw: float
    facility_kw_energy_basis: float
    annual_mwh: float
    annual_mwh_at_peak: float
    annual_it_mwh: float
    annual_gpu_mwh: float  # GPU boundary: the GPUs alone at the training draw
    training_draw_fraction: float


class Cooling(ResultPart):
    cooling: str
    cooling_source: str  # "design" or why the engine chose it (facility.cooling null)
    climate: str  # the site's resolved climate the PUE and water use
    liquid_loop: JsonDict | None  # facility water flow and CDUs when water reaches the rack
    max_rack_kw_design: float
    cooling_max_rack_kw: float | None
    feasible: bool
    feasibility: list[JsonDict]
    liquid_heat_fraction: float
    liquid_heat_fraction_source: str
    liquid_heat_kw: float
    air_heat_kw: float
    wue_l_per_kwh: float | None
    wue_source: str
    water_m3_per_year: float | None


class SiteFacility(EngineResult):
    site_id: str
    site_name: str
    gpus: int
    system: JsonDict
    rack_summary: RackSummary
    racks: list[JsonDict]
    power: FacilityPower
    redundancy: JsonDict
    cooling: Cooling
    findings: list[JsonDict]
    breakdown: JsonDict


class FacilityTotals(ResultPart):
    """Sums over the sites."""

    sites: int
    systems: int
    compute_racks: int
    network_racks: int
    storage_racks: int = 0
    total_racks: int
    it_kw: float
    it_kw_energy_basis: float
    facility_kw: float
    annual_mwh: float
    annual_it_mwh: float
    annual_gpu_mwh: float
    water_m3_per_year: float | None

    @property
    def pue(self) -> float:
        """Cluster PUE: facility over IT power (the sites' own PUEs weighted by IT power)."""
        return self.facility_kw / self.it_kw if self.it_kw else 0.0


class FacilityResult(EngineResult):
    sites: list[SiteFacility]
    totals: FacilityTotals
    findings: list[JsonDict]

    def site(self, site_id: str) -> SiteFacility:
        return next(s for s in self.sites if s.site_id == site_id)

    @property
    def primary(self) -> SiteFacility:
        return max(self.sites, key=lambda s: s.gpus)
