"""Carbon (grid intensity x facility energy) and water (WUE x IT energy) of the design.

Carbon counts location-based grid emissions of the facility energy (IT x PUE) at each site's
gCO2e/kWh; water counts site water at WUE litres per IT kWh. Both follow the same
utilisation-independent load profile as the energy cost.
"""

from __future__ import annotations

from .inputs import CostInputs
from .trace import CostLine

GRAMS_PER_TONNE = 1e6
LITRES_PER_M3 = 1000.0


def carbon_tco2e(energy_kwh: float, grams_per_kwh: float) -> float:
    return energy_kwh * grams_per_kwh / GRAMS_PER_TONNE


def water_m3(it_energy_kwh: float, wue_l_per_kwh: float) -> float:
    return it_energy_kwh * wue_l_per_kwh / LITRES_PER_M3


def footprint(
    inputs: CostInputs, energy: tuple[CostLine, ...] | list[CostLine], run_hours: float | None
) -> tuple[dict, dict]:
    sites = {site.id: site for site in inputs.sites}
    per_site = []
    run_tonnes = 0.0
    run_kwh = 0.0
    it_kwh_total = 0.0
    for line in energy:
        site = sites[line.site]
        kwh = line.quantity or 0.0
        it_kwh = kwh / line.extra["pue"]
        it_kwh_total += it_kwh
        tonnes = carbon_tco2e(kwh, site.carbon_g_per_kwh)
        per_site.append(
            {
                "site": site.id,
                "facility_energy_mwh_per_year": kwh / 1000.0,
                "carbon_gco2e_per_kwh": site.carbon_g_per_kwh,
                "tco2e_per_year": tonnes,
            }
        )
        if run_hours is not None:
            site_run_kwh = line.extra["facility_average_kw"] * run_hours
            run_kwh += site_run_kwh
            run_tonnes += carbon_tco2e(site_run_kwh, site.carbon_g_per_kwh)
    carbon = {
        "method": "location-based: facility energy x site grid intensity",
        "tco2e_per_year": sum(item["tco2e_per_year"] for item in per_site),
        "per_site": per_site,
        "per_run_tco2e": run_tonnes if run_hours is not None else None,
        "per_run_facility_energy_mwh": run_kwh / 1000.0 if run_hours is not None else None,
    }
    water = {
        "wue_l_per_kwh": inputs.wue_l_per_kwh,
        "wue_source": inputs.sources.get("wue_l_per_kwh"),
        "it_energy_mwh_per_year": it_kwh_total / 1000.0,
        "m3_per_year": water_m3(it_kwh_total, inputs.wue_l_per_kwh),
    }
    return carbon, water
