"""Facility engine: racks, IT and facility power, PUE, redundancy, cooling feasibility, water.

Figures under test (fabric_power.md): DGX H100 10.2 kW max [S21] -> 32 x 10.2 = 326.4 kW per SU
(derived); DGX B200 14.3 kW, 2 per rack = 28.6 kW and 4 per rack = 57.2 kW [S20]; NVL72 is a
rack of its own; facility kW = IT kW x PUE [S44]; 2N installs twice the load [S48][S49].
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design
from tests.engine.fabric_designs import cluster_facility, design_doc, example_doc, site_fabric


def _facility(doc, **kwargs) -> dict:
    """The stored JSON of a one-site design's facility."""
    return cluster_facility(doc, **kwargs).primary.to_json()


def test_dgx_h100_scalable_unit_draws_326_4_kw():
    out = cluster_facility(design_doc(nodes=127)).primary
    assert out.power.systems_kw_per_scalable_unit == pytest.approx(32 * 10.2)
    assert out.power.systems_kw == pytest.approx(127 * 10.2)
    it = out.power.it_kw
    assert it.gpus == pytest.approx(127 * 8 * 0.7)
    assert it.gpus + it.hosts == pytest.approx(127 * 10.2)


@pytest.mark.parametrize(("limit_kw", "per_rack", "rack_kw"), [(30, 2, 28.6), (60, 4, 57.2)])
def test_dgx_b200_rack_profiles(limit_kw, per_rack, rack_kw):
    doc = design_doc(
        nodes=32,
        compute={"gpu_sku": "b200-sxm-180gb", "system_sku": "dgx-b200"},
        facility={"rack_power_limit_kw": limit_kw, "cooling": "direct-to-chip"},
    )
    summary = _facility(doc)["rack_summary"]
    assert summary["systems_per_rack"] == per_rack
    assert summary["compute_rack_kw"] == pytest.approx(rack_kw)
    assert summary["compute_racks"] == 32 // per_rack


def test_nvl72_is_a_whole_rack():
    out = _facility(example_doc("gb200-nvl72-multirack"))
    assert out["rack_summary"]["compute_racks"] == 576 // 72
    assert out["rack_summary"]["nodes_per_rack"] == 18
    compute = [rack for rack in out["racks"] if rack["kind"] == "compute"]
    assert compute[0]["kw"] == pytest.approx(120)
    assert compute[0]["units_used"] == compute[0]["units_total"]


def test_pue_arithmetic_and_annual_energy():
    out = _facility(example_doc("dgx-h100-superpod-4su"))  # pue 1.35 given
    power = out["power"]
    assert power["pue"] == 1.35 and power["pue_source"] == "given"
    assert power["facility_kw"] == pytest.approx(power["it_kw"]["total"] * 1.35)
    energy_kw = power["it_kw"]["energy_basis_total"] * 1.35
    assert power["annual_mwh"] == pytest.approx(energy_kw * 8760 / 1000)
    assert power["annual_mwh_at_peak"] == pytest.approx(power["facility_kw"] * 8.76)


@pytest.mark.parametrize(
    ("cooling", "climate", "expected"),
    [
        ("direct-to-chip", "temperate", 1.2),
        ("air", "temperate", 1.58),
        ("air", "cold", 1.58 - 0.25 * 0.4),
        ("air", "hot-humid", 1.6),  # 1.68 clamped to the catalog's pue_max for air
    ],
)
def test_pue_from_cooling_type_and_climate(cooling, climate, expected):
    doc = design_doc(
        facility={"pue": None, "cooling": cooling, "climate": climate, "rack_power_limit_kw": 30}
    )
    assert _facility(doc)["power"]["pue"] == pytest.approx(expected)


@pytest.mark.parametrize(("redundancy", "factor"), [("N", 1.0), ("2N", 2.0)])
def test_redundancy_installed_capacity(redundancy, factor):
    doc = design_doc(facility={"power_redundancy": redundancy, "cooling_redundancy": redundancy})
    out = _facility(doc)
    load = out["power"]["it_kw"]["total"]
    assert out["redundancy"]["power"]["installed_kw"] == pytest.approx(load * factor)
    assert out["redundancy"]["cooling"]["installed_kw"] == pytest.approx(load * factor)


def test_n_plus_one_adds_one_module():
    doc = design_doc(facility={"power_redundancy": "N+1"})
    power = _facility(doc)["redundancy"]["power"]
    n = power["modules_needed"]
    assert power["installed_kw"] == pytest.approx(power["load_kw"] * (n + 1) / n)
    assert power["installed_kw"] - power["load_kw"] == pytest.approx(power["module_kw"])


def test_finding_when_rack_exceeds_cooling_and_thresholds_are_configurable():
    # 4 DGX H100 per rack = 40.8 kW against air's 35 kW (Schneider [S38]) in the catalog
    doc = design_doc(facility={"rack_power_limit_kw": 42, "cooling": "air"})
    out = _facility(doc)
    assert out["cooling"]["max_rack_kw_design"] == pytest.approx(40.8)
    ids = {f["id"]: f for f in out["findings"]}
    assert ids["facility-cooling-exceeded"]["severity"] == "error"
    assert ids["facility-cooling-exceeded"]["path"] == "facility.cooling"
    relaxed = _facility(doc, cooling_thresholds_kw={"air": 40.8})
    assert relaxed["cooling"]["feasible"]
    assert "facility-cooling-exceeded" not in {f["id"] for f in relaxed["findings"]}
    holds = {row["cooling"]: row["holds_design"] for row in out["cooling"]["feasibility"]}
    # An active rear door holds 75 kW (HPE Motivair door QuickSpecs via the catalog).
    assert holds == {"air": False, "rear-door-hx": True, "direct-to-chip": True, "immersion": True}


def test_rear_door_ranks_above_plain_air_and_is_chosen_when_air_cannot_hold_the_rack():
    catalog_rows = _facility(design_doc())["cooling"]["feasibility"]
    limits = {row["cooling"]: row["max_rack_kw"] for row in catalog_rows}
    assert limits["rear-door-hx"] > limits["air"]
    doc = design_doc(facility={"rack_power_limit_kw": 42})  # 4 x 10.2 = 40.8 kW racks
    doc["facility"].pop("cooling")
    auto = _facility(doc)
    assert auto["cooling"]["cooling"] == "rear-door-hx"
    assert auto["cooling"]["cooling_source"].startswith("first cooling that holds")
    assert auto["cooling"]["liquid_loop"]["cdus"] == 0  # doors take facility water directly


def test_a_liquid_system_in_an_air_hall_stops_with_one_error_naming_the_cooling():
    doc = example_doc("gb200-nvl72-multirack")
    doc["facility"].update({"cooling": "air"})
    with pytest.raises(SpecValidationError) as caught:
        validate_design(doc)
    assert [e["path"] for e in caught.value.errors] == ["facility.cooling"]
    assert caught.value.errors[0]["allowed"] == {"one_of": ["direct-to-chip", "immersion"]}


def test_a_liquid_system_with_no_cooling_given_gets_direct_to_chip_and_its_water_loop():
    doc = example_doc("gb200-nvl72-multirack")
    doc["facility"].pop("cooling")
    doc["facility"].pop("pue")
    out = _facility(doc)
    cooling = out["cooling"]
    assert cooling["cooling"] == "direct-to-chip"
    assert cooling["cooling_source"] == "system needs liquid at the chip"
    assert out["power"]["pue"] < 1.3  # liquid PUE, not the 1.58 air fallback
    loop = cooling["liquid_loop"]
    # Q = m c_p dT: 1 kW at 10 K is 60 / 41.86 = 1.433 L/min.
    assert loop["facility_water_l_per_min"] == pytest.approx(
        cooling["liquid_heat_kw"] * 60 / (4.186 * 10)
    )
    assert loop["cdus"] >= 1


@pytest.mark.parametrize("rack_kw", [130.0, 140.0])
def test_gb300_class_racks_of_130_to_140_kw_are_expressible_on_direct_to_chip(rack_kw):
    doc = example_doc("gb200-nvl72-multirack")
    doc["facility"].update({"rack_power_limit_kw": rack_kw})
    out = _facility(doc)
    assert out["cooling"]["feasible"]
    assert "facility-cooling-exceeded" not in {f["id"] for f in out["findings"]}


def test_liquid_fraction_and_water():
    out = _facility(example_doc("gb200-nvl72-multirack"))  # DLC, WUE 0.3 given
    cooling = out["cooling"]
    compute_kw = 8 * 120
    assert cooling["liquid_heat_kw"] == pytest.approx(compute_kw * cooling["liquid_heat_fraction"])
    annual_it_kwh = out["power"]["it_kw"]["energy_basis_total"] * 8760
    assert cooling["water_m3_per_year"] == pytest.approx(0.3 * annual_it_kwh / 1000)


def test_it_power_split_includes_network_gear_from_the_fabric():
    out = _facility(design_doc(nodes=127))
    it = out["power"]["it_kw"]
    assert it["switches"] > 0 and it["optics"] > 0
    parts = it["gpus"] + it["hosts"] + it["switches"] + it["optics"] + it["storage"]
    assert it["total"] == pytest.approx(parts)
    assert out["rack_summary"]["network_racks"] >= 1


def test_rack_elevations_describe_items_and_kw_against_the_limit():
    out = _facility(design_doc(nodes=127, facility={"rack_power_limit_kw": 42}))
    for rack in out["racks"]:
        assert rack["kw"] == pytest.approx(sum(item["kw"] for item in rack["items"]))
        assert rack["kw"] <= rack["limit_kw"]
        assert rack["units_used"] <= rack["units_total"]
    compute = [rack for rack in out["racks"] if rack["kind"] == "compute"]
    assert sum(rack["count"] for rack in compute) == 32  # 127 nodes, 4 per rack
    assert out["rack_summary"]["total_racks"] == sum(rack["count"] for rack in out["racks"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.integers(min_value=1, max_value=4000),
    extra=st.integers(min_value=0, max_value=500),
    limit=st.sampled_from([15.0, 22.0, 30.0, 42.0, 60.0, 120.0]),
)
def test_racks_respect_the_limit_and_grow_with_gpus(nodes, extra, limit):
    small = _facility(design_doc(nodes=nodes, facility={"rack_power_limit_kw": limit}))
    large = _facility(design_doc(nodes=nodes + extra, facility={"rack_power_limit_kw": limit}))
    assert large["rack_summary"]["total_racks"] >= small["rack_summary"]["total_racks"]
    assert large["power"]["it_kw"]["total"] >= small["power"]["it_kw"]["total"]
    for rack in small["racks"]:
        assert rack["kw"] <= limit or rack["items"][0]["kw"] > limit


@pytest.mark.parametrize(
    ("power", "cooling", "tier"),
    [
        ("N", "N", "I"),
        ("2N", "N", "I"),
        ("N+1", "N+1", "III"),
        ("2N", "N+1", "III"),
        ("2N", "2N", "IV"),
    ],
)
def test_uptime_tier_follows_the_weaker_system(power, cooling, tier):
    doc = design_doc(facility={"power_redundancy": power, "cooling_redundancy": cooling})
    assert _facility(doc)["redundancy"]["uptime_tier_indicative"]["tier"] == tier


def test_a_100k_h100_cluster_needs_about_150_mw():
    # SemiAnalysis "100k cluster" opening: ~150 MW (cost.md, public outline [P]); tolerance 10%.
    doc = design_doc("llama3-16k-h100-roce")
    doc["compute"]["gpu_count"] = 100_000
    facility = cluster_facility(doc)  # PUE 1.1 given
    assert facility.totals.facility_kw / 1000 == pytest.approx(150, rel=0.10)
    assert facility.totals.compute_racks == 12_500 // 2  # 2 x 10.2 kW under 25 kW
    assert facility.primary.power.facility_kw == facility.totals.facility_kw  # one site


def test_optics_without_a_published_power_still_draw_power():
    """At 2,177 DGX H100 in 15 kW racks the hall is long enough for the leaf-spine links to
    need 2 km FR4 modules, whose catalog entry has no published power. They draw the
    single-mode estimate as a marked allowance; before, they drew nothing and the site's IT
    power fell by ~1 MW when three nodes were added (found by the property test above)."""
    limit = {"rack_power_limit_kw": 15.0}
    fabric = site_fabric(design_doc(nodes=2177, facility=limit))
    optics = [line for line in fabric.bom if line.category == "transceiver"]
    assert optics and all(line.unit_power_max_w for line in optics)
    fr4 = [line for line in optics if line.catalog_id == "osfp-800g-2xfr4-sm"]
    assert fr4 and all(line.note.startswith("allowance") for line in fr4)
    smaller = _facility(design_doc(nodes=2174, facility=limit))["power"]["it_kw"]
    larger = _facility(design_doc(nodes=2177, facility=limit))["power"]["it_kw"]
    assert larger["optics"] >= smaller["optics"]
    assert larger["total"] >= smaller["total"]
