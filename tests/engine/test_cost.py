"""The cost engine: arithmetic identities, traceability of every price, unpriced lines, the
cloud breakeven, other engines' results, and every example design.

Identities are exact (pytest.approx rel=1e-9); assumption figures are compared with
../shared/reference/cost.md (exactly, or within 1% where cost.md rounds a derived figure).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from models_engine.catalog import load_catalog
from models_engine.engines.cost import evaluate_cost
from models_engine.engines.cost.assumptions import load_assumptions
from models_engine.engines.cost.cashflow import (
    build_schedule,
    straight_line_depreciation_usd_per_year,
)
from models_engine.engines.cost.footprint import carbon_tco2e, water_m3
from models_engine.engines.cost.trace import CostLine, Trace

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO_ROOT / "examples").glob("*.json"))
COST_MD = REPO_ROOT.parent / "shared" / "reference" / "cost.md"
EXACT = 1e-9
TOP_LEVEL_KEYS = {
    "summary",
    "capex",
    "opex",
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


def opex_part(result: dict, part: str) -> float:
    return result["opex"]["by_part_usd_per_year"][part]


def lines_of(result: dict, part: str, section: str = "opex") -> list[dict]:
    return [line for line in result[section]["lines"] if line["part"] == part]


# --- arithmetic identities -----------------------------------------------------------------------


def test_energy_cost_of_one_megawatt_for_a_year_at_ten_cents_is_876000_dollars():
    doc = with_changes(
        example(),
        facility={"pue": 1.25},
        economics={"price_overrides": {"power_usd_per_kwh": 0.10}},
    )
    # 800 kW IT x PUE 1.25 = 1 MW at the meter, drawing it every hour (load factor 1).
    facility = {"it_power_kw": 800.0, "pue": 1.25, "annual_energy_mwh": 8760.0}
    result = evaluate_cost(doc, load_catalog(), facility=facility)
    assert opex_part(result, "energy") == pytest.approx(876_000.0, rel=EXACT)
    (line,) = lines_of(result, "energy")
    assert line["quantity"] == pytest.approx(8_760_000.0, rel=EXACT)
    assert line["price_source"] == "override:economics.price_overrides.power_usd_per_kwh"


def test_energy_uses_the_stated_load_profile_when_the_facility_gives_no_annual_energy():
    doc = with_changes(
        example(), facility={"pue": 1.0}, economics={"price_overrides": {"power_usd_per_kwh": 0.1}}
    )
    result = evaluate_cost(doc, load_catalog(), facility={"it_power_kw": 1000.0})
    load = load_assumptions().number("energy-load-factor")
    assert load == 0.75
    assert opex_part(result, "energy") == pytest.approx(876_000.0 * load, rel=EXACT)
    assert result["inputs"]["sources"]["load_factor"] == "assumption energy-load-factor"


def test_colocation_cost_of_500_kw_at_150_dollars_per_kw_month_is_900000_a_year():
    doc = example("dgx-h100-superpod-4su")
    doc["regions"]["sites"][0]["colocation_usd_per_kw_month"] = 150
    doc["regions"]["sites"][0].pop("catalog_region_id")
    result = evaluate_cost(doc, load_catalog(), facility={"it_power_kw": 500.0})
    assert opex_part(result, "colocation") == pytest.approx(500 * 150 * 12, rel=EXACT)
    assert result["capex"]["by_part_usd"]["facility"] == 0.0  # colocation: nothing built


def test_colocation_price_comes_from_override_then_catalog_region_then_assumption():
    base = example("dgx-h100-superpod-4su")
    base["regions"]["sites"][0].pop("colocation_usd_per_kw_month")
    facility = {"it_power_kw": 1000.0}
    from_catalog = evaluate_cost(base, facility=facility)
    (line,) = lines_of(from_catalog, "colocation")
    assert line["unit_price_usd"] == pytest.approx(200 * 12)  # us-va-ashburn, CBRE Mar 2025
    assert line["price_source"] == "catalog:regions/us-va-ashburn"
    assert line["price_date"] == "2025-03"

    overridden = with_changes(
        base, economics={"price_overrides": {"colocation_usd_per_kw_month": 120}}
    )
    (line,) = lines_of(evaluate_cost(overridden, facility=facility), "colocation")
    assert line["total_usd"] == pytest.approx(1000 * 120 * 12, rel=EXACT)

    base["regions"]["sites"][0].pop("catalog_region_id")
    (line,) = lines_of(evaluate_cost(base, facility=facility), "colocation")
    assert line["unit_price_usd"] == pytest.approx(184.06 * 12)
    assert line["price_source"] == "assumption:colocation-usd-per-kw-month"


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
    result = evaluate_cost(example(), load_catalog())
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
    result = evaluate_cost(example(), load_catalog())
    tco = result["tco"]
    assert sum(row["discounted_usd"] for row in tco["by_year"]) == pytest.approx(
        tco["npv_usd"], rel=EXACT
    )
    assert sum(row["cash_usd"] for row in tco["by_year"]) == pytest.approx(
        tco["nominal_usd"], rel=EXACT
    )
    assert tco["npv_usd"] < tco["nominal_usd"]  # 8% discount rate


def test_construction_cost_per_mw_scales_critical_capacity_by_redundancy():
    per_mw = {}
    for redundancy in ("N", "N+1", "2N"):
        doc = with_changes(example(), facility={"power_redundancy": redundancy})
        (line,) = lines_of(
            evaluate_cost(doc, facility={"it_power_kw": 1000.0}), "facility", "capex"
        )
        per_mw[redundancy] = line["unit_price_usd"]
        assert line["total_usd"] == pytest.approx(line["unit_price_usd"], rel=EXACT)  # 1 MW
    assert per_mw["N+1"] == pytest.approx(11.7e6, rel=EXACT)  # C&W 2025 average
    assert per_mw["N"] == pytest.approx(11.7e6 * (0.47 + 0.53 / 1.25), rel=EXACT)
    assert per_mw["2N"] == pytest.approx(11.7e6 * (0.47 + 0.53 * 2 / 1.25), rel=EXACT)


def test_carbon_and_water_identities():
    assert carbon_tco2e(8_760_000.0, 500.0) == pytest.approx(4380.0, rel=EXACT)
    assert water_m3(8_760_000.0, 1.0) == pytest.approx(8760.0, rel=EXACT)
    doc = with_changes(example(), facility={"pue": 1.0, "wue_l_per_kwh": 1.0})
    doc["regions"]["sites"][0]["carbon_gco2e_per_kwh"] = 500
    facility = {"it_power_kw": 1000.0, "annual_energy_mwh": 8760.0}
    result = evaluate_cost(doc, facility=facility)
    assert result["carbon"]["tco2e_per_year"] == pytest.approx(4380.0, rel=EXACT)
    assert result["water"]["m3_per_year"] == pytest.approx(8760.0, rel=EXACT)


# --- traceability -------------------------------------------------------------------------------

DATED_KINDS = {"catalog", "assumption"}
USER_KINDS = {"override", "design"}


def _assert_traced(trace: dict, where: str) -> None:
    source = trace["price_source"]
    kind = source.split(":", 1)[0]
    if kind == "derived":
        assert trace["derived_from"], where
        for item in trace["derived_from"]:
            _assert_traced(item, where)
        return
    assert kind in DATED_KINDS | USER_KINDS | {"included"}, f"{where}: {source}"
    if kind in DATED_KINDS:
        assert trace["price_date"], f"{where}: {source} has no date"
        assert re.fullmatch(r"\d{4}(-\d{2}){0,2}", trace["price_date"]), where
        assert trace["source_title"], f"{where}: {source} has no source title"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_price_used_has_a_dated_source_or_is_a_user_figure(path):
    result = evaluate_cost(json.loads(path.read_text()), load_catalog())
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
    assert len(assumptions.entries) >= 20
    for entry in assumptions.entries.values():
        assert entry.sources, entry.id
        for source in entry.sources:
            assert re.fullmatch(r"\d{4}(-\d{2}){0,2}", source.date), entry.id
            assert source.title and source.ref, entry.id


# (assumption id, key, value, text that must appear in cost.md, relative tolerance)
COST_MD_FIGURES = [
    ("construction-usd-per-mw-it", None, 11.7e6, "avg $11.7 M/MW", EXACT),
    ("construction-critical-capacity-share", None, 0.53, "critical capacity 53%", EXACT),
    ("colocation-usd-per-kw-month", None, 184.06, "$184.06/kW-month", EXACT),
    ("energy-load-factor", None, 0.75, "training draw 75% of server TDP", EXACT),
    ("server-price-overhead", "default", 1.64, "1.64", EXACT),
    ("server-price-overhead", "a100", 1.66, "1.66 A100", EXACT),
    ("maintenance-fraction-of-hardware-capex", None, 0.05, "5% of capex per year", EXACT),
    ("fallback-model-flops-utilisation", None, 0.375, "0.375", EXACT),
    ("cloud-commitment-discount", "aws-1yr", 0.41, "AWS 41%/64%", EXACT),
    ("cloud-commitment-discount", "gcp-3yr", 0.56, "GCP 37%/56%", EXACT),
    ("network-allowance-usd-per-gpu", "optics-cables-2-tier", 2560, "$2,560/GPU", EXACT),
    ("network-allowance-usd-per-gpu", "optics-cables-3-tier", 3800, "$3,800/GPU", EXACT),
    ("network-allowance-usd-per-gpu", "switches-2-tier", 1690, "$1,690/GPU", 0.01),
    ("network-allowance-usd-per-gpu", "switches-3-tier", 2810, "$2,810/GPU", 0.01),
    ("facility-ops-fte-per-site", None, 2 * 5, "2 people per shift", EXACT),
    ("server-power-per-gpu-tdp", None, (10.2 / 8) / 0.7, "10.2 kW per 8 GPUs", EXACT),
]


@pytest.mark.parametrize(("assumption_id", "key", "value", "text", "rel"), COST_MD_FIGURES)
def test_assumptions_match_the_cost_reference(assumption_id, key, value, text, rel):
    assert load_assumptions().number(assumption_id, key) == pytest.approx(value, rel=rel)
    if COST_MD.exists():
        assert text.replace(",", "") in COST_MD.read_text().replace(",", "")


def test_a_team_override_replaces_an_assumption_and_is_traced_as_an_override():
    result = evaluate_cost(example(), assumption_overrides={"software-licence-usd-per-gpu-year": 0})
    (line,) = lines_of(result, "licences")
    assert line["total_usd"] == 0.0
    assert line["price_source"] == "override:assumption_overrides.software-licence-usd-per-gpu-year"
    with pytest.raises(ValueError, match="unknown cost assumption"):
        evaluate_cost(example(), assumption_overrides={"no-such-assumption": 1})


# --- unpriced BOM lines ---------------------------------------------------------------------------


def fabric_bom(*extra: dict) -> dict:
    return {
        "bom": [
            {
                "item": "leaf switch",
                "catalog_id": "nvidia-qm9700",
                "category": "switch",
                "quantity": 8,
                "unit_power_w": 747,
                "unit_price_usd": 50000,
            },
            {
                "item": "400G transceiver",
                "catalog_id": "osfp-400g-sr4-mm",
                "category": "optics",
                "quantity": 256,
                "unit_power_w": 8,
                "unit_price_usd": None,
            },
            *extra,
        ]
    }


def test_an_unpriced_bom_line_is_reported_with_a_null_price_not_zeroed():
    mystery = {
        "item": "mystery management switch",
        "catalog_id": "acme-oob-48",
        "category": "switch",
        "quantity": 4,
        "unit_power_w": 100,
        "unit_price_usd": None,
    }
    result = evaluate_cost(example(), fabric=fabric_bom(mystery))
    (line,) = [item for item in result["capex"]["lines"] if item["item"] == mystery["item"]]
    assert line["total_usd"] is None and line["unit_price_usd"] is None
    assert line["price_source"].startswith("unpriced")
    listed = [item["item"] for item in result["capex"]["unpriced_items"]]
    assert mystery["item"] in listed
    assert result["summary"]["unpriced_items_count"] >= 1
    assert result["summary"]["all_lines_priced"] is False
    rows = [row for row in result["flat_table"] if row["item"] == mystery["item"]]
    assert rows and rows[0]["capex_usd"] is None
    priced = sum(item["total_usd"] for item in result["capex"]["lines"] if item["total_usd"])
    assert result["capex"]["total_usd"] == pytest.approx(priced, rel=EXACT)


def test_a_category_with_no_price_at_all_gets_a_sourced_allowance_and_keeps_its_lines():
    result = evaluate_cost(example(), fabric=fabric_bom())
    optics = [item for item in result["capex"]["lines"] if item["item"] == "400G transceiver"]
    assert optics[0]["total_usd"] is None and optics[0]["covered_by_allowance"] is True
    (allowance,) = [
        item for item in result["capex"]["lines"] if item["item"].startswith("allowance")
    ]
    assert allowance["price_source"] == "assumption:network-allowance-usd-per-gpu"
    assert allowance["total_usd"] == pytest.approx(256 * allowance["unit_price_usd"])
    # The priced switch line is used as given; no switch allowance.
    assert not any("switches" in item["item"] for item in result["capex"]["lines"])


def test_nics_inside_a_dgx_price_are_priced_at_zero_as_included():
    result = evaluate_cost(example())
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
    result = evaluate_cost(json.loads(path.read_text()))
    timeline = result["tco_over_time"]
    owned = timeline["owned_cumulative_usd"]
    for term, cloud in timeline["cloud_cumulative_usd"].items():
        month = timeline["breakeven_month"][term]
        crossed = [m for m in range(1, len(owned)) if owned[m] <= cloud[m]]
        assert month == (crossed[0] if crossed else None), term
        if month is not None:
            assert all(owned[m] > cloud[m] for m in range(1, month))


def test_owning_256_h100_breaks_even_against_on_demand_within_the_horizon():
    result = evaluate_cost(example())
    comparison = result["cloud_comparison"]
    on_demand = next(t for t in comparison["terms"] if t["term"] == "on-demand")
    assert on_demand["catalog_id"] == "gcp-a3-highgpu-h100-on-demand"  # all three terms, newest
    assert on_demand["usd_per_gpu_hour"] == 11.06
    assert 1 <= result["summary"]["breakeven_month"] <= 60
    assert comparison["market_range"]["min_usd_per_gpu_hour"] == 2.45


def test_on_demand_bills_utilised_hours_and_committed_terms_bill_every_hour():
    result = evaluate_cost(example())
    terms = {t["term"]: t for t in result["cloud_comparison"]["terms"]}
    hours = 256 * 8760
    assert terms["on-demand"]["billed_gpu_hours_per_year"] == pytest.approx(hours * 0.7)
    assert terms["reserved-3yr"]["billed_gpu_hours_per_year"] == pytest.approx(hours)


def test_missing_committed_prices_are_derived_with_the_published_discounts():
    result = evaluate_cost(example("inference-fleet"))
    terms = {t["term"]: t for t in result["cloud_comparison"]["terms"]}
    assert terms["on-demand"]["catalog_id"] == "aws-p5e-h200-on-demand"
    assert terms["reserved-1yr"]["usd_per_gpu_hour"] == pytest.approx(10.60 * (1 - 0.41))
    assert terms["reserved-3yr"]["usd_per_gpu_hour"] == pytest.approx(10.60 * (1 - 0.64))
    assert terms["reserved-3yr"]["price_source"].startswith("derived")


def test_a_cloud_design_rents_at_its_override_and_costs_per_million_tokens():
    result = evaluate_cost(example("inference-fleet"))
    assert result["summary"]["cloud_term"] == "override"
    assert result["summary"]["capex_usd"] == 0.0
    assert result["capex"]["applies_to_design"] is False
    rental = result["cloud_rental"]["lines"][0]
    assert rental["unit_price_usd"] == 6.3
    assert rental["quantity"] == pytest.approx(512 * 8760)  # reserved: every hour
    inference = result["inference"]
    tokens = 150_000 * 3600 * 8760 * 0.6
    assert inference["tokens_per_year"] == pytest.approx(tokens)
    assert inference["cost_per_million_tokens_usd"] > 0
    assert {row["input"] for row in result["sensitivity"]["rows"]} >= {"cloud_usd_per_gpu_hour"}


# --- results of other engines -------------------------------------------------------------------


def test_other_engine_results_are_used_when_given():
    result = evaluate_cost(
        example(),
        fabric=fabric_bom(),
        facility={"power": {"it_kw": 400.0}, "pue": 1.3, "annual_energy_mwh": 3000.0},
        storage={"tiers": [{}, {"usable_tb": 1000.0, "raw_tb": 1300.0}]},
        performance={"time_to_train_days": 10.0},
        reliability={
            "goodput": 0.9,
            "hot_spare_nodes": 2,
            "components": [
                {"component": "optics", "failures_per_year": 12.0},
                {"component": "gpu", "failures_per_year": 30.0},
            ],
        },
        regions={"egress": {"usd_per_month": 1000.0}},
    )
    derived = {item["input"] for item in result["derived_inputs"]}
    assert not derived & {"bom", "it_power_kw", "time_to_train_days", "goodput"}
    assert "storage.tiers.1.raw_tb" not in derived
    assert result["inputs"]["it_power_kw"] == 400.0
    run = result["training_run"]
    assert run["time_to_train_days"] == 10.0
    assert run["wall_clock_days"] == pytest.approx(10.0 / 0.9)
    assert run["cost_usd"] == pytest.approx(
        256 * 10 * 24 * result["summary"]["cost_per_delivered_gpu_hour_usd"]
    )
    assert opex_part(result, "wan_egress") == pytest.approx(12_000.0)
    (spares,) = lines_of(result, "spares", "capex")
    assert spares["quantity"] == 2
    storage = [line for line in lines_of(result, "storage", "capex") if line.get("raw_tb") == 1300]
    assert storage and storage[0]["quantity"] == 1300.0
    covered = result["opex"]["replacement_covered_by_maintenance"]
    assert covered == [{"component": "gpu", "failures_per_year": 30.0, "covered_by": "maintenance"}]
    (optics,) = lines_of(result, "replacement_parts")
    assert optics["quantity"] == pytest.approx(12.0)  # optics failures per year, unpriced
    assert optics["total_usd"] is None
    delivered = 256 * 8760 * 0.7 * 0.9
    assert result["unit_costs"]["delivered_gpu_hours_per_year"] == pytest.approx(delivered)


def test_absent_engine_results_are_derived_and_listed():
    result = evaluate_cost(example())
    derived = {item["input"] for item in result["derived_inputs"]}
    assert {"bom", "it_power_kw", "time_to_train_days", "goodput"} <= derived
    # 32 DGX H100 at 10.2 kW plus the network BOM.
    assert result["inputs"]["it_power_kw"] > 32 * 10.2


def test_gpu_price_override_replaces_the_gpu_content_of_a_catalog_system():
    doc = with_changes(example(), economics={"price_overrides": {"gpu_price_usd": 21_000}})
    (line,) = lines_of(evaluate_cost(doc), "compute", "capex")
    assert line["unit_price_usd"] == pytest.approx(375_000 - 8 * 31_250 + 8 * 21_000)
    assert line["price_source"] == (
        "derived: catalog:systems/dgx-h100 x override:economics.price_overrides.gpu_price_usd"
    )


def test_a_custom_gpu_is_priced_from_the_design_with_host_content():
    result = evaluate_cost(example("l40s-custom-gpu-finetune"))
    gpu, hosts = lines_of(result, "compute", "capex")
    assert gpu["unit_price_usd"] == 8000 and gpu["quantity"] == 64
    assert gpu["price_source"] == "design:compute.custom_gpu.price_usd"
    assert hosts["unit_price_usd"] == pytest.approx(8000 * 0.64)


# --- every example --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_evaluates_to_plain_json(path):
    doc = json.loads(path.read_text())
    result = evaluate_cost(doc, load_catalog())
    assert set(result) == TOP_LEVEL_KEYS
    json.dumps(result, allow_nan=False)
    summary = result["summary"]
    assert summary["tco_npv_usd"] > 0 and summary["cost_per_delivered_gpu_hour_usd"] > 0
    assert summary["carbon_tco2e_per_year"] > 0 and summary["water_m3_per_year"] >= 0
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
    result = evaluate_cost(example("two-region-hierarchical"))
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
    result = evaluate_cost(example())
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
    result = evaluate_cost(doc)
    (rental,) = result["cloud_rental"]["lines"][:1]
    assert rental["total_usd"] is None
    assert any("cloud_usd_per_gpu_hour" in text for text in result["summary"]["warnings"])
    assert result["summary"]["all_lines_priced"] is False


def test_cost_reads_the_results_the_other_engines_actually_return():
    """Runs the fabric, storage, facility, reliability and regions engines of this repository
    and checks that the cost engine takes its figures from them instead of deriving them."""
    from models_engine.spec import parse_design

    try:
        from models_engine.engines.fabric import evaluate_fabric
        from models_engine.engines.facility import evaluate_facility
        from models_engine.engines.regions import evaluate_regions
        from models_engine.engines.reliability import evaluate_reliability
        from models_engine.engines.storage import evaluate_storage
    except ImportError as exc:  # engines written concurrently
        pytest.skip(f"engine not available: {exc}")
    catalog = load_catalog()
    spec = parse_design(example("two-region-hierarchical"))
    fabric = evaluate_fabric(spec, catalog)
    storage = evaluate_storage(spec, catalog)
    facility = evaluate_facility(spec, catalog, fabric=fabric, storage=storage)
    reliability = evaluate_reliability(
        spec, catalog, fabric=fabric, storage=storage, facility=facility
    )
    regions = evaluate_regions(spec, catalog, storage=storage)
    result = evaluate_cost(
        spec,
        catalog,
        fabric=fabric,
        facility=facility,
        storage=storage,
        reliability=reliability,
        regions=regions,
    )
    derived = {item["input"] for item in result["derived_inputs"]}
    assert not derived & {"bom", "it_power_kw", "goodput", "egress_usd_per_month"}
    assert not any(name.startswith("storage.tiers") for name in derived)
    assert result["inputs"]["it_power_kw"] == facility["power"]["it_kw"]["total"]
    assert result["inputs"]["goodput"] == reliability["goodput"]
    (spares,) = lines_of(result, "spares", "capex")
    assert spares["quantity"] == reliability["hot_spares"]["spare_nodes"]
    bom_items = {line["item"] for line in fabric["bom"]}
    assert bom_items <= {line["item"] for line in result["capex"]["lines"]}
    assert opex_part(result, "wan_egress") == pytest.approx(
        12 * regions["egress"]["total_usd_per_month"], rel=EXACT
    )
