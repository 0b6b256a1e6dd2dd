"""Sites from the catalog: choosing a catalog region fills the site's electricity price, carbon
intensity (average and marginal), water stress and climate (hence PUE) from the entry, field by
field, unless the design gives its own figure."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.facility import evaluate_facility
from models_engine.engines.regions.site_fill import (
    DEFAULT_CARBON_G_PER_KWH,
    DEFAULT_POWER_USD_PER_KWH,
    fill_sites,
    site_figure_sources,
)
from models_engine.spec import design_to_dict
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CATALOG = load_catalog()
REGION_IDS = sorted(CATALOG.regions)
# ISO country -> continent, for the regions the catalog holds.
CONTINENT = {
    "US": "North America",
    "FI": "Europe",
    "DE": "Europe",
    "IE": "Europe",
    "SE": "Europe",
    "SG": "Asia",
    "AE": "Asia",
    "AU": "Oceania",
    "BR": "South America",
    "ZA": "Africa",
}


def bare_site_doc(region_id: str | None) -> dict:
    """The 256-GPU starter with a site that gives no figures of its own and a derived PUE."""
    doc = json.loads((EXAMPLES / "h100-256-onprem-starter.json").read_text())
    site = doc["regions"]["sites"][0]
    for field in ("power_price_usd_per_kwh", "carbon_gco2e_per_kwh"):
        site.pop(field)
    site["catalog_region_id"] = region_id
    for field in ("pue", "climate"):
        doc["facility"].pop(field, None)
    return doc


def site_and_pue(doc: dict):
    """The resolved site and the facility PUE, as the pipeline gives them to every engine."""
    design = validate_design(doc)
    spec = fill_sites(design.spec, design.catalog)
    fabric = evaluate_fabric(spec, design.catalog)
    facility = evaluate_facility(spec, design.catalog, fabric=fabric)
    return spec.regions.sites[0], facility.primary.power.pue


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    region_id=st.sampled_from(REGION_IDS),
    own_price=st.one_of(st.none(), st.floats(min_value=0.01, max_value=0.5)),
    own_carbon=st.one_of(st.none(), st.floats(min_value=0.0, max_value=900.0)),
    own_climate=st.one_of(st.none(), st.sampled_from(["cold", "temperate", "hot-dry"])),
)
def test_a_region_fills_price_carbon_and_pue_exactly_as_its_entry_unless_overridden(
    region_id, own_price, own_carbon, own_climate
):
    region = CATALOG.regions[region_id]
    doc = bare_site_doc(region_id)
    site_doc = doc["regions"]["sites"][0]
    for field, value in (
        ("power_price_usd_per_kwh", own_price),
        ("carbon_gco2e_per_kwh", own_carbon),
        ("climate", own_climate),
    ):
        if value is not None:
            site_doc[field] = value
    site, pue = site_and_pue(doc)
    expected_climate = own_climate or region.climate
    assert site.power_price_usd_per_kwh == (own_price or region.power_price_usd_per_kwh)
    assert site.carbon_gco2e_per_kwh == (
        own_carbon if own_carbon is not None else region.grid_carbon_g_co2e_per_kwh
    )
    assert site.carbon_marginal_gco2e_per_kwh == region.grid_carbon_marginal_g_co2e_per_kwh
    assert site.water_stress == region.water_stress
    assert site.climate == expected_climate
    # The PUE is the one the facility engine derives for that climate with no region at all.
    reference = bare_site_doc(None)
    reference["facility"]["climate"] = expected_climate
    assert pue == pytest.approx(site_and_pue(reference)[1], rel=1e-12)


def test_san_antonio_changes_price_carbon_and_pue_from_the_defaults():
    plain, plain_pue = site_and_pue(bare_site_doc(None))
    texas, texas_pue = site_and_pue(bare_site_doc("us-tx-san-antonio"))
    assert plain.power_price_usd_per_kwh == DEFAULT_POWER_USD_PER_KWH
    assert plain.carbon_gco2e_per_kwh == DEFAULT_CARBON_G_PER_KWH
    assert (texas.power_price_usd_per_kwh, texas.carbon_gco2e_per_kwh) == (0.066, 460.4)
    assert texas.climate == "hot-humid"
    assert texas_pue > plain_pue  # hot-humid cuts free-cooling hours
    sources = site_figure_sources(texas, CATALOG.regions["us-tx-san-antonio"])
    assert sources["power_price_usd_per_kwh"] == "catalog region us-tx-san-antonio"


def test_an_explicit_design_climate_still_wins_over_the_region():
    doc = bare_site_doc("eu-fi-hamina")
    doc["facility"]["climate"] = "temperate"  # older designs set it explicitly
    site, _ = site_and_pue(doc)
    assert site.climate == "temperate"


def test_the_stored_design_keeps_its_nulls_so_a_new_region_refills_them():
    design = validate_design(bare_site_doc("us-tx-san-antonio"))
    stored = design.spec.regions.sites[0]
    assert stored.power_price_usd_per_kwh is None and stored.climate is None
    doc = design_to_dict(design.spec)  # what the studio saves
    doc["regions"]["sites"][0]["catalog_region_id"] = "eu-fi-hamina"
    moved = validate_design(doc)
    refilled = fill_sites(moved.spec, moved.catalog).regions.sites[0]
    hamina = CATALOG.regions["eu-fi-hamina"]
    assert refilled.power_price_usd_per_kwh == hamina.power_price_usd_per_kwh
    assert refilled.climate == "cold"


def test_existing_examples_keep_their_own_site_figures():
    for path in sorted(EXAMPLES.glob("*.json")):
        doc = json.loads(path.read_text())
        design = validate_design(copy.deepcopy(doc))
        spec = fill_sites(design.spec, design.catalog)
        for given_site, site in zip(doc["regions"]["sites"], spec.regions.sites, strict=True):
            assert site.power_price_usd_per_kwh == given_site["power_price_usd_per_kwh"]
            assert site.carbon_gco2e_per_kwh == given_site["carbon_gco2e_per_kwh"]


def test_the_catalog_has_regions_on_every_inhabited_continent_each_with_dated_sources():
    continents = {CONTINENT[region.country] for region in CATALOG.regions.values()}
    assert continents == {
        "North America",
        "South America",
        "Europe",
        "Asia",
        "Africa",
        "Oceania",
    }
    for region in CATALOG.regions.values():
        assert region.sources and all(source.date for source in region.sources), region.id


def test_a_default_filled_price_is_traced_to_its_source_and_date_in_the_cost():
    from models_engine.pipeline import evaluate

    cost = evaluate(bare_site_doc(None))["cost"]
    (line,) = [line for line in cost["opex"]["lines"] if line["part"] == "energy"]
    assert line["unit_price_usd"] == DEFAULT_POWER_USD_PER_KWH
    assert line["price_source"].startswith("engine:regions.sites.0")
    assert line["price_date"] == "2024"
    assert "EIA" in line["source_title"]
