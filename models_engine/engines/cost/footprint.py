"""Energy at three boundaries and carbon (per site, per year and per training run), and water.

Boundaries (all the facility engine's figures, never re-derived): GPU (the GPUs alone at the
training draw: what model cards report as GPU energy), IT (every server, switch, optic and
storage device), facility (IT x PUE: what the site buys from the grid).

Carbon follows the GHG Protocol Scope 2 Guidance's two methods on the facility energy:
- location-based: the site's grid average intensity;
- market-based: the share covered by a zero-carbon contract instrument (PPA, unbundled RECs /
  GOs, green tariff; `regions.sites[].renewable_contract_share`) at 0 g/kWh and the rest at a
  residual mix. No residual-mix factor is in the references: the grid average stands in for it
  (ASSUMPTION; a real residual mix is higher, so this understates market-based emissions).
A marginal figure (the site's marginal intensity, where the catalog has one) is given beside
them for decisions about added load. Water is the facility engine's own quantity.
"""

from __future__ import annotations

from .inputs import HOURS_PER_YEAR, KWH_PER_MWH, CostInputs
from .trace import CostLine

GRAMS_PER_TONNE = 1e6
LITRES_PER_M3 = 1000.0
BOUNDARIES = ("gpu", "it", "facility")
METHOD = (
    "GHG Protocol Scope 2 on facility energy: location-based = grid average; market-based = "
    "contracted zero-carbon share at 0, the rest at the grid average (residual-mix proxy)"
)


def carbon_tco2e(energy_kwh: float, grams_per_kwh: float) -> float:
    return energy_kwh * grams_per_kwh / GRAMS_PER_TONNE


def water_m3(it_energy_kwh: float, wue_l_per_kwh: float) -> float:
    return it_energy_kwh * wue_l_per_kwh / LITRES_PER_M3


def _site_energy_kwh(site, facility_kwh: float) -> dict[str, float]:
    """One year of the site's energy at each boundary; the facility figure is the energy line's
    (it carries the PUE lever), GPU and IT scale with it from the facility engine's ratios."""
    scale = facility_kwh / site.energy_kwh if site.energy_kwh else 0.0
    return {
        "gpu": site.gpu_energy_kwh * scale,
        "it": site.it_energy_kwh * scale,
        "facility": facility_kwh,
    }


def _site_carbon(site, energy: dict[str, float]) -> dict:
    facility = energy["facility"]
    covered = site.renewable_contract_share
    marginal = site.carbon_marginal_g_per_kwh
    return {
        "site": site.id,
        "gpu_energy_mwh_per_year": energy["gpu"] / KWH_PER_MWH,
        "it_energy_mwh_per_year": energy["it"] / KWH_PER_MWH,
        "facility_energy_mwh_per_year": facility / KWH_PER_MWH,
        "carbon_gco2e_per_kwh": site.carbon_g_per_kwh,
        "carbon_marginal_gco2e_per_kwh": marginal,
        "renewable_contract_share": covered,
        "renewable_contract_instrument": site.renewable_contract_instrument,
        "tco2e_per_year": carbon_tco2e(facility, site.carbon_g_per_kwh),
        "market_based_tco2e_per_year": carbon_tco2e(
            facility * (1.0 - covered), site.carbon_g_per_kwh
        ),
        "marginal_tco2e_per_year": None if marginal is None else carbon_tco2e(facility, marginal),
    }


def _sum(rows: list[dict], key: str) -> float | None:
    values = [row[key] for row in rows]
    return None if any(value is None for value in values) else sum(values)


def _per_run(rows: list[dict], run_hours: float | None) -> dict | None:
    """A training run's energy and carbon: each site's yearly figures over the run's hours."""
    if run_hours is None:
        return None
    years = run_hours / HOURS_PER_YEAR
    out = {f"{b}_energy_mwh": _sum(rows, f"{b}_energy_mwh_per_year") * years for b in BOUNDARIES}
    for method in ("tco2e", "market_based_tco2e", "marginal_tco2e"):
        total = _sum(rows, f"{method}_per_year")
        out[method] = None if total is None else total * years
    return out


def footprint(
    inputs: CostInputs, energy: tuple[CostLine, ...] | list[CostLine], run_hours: float | None
) -> tuple[dict, dict]:
    sites = {site.id: site for site in inputs.sites}
    per_site = [
        _site_carbon(sites[line.site], _site_energy_kwh(sites[line.site], line.quantity or 0.0))
        for line in energy
    ]
    run = _per_run(per_site, run_hours)
    carbon = {
        "method": METHOD,
        "boundaries": {
            "gpu": "GPUs alone at the training draw (facility.power.annual_gpu_mwh)",
            "it": "all IT: servers, network, optics, storage (facility.power.annual_it_mwh)",
            "facility": "IT x PUE, what the site buys (facility.power.annual_mwh)",
        },
        "energy_mwh_per_year": {b: _sum(per_site, f"{b}_energy_mwh_per_year") for b in BOUNDARIES},
        "tco2e_per_year": _sum(per_site, "tco2e_per_year"),
        "market_based_tco2e_per_year": _sum(per_site, "market_based_tco2e_per_year"),
        "marginal_tco2e_per_year": _sum(per_site, "marginal_tco2e_per_year"),
        "per_site": per_site,
        "per_run": run,
        "per_run_tco2e": run["tco2e"] if run else None,
        "per_run_facility_energy_mwh": run["facility_energy_mwh"] if run else None,
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
