"""Facility section: per-site racks, power, energy, redundancy, cooling and water, the sites
table and cluster totals of a multi-site design, and the facility engine's findings."""

from models_engine import FacilityTotals, SiteFacility
from studio.runs.sections.blocks import Block, Card, Cards, Paragraph, findings_list, text
from studio.runs.sections.common import site_heading
from studio.runs.sections.format import DASH, TIMES, count, joined, number
from studio.runs.selectors import TypedResults
from studio.runs.sites import site_table


def _loop_note(loop: dict | None) -> str:
    """Facility water and CDUs of a hall whose racks take water (facility engine)."""
    if not loop:
        return ""
    cdus = f", {loop['cdus']} CDUs ({loop['cdu_redundancy']})" if loop.get("cdus") else ""
    return (
        f"; facility water {count(loop.get('facility_water_l_per_min'))} L/min at "
        f"{number(loop.get('delta_t_k'), 0)} K for {count(loop.get('heat_to_water_kw'))} kW{cdus}"
    )


def blocks(results: TypedResults, run=None) -> list[Block]:
    facility = results.facility
    if facility is None:
        return []
    multi_site = len(facility.sites) > 1
    built: list[Block] = []
    sites = site_table(results, "facility-sites")
    if sites:
        built.append(sites)
    if multi_site:
        built.append(totals_paragraph(facility.totals))
    for index, site in enumerate(facility.sites):
        if multi_site:
            built.append(site_heading("facility", site.site_id, site.site_name, site.gpus))
        figures_id = "facility-key-figures" + (f"-{site.site_id}" if index else "")
        built.append(Cards(site_cards(site, _network_power(results, site.site_id)), id=figures_id))
    built += findings_list(facility.findings, "facility-findings")
    return built


def totals_paragraph(totals: FacilityTotals) -> Paragraph:
    return Paragraph(
        text(
            f"All sites: {count(totals.total_racks)} racks ({count(totals.compute_racks)} "
            f"compute, {count(totals.network_racks)} network) · {count(totals.it_kw)} kW IT · "
            f"{count(totals.facility_kw)} kW facility (PUE {number(totals.pue, 2)} overall) · "
            f"{count(totals.annual_mwh)} MWh/year"
        ),
        id="facility-totals",
        css="muted small",
    )


def _network_power(results: TypedResults, site_id: str):
    """The site fabric's power figures (how much of them are allowances), if it reported."""
    fabric = results.fabric
    sites = [f for f in fabric.sites if f.site_id == site_id] if fabric is not None else []
    return sites[0].power_w if sites else None


def _it_power_note(power, network) -> str:
    note = f"at peak ({count(power.it_kw.energy_basis_total)} kW average for energy)"
    if network is None:
        return note
    if network.allowance_max_w:
        note += (
            f" · {number(network.allowance_max_w / 1000.0, 1)} kW of network gear is a power "
            "allowance (no published figure)"
        )
    if network.lines_without_power:
        note += f" · {network.lines_without_power} network line(s) without any power figure"
    return note


def site_cards(site: SiteFacility, network=None) -> list[Card]:
    racks, power, cooling = site.rack_summary, site.power, site.cooling
    power_redundancy = site.redundancy.get("power", {})
    cooling_redundancy = site.redundancy.get("cooling", {})
    uptime_tier = site.redundancy.get("uptime_tier_indicative", {}).get("tier")
    holds = "holds" if cooling.feasible else "does not hold"
    return [
        Card(
            "Racks",
            count(racks.total_racks),
            note=joined(
                [
                    f"{count(racks.compute_racks)} compute",
                    f"{count(racks.network_racks)} network",
                    racks.storage_racks and f"{count(racks.storage_racks)} storage",
                    f"{racks.systems_per_rack} {TIMES} {site.system.get('name')} per rack",
                ]
            ),
        ),
        Card(
            "Densest rack",
            number(racks.max_rack_kw, 1),
            "kW",
            f"of a {number(racks.rack_power_limit_kw, 1, trim=True)} kW limit · "
            f"circuit {number(racks.rack_circuit_kw_needed, 1)} kW needed",
            status="bad" if racks.max_rack_kw > racks.rack_power_limit_kw else "",
        ),
        Card(
            "IT power",
            count(power.it_kw.total),
            "kW",
            _it_power_note(power, network),
        ),
        Card(
            "Facility power",
            count(power.facility_kw),
            "kW",
            f"incl. {count(power.facility_overhead_kw)} kW cooling and losses",
        ),
        Card("PUE", number(power.pue, 2, trim=True), note=f"source: {power.pue_source}"),
        Card(
            "Annual energy",
            count(power.annual_mwh),
            "MWh/year",
            f"({count(power.annual_mwh_at_peak)} MWh/year at peak draw)",
        ),
        Card(
            f"Installed power ({power_redundancy.get('redundancy', DASH)})",
            count(power_redundancy.get("installed_kw")),
            "kW:",
            power_redundancy.get("meaning", ""),
        ),
        Card(
            f"Installed cooling ({cooling_redundancy.get('redundancy', DASH)})",
            count(cooling_redundancy.get("installed_kw")),
            "kW:",
            joined(
                [
                    cooling_redundancy.get("meaning", ""),
                    uptime_tier is not None and f"Uptime tier {uptime_tier} (indicative)",
                ]
            ),
        ),
        Card(
            "Cooling",
            cooling.cooling,
            note=f"removes up to {number(cooling.cooling_max_rack_kw, 1, trim=True)} kW per "
            f"rack; {holds} the {number(cooling.max_rack_kw_design, 1)} kW rack "
            f"(chosen by: {cooling.cooling_source}; climate {cooling.climate})"
            + _loop_note(cooling.liquid_loop),
            status="ok" if cooling.feasible else "bad",
        ),
        Card(
            "Water",
            count(cooling.water_m3_per_year),
            "m³/year",
            f"at WUE {number(cooling.wue_l_per_kwh, 2, trim=True)} L/kWh ({cooling.wue_source})",
        ),
    ]
