"""The cluster's facilities: one per GPU site, each sized to that site's systems, networks
and storage, and the cluster totals."""

from __future__ import annotations

from models_engine.engines.fabric.result import FabricResult
from models_engine.sites import SiteSlice, site_slices

from .result import FacilityResult, FacilityTotals, SiteFacility


def evaluate_facility(
    spec,
    catalog,
    *,
    fabric: FabricResult,
    storage=None,
    sites: list[SiteSlice] | None = None,
    cooling_thresholds_kw=None,
) -> FacilityResult:
    """Facility results for a `DesignSpec`; storage power comes from the catalog entries of
    the tiers (`storage` is accepted for the dependency order)."""
    from . import evaluate_site_facility

    del storage
    sites = site_slices(spec) if sites is None else sites
    facilities = [
        SiteFacility(
            site_id=site.site_id,
            site_name=site.site_name,
            gpus=site.gpus,
            **evaluate_site_facility(
                site.spec,
                catalog,
                fabric=fabric.site(site.site_id),
                network_bom=fabric.site_bom(site.site_id),
                cooling_thresholds_kw=cooling_thresholds_kw,
            ),
        )
        for site in sites
    ]
    return FacilityResult(
        sites=facilities,
        totals=_totals(facilities),
        findings=[
            {**finding, "site": site.site_id} for site in facilities for finding in site.findings
        ],
    )


def _totals(sites: list[SiteFacility]) -> FacilityTotals:
    water = [site.cooling.water_m3_per_year for site in sites]
    return FacilityTotals(
        sites=len(sites),
        systems=sum(site.rack_summary.systems for site in sites),
        compute_racks=sum(site.rack_summary.compute_racks for site in sites),
        network_racks=sum(site.rack_summary.network_racks for site in sites),
        storage_racks=sum(site.rack_summary.storage_racks or 0 for site in sites),
        total_racks=sum(site.rack_summary.total_racks for site in sites),
        it_kw=sum(site.power.it_kw.total for site in sites),
        it_kw_energy_basis=sum(site.power.it_kw.energy_basis_total for site in sites),
        facility_kw=sum(site.power.facility_kw for site in sites),
        annual_mwh=sum(site.power.annual_mwh for site in sites),
        annual_it_mwh=sum(site.power.annual_it_mwh for site in sites),
        annual_gpu_mwh=sum(site.power.annual_gpu_mwh for site in sites),
        water_m3_per_year=None if all(w is None for w in water) else sum(w or 0.0 for w in water),
    )
