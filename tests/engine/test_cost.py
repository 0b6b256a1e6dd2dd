"""The cost engine: arithmetic identities, traceability of every price, unpriced lines, the
cloud breakeven, the typed results of the other engines it prices, sites, and every example
design.

Inputs are the typed results of the upstream engines run on the design
(`models_engine.pipeline.run_engines`); a test that needs a round figure replaces one
attribute of one typed result (`model_copy`). Identities are exact (pytest.approx rel=1e-9);
assumption figures are compared with ../shared/reference/cost.md (exactly, or within 1% where
cost.md rounds a derived figure).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path

import pytest

from models_engine.engines.cost import evaluate_cost
from models_engine.engines.cost.assumptions import load_assumptions
from models_engine.engines.cost.cashflow import (
    build_schedule,
    straight_line_depreciation_usd_per_year,
)
from models_engine.engines.cost.footprint import carbon_tco2e, water_m3
from models_engine.engines.cost.trace import CostLine, Trace
from models_engine.engines.fabric.result import BomLine
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO_ROOT / "examples").glob("*.json"))
COST_MD = REPO_ROOT.parent / "shared" / "reference" / "cost.md"
EXACT = 1e-9
UPSTREAM = ("fabric", "facility", "storage", "performance", "regions", "reliability")
TOP_LEVEL_KEYS = {
    "summary",
    "completeness",
    "capex",
    "opex",
    "by_site",
    "cloud_rental",
    "depreciation",
    "tco",
    "unit_costs",
    "training_run",
    "inference",
    "cloud_comparison",
    "carbon",
    "water",
    "sensitivity",
    "flat_table",
    "waterfall",
    "tco_over_time",
    "breakdown",
    "unpriced_items",
    "inputs",
    "derived_inputs",
    "assumptions",
    "conventions",
}


def example(slug: str = "h100-256-onprem-starter") -> dict:
    return json.loads((REPO_ROOT / "examples" / f"{slug}.json").read_text())


def with_changes(doc: dict, **sections: dict) -> dict:
    """A copy of `doc` with keys of top-level sections replaced."""
    out = copy.deepcopy(doc)
    for section, values in sections.items():
        out.setdefault(section, {}).update(values)
    return out


@functools.lru_cache(maxsize=32)
def _run(doc_json: str):
    design = validate_design(json.loads(doc_json))
    return design, run_engines(design.spec, design.catalog, design.gpu)


def engines(doc: dict):
    """(validated design, every engine's typed result) of a design document."""
    return _run(json.dumps(doc, sort_keys=True))


def cost(doc: dict, assumption_overrides: dict | None = None, **replaced) -> dict:
    """The cost result (stored JSON) of `doc`, priced from the upstream engines' typed results;
    `replaced` swaps one upstream result (e.g. facility=...) for a test's own."""
    design, results = engines(doc)
    upstream = {name: replaced.get(name, results[name]) for name in UPSTREAM}
    return evaluate_cost(
        design.spec, design.catalog, assumption_overrides=assumption_overrides, **upstream
    ).to_json()


def with_site_power(facility, *, it_kw: float | None = None, **power):
    """The facility result with its (only) site's power figures replaced."""
    (site,) = facility.sites
    update = dict(power)
    if it_kw is not None:
        update["it_kw"] = site.power.it_kw.model_copy(update={"total": it_kw})
    sites = [site.model_copy(update={"power": site.power.model_copy(update=update)})]
    return facility.model_copy(update={"sites": sites})


def opex_part(result: dict, part: str) -> float:
    return result["opex"]["by_part_usd_per_year"][part]


def lines_of(result: dict, part: str, section: str = "opex") -> list[dict]:
    return [line for line in result[section]["lines"] if line["part"] == part]


# --- arithmetic identities -----------------------------------------------------------------------


def test_energy_cost_of_one_megawatt_for_a_year_at_ten_cents_is_876000_dollars():
    doc = with_changes(example(), economics={"price_overrides": {"power_usd_per_kwh": 0.10}})
    _, results = engines(doc)
    # 1 MW at the meter every hour of the year: 8,760 MWh of facility energy.
    facility = with_site_power(results["facility"], annual_mwh=8760.0)
    result = cost(doc, facility=facility)
    assert opex_part(result, "energy") == pytest.approx(876_000.0, rel=EXACT)
    (line,) = lines_of(result, "energy")
    assert line["quantity"] == pytest.approx(8_760_000.0, rel=EXACT)
    assert line["price_source"] == "override:economics.price_overrides.power_usd_per_kwh"


def test_energy_is_each_sites_facility_energy_at_that_sites_price():
    doc = example("two-region-hierarchical")
    _, results = engines(doc)
    result = cost(doc)
    prices = {site["id"]: site["power_price_usd_per_kwh"] for site in doc["regions"]["sites"]}
    energy = {line["site"]: line for line in lines_of(result, "energy")}
    assert set(energy) == {"ashburn", "hamina"}
    for site in results["facility"].sites:
        line = energy[site.site_id]
        assert line["quantity"] == pytest.approx(site.power.annual_mwh * 1000, rel=EXACT)
        assert line["total_usd"] == pytest.approx(
            site.power.annual_mwh * 1000 * prices[site.site_id], rel=EXACT
        )
    assert result["inputs"]["sources"]["energy"] == "facility.sites[].power.annual_mwh"


def test_colocation_cost_of_500_kw_at_150_dollars_per_kw_month_is_900000_a_year():
    doc = example("dgx-h100-superpod-4su")
    doc["regions"]["sites"][0]["colocation_usd_per_kw_month"] = 150
    doc["regions"]["sites"][0].pop("catalog_region_id")
    _, results = engines(doc)
    result = cost(doc, facility=with_site_power(results["facility"], it_kw=500.0))
    assert opex_part(result, "colocation") == pytest.approx(500 * 150 * 12, rel=EXACT)
    assert result["capex"]["by_part_usd"]["facility"] == 0.0  # colocation: nothing built


def test_colocation_price_comes_from_override_then_catalog_region_then_assumption():
    base = example("dgx-h100-superpod-4su")
    base["regions"]["sites"][0].pop("colocation_usd_per_kw_month")

    def colocation(doc):
        _, results = engines(doc)
        facility = with_site_power(results["facility"], it_kw=1000.0)
        (line,) = lines_of(cost(doc, facility=facility), "colocation")
        return line, cost(doc, facility=facility)

    line, _ = colocation(base)
    assert line["unit_price_usd"] == pytest.approx(200 * 12)  # us-va-ashburn, CBRE Mar 2025
    assert line["price_source"] == "catalog:regions/us-va-ashburn"
    assert line["price_date"] == "2025-03"

    overridden = with_changes(
        base, economics={"price_overrides": {"colocation_usd_per_kw_month": 120}}
    )
    line, _ = colocation(overridden)
    assert line["total_usd"] == pytest.approx(1000 * 120 * 12, rel=EXACT)

    base["regions"]["sites"][0].pop("catalog_region_id")
    line, result = colocation(base)
    assert line["unit_price_usd"] == pytest.approx(184.06 * 12)
    assert line["price_source"] == "assumption:colocation-usd-per-kw-month"
    # The cost engine's own assumption is listed as a derived input.
    assert [item["input"] for item in result["derived_inputs"]] == [
        "regions.sites.0.colocation_usd_per_kw_month"
    ]


def test_straight_line_depreciation_refresh_and_residual_book_value():
    line = CostLine(
        part="compute",
        item="server",
        catalog_id=None,
        quantity=1,
        unit="units",
        unit_price_usd=1000.0,
        total_usd=1000.0,
        trace=Trace("override", "test"),
        depreciation="hardware",
    )
    schedule = build_schedule(
        [line], [], horizon_years=6, discount_rate=0.0, lives_years={"hardware": 4}
    )
    years = schedule.by_year()
    assert [row["depreciation_usd"] for row in years] == pytest.approx([0, *[250.0] * 6])
    assert [row["capex_usd"] for row in years] == pytest.approx([1000, 0, 0, 0, 1000, 0, 0])
    # Bought again at the end of year 4; two of its four years are left at the horizon end.
    assert years[-1]["residual_value_usd"] == pytest.approx(500.0)
    assert schedule.nominal_usd == pytest.approx(1500.0)
    assert schedule.npv_usd == pytest.approx(schedule.nominal_usd)  # no discounting at r = 0
    assert straight_line_depreciation_usd_per_year(1000.0, 4) == 250.0


def test_design_depreciation_is_capex_over_life_each_year():
    result = cost(example())
    lines = result["capex"]["lines"]
    hardware = sum(line["total_usd"] or 0 for line in lines if line["part"] != "facility")
    facility = sum(line["total_usd"] or 0 for line in lines if line["part"] == "facility")
    life = result["depreciation"]["hardware_life_years"]
    facility_life = result["depreciation"]["facility_life_years"]
    for row in result["depreciation"]["by_year"][1:]:
        assert row["depreciation_usd"] == pytest.approx(
            hardware / life + facility / facility_life, rel=EXACT
        )


def test_npv_discounts_monthly_cash_and_equals_the_discounted_year_table():
    result = cost(example())
    tco = result["tco"]
    assert sum(row["discounted_usd"] for row in tco["by_year"]) == pytest.approx(
        tco["npv_usd"], rel=EXACT
    )
    assert sum(row["cash_usd"] for row in tco["by_year"]) == pytest.approx(
        tco["nominal_usd"], rel=EXACT
    )
    assert tco["npv_usd"] < tco["nominal_usd"]  # 8% discount rate


def _construction_per_mw(power: str, cooling: str) -> tuple[str, float]:
    doc = with_changes(
        example(), facility={"power_redundancy": power, "cooling_redundancy": cooling}
    )
    _, results = engines(doc)
    result = cost(doc, facility=with_site_power(results["facility"], it_kw=1000.0))
    (line,) = [
        line
        for line in lines_of(result, "facility", "capex")
        if line["item"].startswith("data-hall construction")
    ]
    assert line["total_usd"] == pytest.approx(line["unit_price_usd"], rel=EXACT)  # 1 MW
    return line["item"], line["unit_price_usd"]


# Turner & Townsend Data Centre Construction Cost Index 2025-2026, USD per watt: Frankfurt 11.6,
# London 12.0, Silicon Valley 13.3, Singapore 14.5, Tokyo 15.2 (the dearest market); the C&W US
# low is San Antonio $9.3 M/MW. A Tier III build must fall in [9.3, 15.2] $M/MW.
TIER_III_BAND_USD_PER_MW = (9.3e6, 15.2e6)


@pytest.mark.parametrize(
    ("power", "cooling", "tier", "ratio"),
    [
        ("N", "N", "I", 10_000 / 20_000),  # Uptime cost model: Tier I $10k/kW vs III $20k/kW
        ("N+1", "N+1", "III", 1.0),
        ("2N", "N+1", "III", 1.0),  # a 2N power chain on N+1 cooling is still Tier III
        ("2N", "2N", "IV", 22_000 / 20_000),  # Tier IV $22k/kW
    ],
)
def test_facility_build_per_mw_by_tier_from_one_basis(power, cooling, tier, ratio):
    item, per_mw = _construction_per_mw(power, cooling)
    assert f"Tier {tier} " in item
    assert per_mw == pytest.approx(11.7e6 * ratio, rel=EXACT)  # C&W 2025 average = Tier III
    if tier == "III":
        low, high = TIER_III_BAND_USD_PER_MW
        assert low <= per_mw <= high


def test_a_2n_build_costs_at_most_a_fifth_more_than_n_plus_1_not_a_third():
    # Uptime cost model: Tier IV is 1.1 x Tier III; scaling an N+1 baseline's critical plant by
    # 2 / 1.25 gave 1.32 x (the old rule).
    _, tier_iii = _construction_per_mw("N+1", "N+1")
    _, tier_iv = _construction_per_mw("2N", "2N")
    assert 1.0 < tier_iv / tier_iii <= 1.2


def test_carbon_and_water_identities():
    assert carbon_tco2e(8_760_000.0, 500.0) == pytest.approx(4380.0, rel=EXACT)
    assert water_m3(8_760_000.0, 1.0) == pytest.approx(8760.0, rel=EXACT)
    doc = example()
    doc["regions"]["sites"][0]["carbon_gco2e_per_kwh"] = 500
    _, results = engines(doc)
    result = cost(doc, facility=with_site_power(results["facility"], annual_mwh=8760.0))
    assert result["carbon"]["tco2e_per_year"] == pytest.approx(4380.0, rel=EXACT)
    # Water is the facility engine's figure, reported as is.
    assert result["water"]["m3_per_year"] == results["facility"].totals.water_m3_per_year
    assert result["summary"]["water_m3_per_year"] == results["facility"].totals.water_m3_per_year


# --- traceability -------------------------------------------------------------------------------

DATED_KINDS = {"catalog", "assumption"}
USER_KINDS = {"override", "design"}
# A figure another engine owns (egress USD, a failure rate, a fabric line's unit price).
ENGINE_REFS = ("fabric.", "regions.", "reliability.", "facility.", "storage.")


def _assert_traced(trace: dict, where: str) -> None:
    source = trace["price_source"]
    kind = source.split(":", 1)[0]
    if kind == "derived":
        assert trace["derived_from"], where
        for item in trace["derived_from"]:
            _assert_traced(item, where)
        return
    if kind == "engine":
        assert source.split(":", 1)[1].startswith(ENGINE_REFS), f"{where}: {source}"
        return
    assert kind in DATED_KINDS | USER_KINDS | {"included"}, f"{where}: {source}"
    if kind in DATED_KINDS:
        assert trace["price_date"], f"{where}: {source} has no date"
        assert re.fullmatch(r"\d{4}(-\d{2}){0,2}", trace["price_date"]), where
        assert trace["source_title"], f"{where}: {source} has no source title"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_price_used_has_a_dated_source_or_is_a_user_figure(path):
    result = cost(json.loads(path.read_text()))
    lines = result["capex"]["lines"] + result["opex"]["lines"]
    lines += (result["cloud_rental"] or {}).get("lines", [])
    for line in lines:
        where = f"{path.stem}: {line['part']} / {line['item']}"
        if line["total_usd"] is None:
            assert line["price_source"].startswith("unpriced"), where
            continue
        if line["price_source"].startswith("included"):
            assert line["total_usd"] == 0.0, where
        _assert_traced(line, where)
    for term in result["cloud_comparison"]["terms"]:
        if term["available"]:
            _assert_traced(term, f"{path.stem}: cloud {term['term']}")
    for row in result["flat_table"]:
        assert "price_source" in row and "price_date" in row


def test_every_assumption_has_a_dated_source():
    assumptions = load_assumptions()
    assert len(assumptions.entries) >= 19  # the fallback-only figures were removed
    for entry in assumptions.entries.values():
        assert entry.sources, entry.id
        for source in entry.sources:
            assert re.fullmatch(r"\d{4}(-\d{2}){0,2}", source.date), entry.id
            assert source.title and source.ref, entry.id


# (assumption id, key, value, text that must appear in cost.md, relative tolerance)
COST_MD_FIGURES = [
    ("construction-usd-per-mw-it", None, 11.7e6, "avg $11.7 M/MW", EXACT),
    ("colocation-usd-per-kw-month", None, 184.06, "$184.06/kW-month", EXACT),
    ("server-price-overhead", "default", 1.64, "1.64", EXACT),
    ("server-price-overhead", "a100", 1.66, "1.66 A100", EXACT),
    ("maintenance-fraction-of-hardware-capex", None, 0.05, "5% of capex per year", EXACT),
    ("cloud-commitment-discount", "aws-1yr", 0.41, "AWS 41%/64%", EXACT),
    ("cloud-commitment-discount", "gcp-3yr", 0.56, "GCP 37%/56%", EXACT),
    ("network-allowance-usd-per-gpu", "optics-cables-2-tier", 2560, "$2,560/GPU", EXACT),
    ("network-allowance-usd-per-gpu", "optics-cables-3-tier", 3800, "$3,800/GPU", EXACT),
    ("network-allowance-usd-per-gpu", "switches-2-tier", 1690, "$1,690/GPU", 0.01),
    ("network-allowance-usd-per-gpu", "switches-3-tier", 2810, "$2,810/GPU", 0.01),
    ("facility-ops-fte-per-site", None, 2 * 5, "2 people per shift", EXACT),
]


@pytest.mark.parametrize(("assumption_id", "key", "value", "text", "rel"), COST_MD_FIGURES)
def test_assumptions_match_the_cost_reference(assumption_id, key, value, text, rel):
    assert load_assumptions().number(assumption_id, key) == pytest.approx(value, rel=rel)
    if COST_MD.exists():
        assert text.replace(",", "") in COST_MD.read_text().replace(",", "")


def test_a_team_override_replaces_an_assumption_and_is_traced_as_an_override():
    doc = with_changes(example(), economics={"gpu_software_licence": "nvidia-ai-enterprise"})
    result = cost(doc, assumption_overrides={"software-licence-usd-per-gpu-year": 0})
    (line,) = lines_of(result, "licences")
    assert line["total_usd"] == 0.0
    assert line["price_source"] == "override:assumption_overrides.software-licence-usd-per-gpu-year"
    with pytest.raises(ValueError, match="unknown cost assumption"):
        cost(example(), assumption_overrides={"no-such-assumption": 1})


# --- unpriced BOM lines ---------------------------------------------------------------------------


def bom_line(site: str, **fields) -> BomLine:
    """A fabric BOM line (the fabric engine's typed line) at `site`."""
    quantity = fields.pop("quantity")
    unit_price = fields.pop("unit_price_usd", None)
    return BomLine(
        **{
            "catalog_id": None,
            "category": "switch",
            "network": "compute",
            "unit_power_w": None,
            "unit_power_max_w": None,
            "total_power_w": None,
            "total_power_max_w": None,
            "placement": None,
            "rack_units": None,
            "note": None,
            **fields,
        },
        quantity=quantity,
        unit_price_usd=unit_price,
        total_price_usd=None if unit_price is None else unit_price * quantity,
        site=site,
    )


def with_bom_lines(fabric, *lines: BomLine):
    return fabric.model_copy(update={"bom": [*fabric.bom, *lines]})


def test_an_unpriced_bom_line_is_reported_with_a_null_price_not_zeroed():
    doc = example()
    _, results = engines(doc)
    mystery = bom_line(
        "ohio", item="mystery management switch", catalog_id="acme-oob-48", quantity=4
    )
    result = cost(doc, fabric=with_bom_lines(results["fabric"], mystery))
    (line,) = [item for item in result["capex"]["lines"] if item["item"] == mystery.item]
    assert line["total_usd"] is None and line["unit_price_usd"] is None
    assert line["site"] == "ohio"
    assert line["price_source"].startswith("unpriced")
    listed = [item["item"] for item in result["capex"]["unpriced_items"]]
    assert mystery.item in listed
    assert result["summary"]["unpriced_items_count"] >= 1
    assert result["summary"]["all_lines_priced"] is False
    rows = [row for row in result["flat_table"] if row["item"] == mystery.item]
    assert rows and rows[0]["capex_usd"] is None
    priced = sum(item["total_usd"] for item in result["capex"]["lines"] if item["total_usd"])
    assert result["capex"]["total_usd"] == pytest.approx(priced, rel=EXACT)


def test_a_category_with_no_price_at_all_gets_a_sourced_allowance_and_keeps_its_lines():
    doc = example()
    _, results = engines(doc)
    result = cost(doc)
    site = results["fabric"].sites[0]
    optics = [
        line
        for line in result["capex"]["lines"]
        if line.get("network") == "compute" and line.get("bom_category") == "optics"
    ]
    # No transceiver or fibre of the compute fabric has a catalog price.
    assert optics and all(line["total_usd"] is None for line in optics)
    assert all(line["covered_by_allowance"] for line in optics)
    (allowance,) = [
        line for line in result["capex"]["lines"] if line["item"].startswith("allowance")
    ]
    assert allowance["price_source"] == "assumption:network-allowance-usd-per-gpu"
    tiers = site.scale_out.tiers
    assert allowance["unit_price_usd"] == load_assumptions().number(
        "network-allowance-usd-per-gpu", f"optics-cables-{tiers}-tier"
    )
    assert allowance["total_usd"] == pytest.approx(256 * allowance["unit_price_usd"])
    # The priced switch lines are used as given; no switch allowance.
    assert not any("switches" in line["item"] for line in result["capex"]["lines"])


def test_nics_inside_a_dgx_price_are_priced_at_zero_as_included():
    result = cost(example())
    nics = [
        line
        for line in result["capex"]["lines"]
        if line.get("bom_category") == "nic" and line["item"].startswith("compute")
    ]
    assert nics and all(line["total_usd"] == 0.0 for line in nics)
    assert all(line["price_source"] == "included:systems/dgx-h100" for line in nics)


# --- cloud comparison -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_breakeven_month_is_where_cumulative_owned_cost_first_crosses_cloud(path):
    result = cost(json.loads(path.read_text()))
    timeline = result["tco_over_time"]
    owned = timeline["owned_cumulative_usd"]
    for term, cloud in timeline["cloud_cumulative_usd"].items():
        month = timeline["breakeven_month"][term]
        crossed = [m for m in range(1, len(owned)) if owned[m] <= cloud[m]]
        assert month == (crossed[0] if crossed else None), term
        if month is not None:
            assert all(owned[m] > cloud[m] for m in range(1, month))


def test_owning_256_h100_breaks_even_against_on_demand_within_the_horizon():
    result = cost(example())
    comparison = result["cloud_comparison"]
    on_demand = next(t for t in comparison["terms"] if t["term"] == "on-demand")
    assert on_demand["catalog_id"] == "gcp-a3-highgpu-h100-on-demand"  # all three terms, newest
    assert on_demand["usd_per_gpu_hour"] == 11.06
    assert 1 <= result["summary"]["breakeven_month"] <= 60
    assert comparison["market_range"]["min_usd_per_gpu_hour"] == 2.45


def test_on_demand_bills_utilised_hours_and_committed_terms_bill_every_hour():
    result = cost(example())
    terms = {t["term"]: t for t in result["cloud_comparison"]["terms"]}
    hours = 256 * 8760
    assert terms["on-demand"]["billed_gpu_hours_per_year"] == pytest.approx(hours * 0.7)
    assert terms["reserved-3yr"]["billed_gpu_hours_per_year"] == pytest.approx(hours)


def test_missing_committed_prices_are_derived_with_the_published_discounts():
    result = cost(example("inference-fleet"))
    terms = {t["term"]: t for t in result["cloud_comparison"]["terms"]}
    assert terms["on-demand"]["catalog_id"] == "aws-p5e-h200-on-demand"
    assert terms["reserved-1yr"]["usd_per_gpu_hour"] == pytest.approx(10.60 * (1 - 0.41))
    assert terms["reserved-3yr"]["usd_per_gpu_hour"] == pytest.approx(10.60 * (1 - 0.64))
    assert terms["reserved-3yr"]["price_source"].startswith("derived")


def test_a_cloud_design_rents_at_its_override_and_costs_per_million_tokens():
    doc = example("inference-fleet")
    _, results = engines(doc)
    result = cost(doc)
    assert result["summary"]["cloud_term"] == "override"
    assert result["summary"]["capex_usd"] == 0.0
    assert result["capex"]["applies_to_design"] is False
    rental = result["cloud_rental"]["lines"][0]
    assert rental["unit_price_usd"] == 6.3
    assert rental["quantity"] == pytest.approx(512 * 8760)  # reserved: every hour
    inference = result["inference"]
    # The fleet's served tokens/s is the performance engine's.
    tokens_per_s = results["performance"].tokens_per_s
    assert inference["tokens_per_s"] == tokens_per_s
    assert inference["tokens_per_year"] == pytest.approx(tokens_per_s * 3600 * 8760 * 0.6)
    assert inference["cost_per_million_tokens_usd"] > 0
    assert {row["input"] for row in result["sensitivity"]["rows"]} >= {"cloud_usd_per_gpu_hour"}


# --- typed results of the other engines ---------------------------------------------------------


def test_cost_prices_the_typed_results_of_the_engines_that_own_each_quantity():
    doc = example("two-region-hierarchical")
    _, results = engines(doc)
    fabric, facility, storage = results["fabric"], results["facility"], results["storage"]
    reliability, regions = results["reliability"], results["regions"]
    result = cost(doc)
    # No re-derived engine quantity: derived inputs are only the cost engine's own assumptions.
    assert all(item["input"].startswith("regions.sites.") for item in result["derived_inputs"]), (
        result["derived_inputs"]
    )
    assert result["inputs"]["it_power_kw"] == facility.totals.it_kw
    assert result["inputs"]["goodput"] == reliability.goodput
    assert result["unit_costs"]["goodput"] == reliability.goodput
    (spares,) = lines_of(result, "spares", "capex")
    assert spares["quantity"] == reliability.hot_spare_nodes
    assert opex_part(result, "wan_egress") == pytest.approx(
        12 * regions.egress["total_usd_per_month"], rel=EXACT
    )
    # Every fabric BOM line of every site is in the capex, at its site.
    capex_lines = {(line["item"], line.get("site")) for line in result["capex"]["lines"]}
    assert {(line.item, line.site) for line in fabric.bom} <= capex_lines
    # Each site's shared tiers at the storage engine's raw TB.
    for site in storage.sites:
        for tier in site.durability.tiers:
            (line,) = [
                line
                for line in lines_of(result, "storage", "capex")
                if line["site"] == site.site_id
                and line["item"].startswith(f"storage tier {tier.tier} ")
            ]
            assert line["raw_tb"] == tier.raw_tb and line["usable_tb"] == tier.usable_tb
    # Compute: each site's systems (facility engine).
    compute = {line["site"]: line for line in lines_of(result, "compute", "capex")}
    for site in facility.sites:
        assert compute[site.site_id]["quantity"] == site.rack_summary.systems
    # Failure rates: the reliability engine's components.
    covered = {item["component"] for item in result["opex"]["replacement_covered_by_maintenance"]}
    assert "gpu" in covered and "optics" not in covered
    delivered = 2048 * 8760 * 0.75 * reliability.goodput
    assert result["unit_costs"]["delivered_gpu_hours_per_year"] == pytest.approx(delivered)


def test_every_upstream_result_is_required():
    design, results = engines(example())
    upstream = {name: results[name] for name in UPSTREAM if name != "reliability"}
    with pytest.raises(TypeError):
        evaluate_cost(design.spec, design.catalog, **upstream)


def test_gpu_price_override_replaces_the_gpu_content_of_a_catalog_system():
    doc = with_changes(example(), economics={"price_overrides": {"gpu_price_usd": 21_000}})
    (line,) = lines_of(cost(doc), "compute", "capex")
    assert line["unit_price_usd"] == pytest.approx(375_000 - 8 * 31_250 + 8 * 21_000)
    assert line["price_source"] == (
        "derived: catalog:systems/dgx-h100 x override:economics.price_overrides.gpu_price_usd"
    )


def test_a_custom_gpu_is_priced_from_the_design_with_host_content():
    result = cost(example("l40s-custom-gpu-finetune"))
    gpu, hosts = lines_of(result, "compute", "capex")
    assert gpu["unit_price_usd"] == 8000 and gpu["quantity"] == 64
    assert gpu["price_source"] == "design:compute.custom_gpu.price_usd"
    assert hosts["unit_price_usd"] == pytest.approx(8000 * 0.64)


# --- sites ---------------------------------------------------------------------------------------


def one_site(doc: dict) -> dict:
    """The same design (same GPUs, same first site's prices) at one site."""
    out = copy.deepcopy(doc)
    regions = out["regions"]
    first = {**regions["sites"][0], "gpu_share": 1.0}
    regions.update(sites=[first], wan_links=[], cross_region_strategy="none")
    for dataset in regions["datasets"]:
        dataset.update(stored_at=[first["id"]], residency="any")
    return out


def test_two_sites_cost_more_capex_than_one_site_of_the_same_gpus():
    two_doc = example("two-region-hierarchical")
    one_doc = one_site(two_doc)
    _, two_results = engines(two_doc)
    two, one = cost(two_doc), cost(one_doc)
    assert two["summary"]["capex_usd"] > one["summary"]["capex_usd"]
    two_parts, one_parts = two["capex"]["by_part_usd"], one["capex"]["by_part_usd"]
    # Same GPUs, same systems.
    assert two_parts["compute"] == pytest.approx(one_parts["compute"], rel=EXACT)
    # Per-site overheads: each site has the spec's storage tiers ...
    assert two_parts["storage"] == pytest.approx(2 * one_parts["storage"], rel=EXACT)
    # ... and its own networks (compute, storage, frontend fabrics and their managers), plus
    # the WAN / DCI equipment between the sites when the fabric engine lists it. Network capex
    # need not grow: two half-size fabrics can need fewer tiers (here one frontend switch per
    # site instead of leaves and spines) once every switch carries a price or an allowance.
    fabric = two_results["fabric"]
    wan_lines = fabric.wan.bom if fabric.wan is not None else []
    for site_id in ("ashburn", "hamina"):
        networks = {
            line["item"].split(" ")[0]
            for line in two["capex"]["lines"]
            if line["part"] == "network" and line.get("site") == site_id
        }
        assert {"compute", "storage", "frontend"} <= networks
    capex_lines = {(line["item"], line.get("site")) for line in two["capex"]["lines"]}
    assert {(line.item, line.site) for line in wan_lines} <= capex_lines
    # Opex: a second site's facility and operations.
    assert {site["site_id"] for site in two["by_site"]} >= {"ashburn", "hamina"}


def test_wan_equipment_lines_in_the_fabric_bom_are_priced_at_their_site():
    doc = example("two-region-hierarchical")
    _, results = engines(doc)
    routers = [
        bom_line(
            site,
            item=f"WAN router, {site} end of ashburn-hamina",
            category="router",
            network="wan",
            quantity=2,
            unit_price_usd=150_000.0,
        )
        for site in ("ashburn", "hamina")
    ]
    base = cost(doc)
    result = cost(doc, fabric=with_bom_lines(results["fabric"], *routers))
    for router in routers:
        (line,) = [line for line in result["capex"]["lines"] if line["item"] == router.item]
        assert line["site"] == router.site and line["total_usd"] == pytest.approx(300_000.0)
        assert line["price_source"] == "engine:fabric.bom"
    assert result["capex"]["by_part_usd"]["network"] - base["capex"]["by_part_usd"][
        "network"
    ] == pytest.approx(600_000.0, rel=EXACT)
    by_site = {site["site_id"]: site for site in result["by_site"]}
    base_by_site = {site["site_id"]: site for site in base["by_site"]}
    for site in ("ashburn", "hamina"):
        added = by_site[site]["capex_by_part_usd"]["network"]
        assert added - base_by_site[site]["capex_by_part_usd"]["network"] == pytest.approx(
            300_000.0, rel=EXACT
        )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_totals_are_the_sum_of_the_sites(path):
    doc = json.loads(path.read_text())
    _, results = engines(doc)
    result = cost(doc)
    sites = result["by_site"]
    gpu_sites = [site["site_id"] for site in sites if site["site_id"] is not None]
    assert gpu_sites == [site.site_id for site in results["facility"].sites]
    assert sum(site["capex_usd"] for site in sites) == pytest.approx(
        result["capex"]["total_usd"], rel=EXACT
    )
    assert sum(site["opex_usd_per_year"] for site in sites) == pytest.approx(
        result["opex"]["total_usd_per_year"], rel=EXACT
    )
    assert sum(site["one_time_opex_usd"] for site in sites) == pytest.approx(
        result["opex"]["one_time_usd"], rel=EXACT
    )
    assert sum(site["carbon_tco2e_per_year"] for site in sites) == pytest.approx(
        result["carbon"]["tco2e_per_year"], rel=EXACT
    )
    for part, usd in result["capex"]["by_part_usd"].items():
        assert sum(site["capex_by_part_usd"][part] for site in sites) == pytest.approx(
            usd, rel=EXACT, abs=1e-6
        )
    assert result["capex"]["by_site_usd"] == {
        site["site_id"] or "cluster": site["capex_usd"] for site in sites
    }
    # Every priced line is placed: per site, or cluster-wide only for the job's spares and
    # WAN egress.
    for line in result["capex"]["lines"] + result["opex"]["lines"]:
        if line.get("site") is None:
            assert line["part"] in {"spares", "maintenance", "wan_egress"}, line["item"]
    # Facility energy per site is the facility engine's.
    for site in results["facility"].sites:
        (entry,) = [item for item in sites if item["site_id"] == site.site_id]
        assert entry["facility_energy_mwh_per_year"] == pytest.approx(
            site.power.annual_mwh, rel=EXACT
        )
        assert entry["gpus"] == site.gpus


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_training_run_is_priced_over_the_reliability_time_to_train_with_failures(path):
    doc = json.loads(path.read_text())
    _, results = engines(doc)
    result = cost(doc)
    time_to_train = results["reliability"].time_to_train
    run = result["training_run"]
    if time_to_train is None:
        assert run is None and result["summary"]["training_run_cost_usd"] is None
        return
    days = time_to_train.with_failures_days
    assert run["time_to_train_days"] == days  # exactly the headline's number
    assert run["wall_clock_days"] == days
    assert run["time_to_train_source"] == "reliability.time_to_train.with_failures_days"
    gpus = doc["compute"]["gpu_count"]
    assert run["gpu_hours"] == pytest.approx(gpus * days * 24, rel=EXACT)
    assert run["cost_usd"] == pytest.approx(
        gpus * days * 24 * result["unit_costs"]["cost_per_utilised_gpu_hour_usd"], rel=EXACT
    )
    assert result["summary"]["training_run_cost_usd"] == run["cost_usd"]
    assert any("with_failures_days" in text for text in result["conventions"])
    # The cost per utilised GPU-hour is the cost per delivered GPU-hour times goodput.
    unit = result["unit_costs"]
    assert unit["cost_per_utilised_gpu_hour_usd"] == pytest.approx(
        unit["cost_per_delivered_gpu_hour_usd"] * results["reliability"].goodput, rel=EXACT
    )


def test_the_pipeline_cost_is_the_engine_result_and_the_headline_reads_it():
    from models_engine.pipeline import evaluate

    doc = example("two-region-hierarchical")
    stored = evaluate(doc)
    assert stored["cost"] == cost(doc)
    assert stored["headline"]["training_run_usd"] == stored["cost"]["training_run"]["cost_usd"]
    assert stored["headline"]["capex_usd"] == stored["cost"]["capex"]["total_usd"]


# --- every example --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_evaluates_to_plain_json(path):
    doc = json.loads(path.read_text())
    _, results = engines(doc)
    result = cost(doc)
    assert set(result) == TOP_LEVEL_KEYS
    json.dumps(result, allow_nan=False)
    summary = result["summary"]
    assert summary["tco_npv_usd"] > 0 and summary["cost_per_delivered_gpu_hour_usd"] > 0
    assert summary["carbon_tco2e_per_year"] > 0
    assert summary["water_m3_per_year"] == results["facility"].totals.water_m3_per_year
    assert result["flat_table"]
    assert {row["input"] for row in result["sensitivity"]["rows"]} >= {
        "gpu_price",
        "power_usd_per_kwh",
        "utilisation",
        "pue",
        "hardware_life_years",
    }
    steps = result["waterfall"]["steps"]
    assert steps[-1]["cumulative_usd"] == pytest.approx(result["capex"]["total_usd"], rel=EXACT)
    if doc["workload"].get("kind", "training") == "training":
        assert result["training_run"]["cost_usd"] > 0
    else:
        assert result["inference"]["cost_per_million_tokens_usd"] > 0


def test_the_flat_table_adds_up_to_the_tco():
    result = cost(example("two-region-hierarchical"))
    rows = result["flat_table"]
    cash = sum(
        (row["capex_usd"] or 0) + (row["opex_usd"] or 0) - row["residual_value_usd"] for row in rows
    )
    assert cash == pytest.approx(result["tco"]["nominal_usd"], rel=1e-9)
    assert {row["year"] for row in rows} == set(range(0, 5))
    assert all(
        key.endswith("_usd")
        or key
        in {
            "year",
            "category",
            "item",
            "catalog_id",
            "site",
            "quantity",
            "unit",
            "price_source",
            "price_date",
        }
        for key in rows[0]
    )


def test_sensitivity_moves_the_tco_in_the_direction_of_the_price():
    result = cost(example())
    rows = {row["input"]: row for row in result["sensitivity"]["rows"]}
    for name in ("gpu_price", "power_usd_per_kwh", "pue"):
        assert rows[name]["tco_delta_high_usd"] > 0 > rows[name]["tco_delta_low_usd"], name
    util = rows["utilisation"]
    assert (
        util["cost_per_delivered_gpu_hour_high_usd"] < util["cost_per_delivered_gpu_hour_low_usd"]
    )
    life = rows["hardware_life_years"]
    assert life["tco_delta_low_usd"] > 0 > life["tco_delta_high_usd"]


def test_a_cloud_design_without_a_cloud_price_warns_instead_of_pricing_rent_at_zero():
    doc = with_changes(
        example("l40s-custom-gpu-finetune"), economics={"ownership": "cloud-reserved"}
    )
    result = cost(doc)
    (rental,) = result["cloud_rental"]["lines"][:1]
    assert rental["total_usd"] is None
    assert any("cloud_usd_per_gpu_hour" in text for text in result["summary"]["warnings"])
    assert result["summary"]["all_lines_priced"] is False
