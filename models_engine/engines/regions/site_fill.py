"""Sites from the catalog: a site's electricity price, carbon intensity (average and marginal),
water stress and climate come from its catalog region unless the design gives them, field by
field; a site with neither keeps the US defaults below.

`fill_sites(spec, catalog)` returns the spec with every site's figures resolved (run once, in
`models_engine.validate.validate_design`, before any engine). `site_figure_sources(site,
region)` says where each resolved figure came from, for the results page.

Climate precedence: the site's own climate, then the design-wide `facility.climate` (older
designs set it explicitly), then the catalog region's, then temperate.
"""

from __future__ import annotations

import math

from models_engine.catalog import Catalog
from models_engine.spec import DesignSpec

# US defaults for a site with no catalog region and no figure of its own:
# - electricity: US industrial annual average 2024, $0.0771/kWh (EIA series via Epoch
#   cost_analysis_standalone.py energy_price(); cost.md "Facility, colocation, power");
# - carbon: US grid average 379.26 gCO2e/kWh, 2021 (codecarbon global_energy_mix.json, OWID /
#   Ember data; mlco2/codecarbon@0963f17, secondary).
DEFAULT_POWER_USD_PER_KWH = 0.0771
DEFAULT_CARBON_G_PER_KWH = 379.26
DEFAULT_CLIMATE = "temperate"
DEFAULT_SOURCES = {
    "power_price_usd_per_kwh": "US industrial average 2024 (EIA via Epoch; cost.md)",
    "carbon_gco2e_per_kwh": "US grid average 2021 (codecarbon global_energy_mix, OWID/Ember)",
    "climate": "temperate (no site, facility or catalog-region climate)",
}
DEFAULT_DATES = {"power_price_usd_per_kwh": "2024", "carbon_gco2e_per_kwh": "2021"}
# Site field -> catalog Region field.
REGION_FIELDS = {
    "power_price_usd_per_kwh": "power_price_usd_per_kwh",
    "carbon_gco2e_per_kwh": "grid_carbon_g_co2e_per_kwh",
    "carbon_marginal_gco2e_per_kwh": "grid_carbon_marginal_g_co2e_per_kwh",
    "water_stress": "water_stress",
    "climate": "climate",
}
DEFAULTS = {
    "power_price_usd_per_kwh": DEFAULT_POWER_USD_PER_KWH,
    "carbon_gco2e_per_kwh": DEFAULT_CARBON_G_PER_KWH,
    "climate": DEFAULT_CLIMATE,
}


def _region(site, catalog: Catalog):
    return catalog.regions.get(site.catalog_region_id) if site.catalog_region_id else None


def _filled_site(site, region, design_climate: str | None):
    update = {}
    for field, region_field in REGION_FIELDS.items():
        if getattr(site, field) is not None:
            continue
        if field == "climate" and design_climate is not None:
            update[field] = design_climate
        elif region is not None and getattr(region, region_field) is not None:
            update[field] = getattr(region, region_field)
        elif field in DEFAULTS:
            update[field] = DEFAULTS[field]
    return site.model_copy(update=update) if update else site


def fill_sites(spec: DesignSpec, catalog: Catalog) -> DesignSpec:
    """The spec with each site's missing figures taken from its catalog region (or the US
    defaults); figures the design gives are kept as they are."""
    climate = spec.facility.climate
    sites = [_filled_site(site, _region(site, catalog), climate) for site in spec.regions.sites]
    regions = spec.regions.model_copy(update={"sites": sites})
    return spec.model_copy(update={"regions": regions})


def site_figure_sources(site, region) -> dict[str, str]:
    """Where each of a resolved site's figures comes from: the catalog region (value equal to
    the entry's), the US default, or the design."""
    out = {}
    for field, region_field in REGION_FIELDS.items():
        value = getattr(site, field)
        from_region = None if region is None else getattr(region, region_field)
        if value is None:
            out[field] = "not known (no site or catalog-region figure)"
        elif from_region is not None and _same(value, from_region):
            out[field] = f"catalog region {region.id}"
        elif field in DEFAULTS and _same(value, DEFAULTS[field]):
            out[field] = DEFAULT_SOURCES[field]
        else:
            out[field] = "design"
    return out


def site_figure_dates(site, region) -> dict[str, str | None]:
    """The date of each resolved figure: the catalog region's (price date for the price, its
    newest source otherwise), the US default's, or None for the design's own figure."""
    sources = site_figure_sources(site, region)
    out: dict[str, str | None] = {}
    for field, origin in sources.items():
        if region is not None and origin == f"catalog region {region.id}":
            if field == "power_price_usd_per_kwh":
                out[field] = region.price_date
            else:
                out[field] = max(source.date for source in region.sources)
        else:
            out[field] = DEFAULT_DATES.get(field) if origin == DEFAULT_SOURCES.get(field) else None
    return out


def _same(a, b) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int):
        return math.isclose(a, b)
    return a == b
