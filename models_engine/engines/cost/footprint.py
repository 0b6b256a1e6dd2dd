"""Carbon (grid intensity x facility energy, per site) and water (the facility engine's
figure, per site).

Carbon counts location-based grid emissions of each site's facility energy (the facility
engine's IT x PUE) at that site's gCO2e/kWh. Water is the facility engine's own quantity
(WUE x IT energy of each site); the cost engine reports it, it does not recompute it.
"""

from __future__ import annotations

from .inputs import KWH_PER_MWH, CostInputs
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
    for line in energy:
        site = sites[line.site]
        kwh = line.quantity or 0.0
        tonnes = carbon_tco2e(kwh, site.carbon_g_per_kwh)
        per_site.append(
            {
                "site": site.id,
                "facility_energy_mwh_per_year": kwh / KWH_PER_MWH,
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
        "per_run_facility_energy_mwh": run_kwh / KWH_PER_MWH if run_hours is not None else None,
    }
    it_kwh = sum(site.it_energy_kwh for site in inputs.sites)
    known = inputs.water_m3_per_year
    sources = sorted({site.wue_source for site in inputs.sites})
    water = {
        # Cluster WUE: the facility's water over the IT energy of every site.
        "wue_l_per_kwh": known * LITRES_PER_M3 / it_kwh if known is not None and it_kwh else None,
        "wue_source": "; ".join(sources),
        "source": "facility.sites[].cooling.water_m3_per_year",
        "it_energy_mwh_per_year": it_kwh / KWH_PER_MWH,
        "m3_per_year": known,
        "per_site": [
            {
                "site": site.id,
                "wue_l_per_kwh": site.wue_l_per_kwh,
                "wue_source": site.wue_source,
                "m3_per_year": site.water_m3_per_year,
            }
            for site in inputs.sites
        ],
    }
    return carbon, water
