"""One model of cable reach: the fabric engine picks each link class's medium and modules for
the longest run of the floor the spec's `physical` section states (models_engine/cable_runs.py),
and the physical plan measures every run with the same length model against what that medium
reaches. No example design has a reach error; a run beyond the chosen medium still errors,
naming the field; the BOM's modules (and so their prices) follow the chosen medium."""

import json
from pathlib import Path

import pytest

from models_engine.engines.fabric import compute as fabric_compute
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ONLY = ("fabric", "network", "storage_supply", "performance", "storage", "facility", "physical")


def plan(name: str, **physical):
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    if physical:
        doc["physical"] = {**doc.get("physical", {}), **physical}
    design = validate_design(doc)
    return design.catalog, run_engines(design.spec, design.catalog, design.gpu, only=ONLY)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_no_example_has_a_reach_error(path):
    _, res = plan(path.stem)
    errors = [f for f in res["physical"].findings if f["id"] == "physical-cable-reach"]
    assert errors == []
    for site in res["physical"].sites:
        assert all(row.max_length_m <= row.reach_m for row in site.cables)


def test_16k_floor_of_three_halls_buys_single_mode_that_reaches():
    """1,024 compute racks (2 DGX-class nodes per rack) x 1.1 + 8 positions = 1,135 positions
    = 57 rows of 20 = 3 halls of 20 rows. Longest run: 2 x (42U x 0.04445 + 0.3 tray) rise
    + 2 x (19 x 0.6 + 19 x 2.4 = 57 m to the hall entrance) + 2 x 60 m between halls
    = 238.5 m, + 10 % slack = 262 m -> 300 m standard length: beyond multimode (50 m), so every
    link class that leaves a rack is single-mode, with modules of at least 300 m reach (DR4
    500 m; the 100 m DR4 parts do not qualify)."""
    catalog, res = plan("llama3-16k-h100-roce")
    site = res["fabric"].sites[0]
    for group in site.scale_out.links.values():
        assert (group.medium, group.reach_class_m) == ("single-mode", 300.0)
        assert group.reach_m >= 300.0
    for line in res["fabric"].bom:
        if line.category == "transceiver" and line.catalog_id:
            optic = catalog.optics[line.catalog_id]
            assert (optic.fiber, optic.reach_m >= 300.0) == ("single-mode", True), line.item
    physical = res["physical"].sites[0]
    assert physical.halls == 3
    longest = max(row.max_length_m for row in physical.cables)
    assert 150.0 <= longest <= 300.0


def test_stated_type_shorter_than_the_runs_is_an_error_naming_the_field():
    """Multimode stated for leaf-spine on the 3-hall floor: cross-hall runs exceed 50 m."""
    _, res = plan("llama3-16k-h100-roce", cable_types={"leaf_spine": "fibre-multimode"})
    errors = [f for f in res["physical"].findings if f["id"] == "physical-cable-reach"]
    assert [f["path"] for f in errors] == ["physical.cable_types.leaf_spine"]
    assert "50 m" in errors[0]["message"]


def test_floor_larger_than_the_fabric_bought_for_is_an_error(monkeypatch):
    """If the fabric's floor estimate were too small (no allowance, a tenth of the racks), it
    would buy multimode; the physical plan measures the real 3-hall floor and errors on every
    link class that leaves a hall, the aux networks' errors naming the floor field."""
    monkeypatch.setattr(fabric_compute, "FLOOR_POSITIONS_PER_COMPUTE_RACK", 0.02)
    monkeypatch.setattr(fabric_compute, "FLOOR_EXTRA_POSITIONS", 0)
    _, res = plan("llama3-16k-h100-roce")
    errors = [f for f in res["physical"].findings if f["id"] == "physical-cable-reach"]
    paths = {f["path"] for f in errors}
    assert "physical.cable_types.leaf_spine" in paths
    assert "physical.racks_per_row" in paths  # frontend / storage links


def test_module_prices_follow_the_medium():
    """The 256-GPU starter on its default floor (16 compute racks x 1.1 + 8 = 26 positions,
    2 rows: 2 x 2.17 m rise + 19 x 0.6 + 2.4 = 18.1 m, + 10 % -> 20 m) buys multimode SR4; in
    rows of 2 racks 10 m apart (13 rows: 2 x 2.17 + 0.6 + 12 x 10 = 124.9 m, + 10 % = 137 m
    -> 150 m) it buys single-mode modules of >= 150 m reach, each BOM line priced as its
    catalog module."""
    catalog, near = plan("h100-256-onprem-starter")
    _, far = plan("h100-256-onprem-starter", racks_per_row=2, row_pitch_m=10.0)

    def modules(res):
        return {
            line.catalog_id: line
            for line in res["fabric"].bom
            if line.category == "transceiver" and line.network == "compute" and line.catalog_id
        }

    assert {catalog.optics[i].fiber for i in modules(near)} == {"multimode"}
    assert {catalog.optics[i].fiber for i in modules(far)} == {"single-mode"}
    for optic_id, line in modules(far).items():
        assert catalog.optics[optic_id].reach_m >= 150.0
        assert line.unit_price_usd == catalog.optics[optic_id].price_usd
    assert far["fabric"].sites[0].scale_out.links["leaf_spine"].reach_class_m == 150.0
