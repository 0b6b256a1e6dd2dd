"""Facility engine: racks and their elevations, IT and facility power with PUE, annual energy,
power and cooling redundancy, cooling feasibility per rack density, liquid fraction and water.

    evaluate_facility(spec, catalog, *, fabric, storage=None, cooling_thresholds_kw=None)
        -> FacilityResult   # one facility per site, plus cluster totals

`fabric` is the fabric engine's `FabricResult`, read by attributes: each site's BOM lines
(`FabricResult.site_bom`) supply that site's switches, optics, appliances and WAN routers and
coherent optics. The facility engine imports only the fabric engine's result types.
`cooling_thresholds_kw` overrides the catalog's max rack kW per cooling type ({cooling id: kW}),
since published thresholds disagree.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from models_engine.engines.fabric.result import BomLine, SiteFabric
from models_engine.hardware import resolve_gpu
from models_engine.systems import resolve_system, systems_per_rack

from .cooling import choose_cooling, cooling_block, liquid_cooling_error
from .data import BREAKER_CONTINUOUS_DERATING, DEFAULT_CLIMATE, STORAGE_DEFAULT_RACK_UNITS
from .power import energy_block, it_power_kw, pue_for, redundancy_block
from .racks import compute_racks, floor_plan, network_racks, place_on_floor, storage_racks
from .result import FacilityResult, SiteFacility

__all__ = [
    "FacilityResult",
    "SiteFacility",
    "evaluate_facility",
    "evaluate_site_facility",
    "liquid_cooling_errors",
    "site_climate",
]


def site_climate(spec) -> str:
    """Climate of the site a site-scoped spec holds: the site's resolved climate (its own, the
    design's facility.climate or its catalog region's; `regions.site_fill`), else the design's,
    else temperate."""
    site = next((s for s in spec.regions.sites if s.gpu_share > 0), spec.regions.sites[0])
    return site.climate or spec.facility.climate or DEFAULT_CLIMATE


def liquid_cooling_errors(spec, catalog) -> list[dict]:
    """[one error naming facility.cooling] when the chosen cooling cannot serve a system that
    needs liquid at the chip, else []."""
    gpu = resolve_gpu(spec.compute, catalog)
    system = resolve_system(spec.compute, catalog, gpu)
    found = liquid_cooling_error(system, spec.facility.cooling)
    return [found] if found else []


def _finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def storage_appliances(spec, catalog) -> tuple[list[dict], list[str]]:
    """The shared storage tiers' appliances (units = capacity / the catalog entry's capacity
    per unit, with its power and height), and the tiers whose entry lacks the figures."""
    known, unknown = [], []
    for index, tier in enumerate(spec.storage.tiers):
        if tier.kind == "local-nvme":
            continue  # inside the nodes' max power
        sku = catalog.storage.get(tier.sku) if tier.sku else None
        if sku and sku.power_w and sku.capacity_tb_per_unit:
            known.append(
                {
                    "tier": index,
                    "sku": sku.id,
                    "name": sku.name,
                    "units": math.ceil(tier.capacity_tb / sku.capacity_tb_per_unit),
                    "kw_each": sku.power_w / 1000.0,
                    "rack_units": sku.rack_units or STORAGE_DEFAULT_RACK_UNITS,
                }
            )
        else:
            unknown.append(f"storage.tiers.{index}")
    return known, unknown


def storage_power_kw(spec, catalog) -> tuple[float, list[str]]:
    """kW of the shared storage tiers whose catalog entry gives per-unit power and size."""
    appliances, unknown = storage_appliances(spec, catalog)
    return sum(a["units"] * a["kw_each"] for a in appliances), unknown


def evaluate_site_facility(
    spec,
    catalog,
    *,
    fabric: SiteFabric,
    network_bom: Sequence[BomLine],
    cooling_thresholds_kw=None,
) -> dict:
    """Facility of one site: `spec` scoped to that site, `fabric` that site's networks and
    `network_bom` every BOM line placed at the site (its networks and its WAN equipment,
    `FabricResult.site_bom(site_id)`)."""
    facility, compute = spec.facility, spec.compute
    gpu = resolve_gpu(compute, catalog)
    system = resolve_system(compute, catalog, gpu)
    limit = facility.rack_power_limit_kw
    systems = math.ceil(compute.gpu_count / system.gpus_per_system)

    compute_rack_list = compute_racks(system, systems, limit)
    network_rack_list = network_racks(network_bom, limit, 1)
    appliances, storage_unknown = storage_appliances(spec, catalog)
    storage_rack_list = storage_racks(appliances, limit, 1)
    racks = compute_rack_list + network_rack_list + storage_rack_list
    place_on_floor(racks, spec.physical.racks_per_row)
    compute_count = sum(rack["count"] for rack in compute_rack_list)
    network_count = sum(rack["count"] for rack in network_rack_list)
    storage_count = sum(rack["count"] for rack in storage_rack_list)
    total_count = compute_count + network_count + storage_count

    storage_kw = sum(a["units"] * a["kw_each"] for a in appliances)
    it = it_power_kw(system, systems, network_bom, storage_kw)
    densest = max(rack["kw"] for rack in racks)
    cooling, cooling_source = choose_cooling(spec, catalog, system, densest)
    climate = site_climate(spec)
    pue, pue_source = pue_for(facility, cooling, climate)
    energy = energy_block(it, pue, pue_source)
    redundancy = redundancy_block(facility, it["total"])
    cool = cooling_block(
        spec,
        catalog,
        system=system,
        cooling=cooling,
        cooling_source=cooling_source,
        climate=climate,
        racks=racks,
        it=it,
        overrides=cooling_thresholds_kw,
    )
    findings = _findings(spec, system, storage_unknown, pue_source) + cool["findings"]
    per_rack = systems_per_rack(system, limit)
    su_nodes = fabric.scale_out.nodes_per_su
    su_kw = None if not su_nodes else su_nodes / system.nodes_per_system * system.power_max_kw
    return {
        "system": {
            "id": system.id,
            "name": system.name,
            "form": system.form,
            "gpus_per_system": system.gpus_per_system,
            "power_max_kw": system.power_max_kw,
            "gpu_power_kw": system.gpu_power_kw,
            "power_source": system.power_source,
            "rack_units": system.rack_units,
            "liquid_cooling_required": system.liquid_cooling_required,
        },
        "rack_summary": {
            "systems": systems,
            "systems_per_rack": per_rack,
            "nodes_per_rack": per_rack * system.nodes_per_system,
            "compute_racks": compute_count,
            "network_racks": network_count,
            "storage_racks": storage_count,
            "total_racks": total_count,
            "rack_power_limit_kw": limit,
            "max_rack_kw": max(rack["kw"] for rack in racks),
            "compute_rack_kw": compute_rack_list[0]["kw"],
            "rack_circuit_kw_needed": max(rack["kw"] for rack in racks)
            / BREAKER_CONTINUOUS_DERATING,
            "floor": floor_plan(total_count, spec.physical.racks_per_row),
        },
        "racks": racks,
        "power": {
            "it_kw": it,
            "systems_kw": systems * system.power_max_kw,
            "systems_kw_per_scalable_unit": su_kw,
            **energy,
        },
        "redundancy": redundancy,
        "cooling": cool["block"],
        "findings": findings,
        "breakdown": {
            "it_kw": {k: v for k, v in it.items() if k not in ("total", "energy_basis_total")},
            "facility_kw": {"it": it["total"], "overhead": energy["facility_overhead_kw"]},
            "racks_by_kind": {
                "compute": compute_count,
                "network": network_count,
                "storage": storage_count,
            },
            "installed_kw": {
                "power": redundancy["power"]["installed_kw"],
                "cooling": redundancy["cooling"]["installed_kw"],
            },
        },
    }


def _findings(spec, system, storage_unknown: list[str], pue_source: str) -> list[dict]:
    out = []
    limit = spec.facility.rack_power_limit_kw
    if system.power_max_kw > limit:
        what = "rack-scale system" if system.form == "rack" else "single system"
        out.append(
            _finding(
                "facility-system-over-rack-limit",
                "error",
                f"one {what} draws {system.power_max_kw:g} kW, above the "
                f"{limit:g} kW rack power limit",
                "facility.rack_power_limit_kw",
            )
        )
    if system.power_source == "derived":
        out.append(
            _finding(
                "facility-system-power-derived",
                "info",
                f"system power {system.power_max_kw:.2f} kW derived from GPU TDP x host "
                "overhead 1.82 (DGX H100 ratio); give a catalog system for the real figure",
                "compute.system_sku",
            )
        )
    if storage_unknown:
        out.append(
            _finding(
                "facility-storage-power-unknown",
                "warning",
                "no per-unit power and capacity in the catalog for "
                + ", ".join(storage_unknown)
                + ": shared storage power is not in the IT total",
                storage_unknown[0],
            )
        )
    if pue_source.startswith("fallback"):
        out.append(_finding("facility-pue-fallback", "info", f"PUE: {pue_source}", "facility.pue"))
    return out


from .cluster import evaluate_facility  # noqa: E402  (the cluster assembles the site facilities)
