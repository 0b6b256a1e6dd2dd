"""Chart- and spreadsheet-ready views of a scenario: the flat table (one row per item and year),
the capex waterfall and the owned-vs-cloud cumulative cost over time."""

from __future__ import annotations

import numpy as np

from .cashflow import Schedule, breakeven_month, year_of_month
from .scenario import Scenario
from .trace import CostLine, total

CAPEX_PARTS = (
    "compute",
    "scale_up",
    "network",
    "storage",
    "facility",
    "installation",
    "spares",
)
OPEX_PARTS = (
    "energy",
    "colocation",
    "staff",
    "maintenance",
    "licences",
    "wan_egress",
    "storage_services",
    "replacement_parts",
    "cloud_rental",
)


def by_part(lines: tuple[CostLine, ...] | list[CostLine], parts: tuple[str, ...]) -> dict:
    out = {part: 0.0 for part in parts}
    for line in lines:
        if line.total_usd is not None and not line.one_time:
            out[line.part] = out.get(line.part, 0.0) + line.total_usd
    return out


def unpriced(lines) -> list[dict]:
    return [
        {
            "part": line.part,
            "item": line.item,
            "catalog_id": line.catalog_id,
            "quantity": line.quantity,
            "unit": line.unit,
            "covered_by_allowance": line.covered_by_allowance,
        }
        for line in lines
        if line.total_usd is None
    ]


def flat_table(schedule: Schedule) -> list[dict]:
    """One row per line and year; capex in year 0 (and refresh years), opex in years 1..N.
    An unpriced line appears with null amounts so a spreadsheet shows the gap."""
    years = year_of_month(schedule.months)
    count = int(years[-1]) + 1
    rows = []
    for flows in schedule.lines:
        line = flows.line
        sums = {}
        for name in ("capex", "residual", "opex", "depreciation"):
            values = np.zeros(count)
            np.add.at(values, years, getattr(flows, name))
            sums[name] = values
        is_capex = line.depreciation is not None
        for year in range(count):
            if line.total_usd is None:
                show = year == 0 if is_capex else year >= 1
                if not show:
                    continue
                capex_usd = None if is_capex else 0.0
                opex_usd = None if not is_capex else 0.0
                dep, residual = 0.0, 0.0
            else:
                capex_usd, opex_usd = float(sums["capex"][year]), float(sums["opex"][year])
                dep, residual = float(sums["depreciation"][year]), float(sums["residual"][year])
                if not any((capex_usd, opex_usd, dep, residual)):
                    continue
            rows.append(
                {
                    "year": year,
                    "category": line.part,
                    "item": line.item,
                    "catalog_id": line.catalog_id,
                    "site": line.site,
                    "quantity": line.quantity,
                    "unit": line.unit,
                    "unit_price_usd": line.unit_price_usd,
                    "capex_usd": capex_usd,
                    "opex_usd": opex_usd,
                    "depreciation_usd": dep,
                    "residual_value_usd": residual,
                    "price_source": line.trace.price_source,
                    "price_date": line.trace.price_date,
                }
            )
    rows.sort(key=lambda row: row["year"])
    return rows


def waterfall(scenario: Scenario) -> dict:
    parts = by_part(scenario.owned_capex, CAPEX_PARTS)
    steps, running = [], 0.0
    for part in CAPEX_PARTS:
        running += parts[part]
        steps.append({"part": part, "usd": parts[part], "cumulative_usd": running})
    return {
        "basis": f"{scenario.owned_model} build capex"
        + (" (alternative to the design's cloud rental)" if scenario.design_term else ""),
        "steps": steps,
        "total_usd": running,
    }


def tco_over_time(scenario: Scenario, headline_term: str | None) -> dict:
    owned = scenario.owned.cumulative_usd
    cloud, breakeven = {}, {}
    for term, schedule in scenario.cloud.items():
        if scenario.cloud_prices[term].usd_per_gpu_hour is None:
            continue
        cumulative = schedule.cumulative_usd
        cloud[term] = [float(x) for x in cumulative]
        breakeven[term] = breakeven_month(owned, cumulative)
    return {
        "month": list(range(scenario.owned.months + 1)),
        "owned_model": scenario.owned_model,
        "owned_cumulative_usd": [float(x) for x in owned],
        "cloud_cumulative_usd": cloud,
        "breakeven_month": breakeven,
        "headline_term": headline_term,
        "headline_breakeven_month": breakeven.get(headline_term) if headline_term else None,
        "basis": "nominal cumulative cash; owned includes the residual book value credited in "
        "the last month",
    }


CLUSTER_WIDE = "cluster"


def site_breakdown(scenario: Scenario, inputs, carbon: dict) -> list[dict]:
    """The owned build's capex and opex per site (every line carries its site); lines that
    belong to no single site (hot spares for the job, WAN egress) form one cluster-wide entry,
    so the entries add up to the totals exactly."""
    order = [site.id for site in inputs.sites]
    for line in (*scenario.owned_capex, *scenario.owned_opex):
        if line.site not in order and line.site is not None:
            order.append(line.site)
    if any(line.site is None for line in (*scenario.owned_capex, *scenario.owned_opex)):
        order.append(None)
    carbon_by_site = {item["site"]: item for item in carbon["per_site"]}
    spec_sites = {site.id: site for site in inputs.spec.regions.sites}
    out = []
    for site_id in order:
        capex = [line for line in scenario.owned_capex if line.site == site_id]
        opex = [line for line in scenario.owned_opex if line.site == site_id]
        site = inputs.site(site_id)
        energy = carbon_by_site.get(site_id)
        if site_id is None:
            name = "cluster-wide (hot spares for the job, WAN egress)"
        else:
            name = spec_sites[site_id].name if site_id in spec_sites else site_id
        out.append(
            {
                "site_id": site_id,
                "site_name": name,
                "gpus": site.gpus if site is not None else 0,
                "capex_usd": total(capex),
                "capex_by_part_usd": by_part(capex, CAPEX_PARTS),
                "opex_usd_per_year": total([line for line in opex if not line.one_time]),
                "opex_by_part_usd_per_year": by_part(opex, OPEX_PARTS),
                "one_time_opex_usd": total([line for line in opex if line.one_time]),
                "power_usd_per_kwh": site.power_usd_per_kwh if site is not None else None,
                "facility_energy_mwh_per_year": (
                    energy["facility_energy_mwh_per_year"] if energy else 0.0
                ),
                "carbon_tco2e_per_year": energy["tco2e_per_year"] if energy else 0.0,
                "unpriced_count": sum(1 for line in (*capex, *opex) if not line.priced),
            }
        )
    return out
