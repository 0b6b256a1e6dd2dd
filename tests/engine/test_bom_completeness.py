"""Every BOM line of every example design has a price and a power figure from the catalog, a
team quote or design price, or an allowance that says so ("allowance" in its item or note):
no headline capex or power silently leaves a line out."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from models_engine.catalog import load_catalog
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))
# Power bases that carry no watts on the line by construction: the system's max power already
# counts the part (NICs inside a DGX), or the equipment is a carrier's, not on site.
POWER_ELSEWHERE = {"in-system", "external"}


@cache
def _results(path: Path):
    valid = validate_design(json.loads(path.read_text()))
    return run_engines(valid.spec, valid.catalog, valid.gpu)


def _marked(line: dict) -> bool:
    text = f"{line.get('item', '')} {line.get('note') or ''}"
    return "allowance" in text


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_no_example_bom_line_is_unpowered_without_a_mark(path):
    for line in _results(path)["fabric"].bom:
        if line.unit_power_w is None:
            assert line.power_basis in POWER_ELSEWHERE, (line.item, line.power_basis)
        elif line.power_basis == "allowance":
            assert line.note and line.note.startswith("allowance"), line.item
        else:
            allowed = ("catalog", "passive", *POWER_ELSEWHERE)
            assert line.power_basis in allowed, (line.item, line.power_basis)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_no_example_capex_line_is_unpriced_without_an_allowance(path):
    cost = _results(path)["cost"]
    for line in cost.capex["lines"]:
        if line.get("allowance"):
            assert _marked(line), line["item"]
            assert line["total_usd"] is not None and line["total_usd"] >= 0
            continue
        if line.get("covered_by_allowance"):
            continue  # priced inside its category's allowance line (marked above)
        assert line["total_usd"] is not None, line["item"]
    assert cost.completeness["unpriced_not_covered"] == []
    assert cost.summary.unpriced_not_covered_count == 0
    assert cost.completeness["complete"] is True


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_the_headline_share_counts_every_allowance(path):
    """Priced share by value = (capex - allowance lines) / capex, and every allowance line is
    listed with its source (the results page shows both)."""
    cost = _results(path)["cost"]
    complete = cost.completeness
    if not complete["total_usd"]:
        return  # a cloud-rented design buys nothing
    allowance = sum(
        line["total_usd"] or 0.0 for line in cost.capex["lines"] if line.get("allowance")
    )
    assert complete["allowance_usd"] == pytest.approx(allowance)
    assert cost.summary.capex_priced_share_by_value == pytest.approx(
        (complete["total_usd"] - allowance) / complete["total_usd"]
    )
    assert all(item["price_source"] for item in complete["allowance_lines"])


def test_new_catalog_parts_have_ports_speeds_and_dated_sources():
    """The issue-15 parts are in the catalog with their port arithmetic and dated sources."""
    catalog = load_catalog()
    q3400, sn5600 = catalog.switches["nvidia-q3400"], catalog.switches["nvidia-sn5600"]
    assert q3400.switching_capacity_tbit_per_s == pytest.approx(115.2)
    assert sn5600.switching_capacity_tbit_per_s == pytest.approx(51.2)
    chassis = catalog.switches["arista-7816r4"]
    assert (chassis.radix_ports, chassis.port_speed_gbit_per_s) == (576, 800)
    th5 = catalog.switches["arista-7060x6-64pe"]
    assert th5.breakout_ports * th5.breakout_port_speed_gbit_per_s == 51_200
    for nic_id in ("cx7-ndr-400g", "cx8-xdr-800g", "bf3-400g", "broadcom-thor2-400g"):
        assert catalog.nics[nic_id].line_rate_gbit_per_s >= 400
    assert catalog.nics["amd-pollara-400g"].line_rate_gbit_per_s == 400
    reach = {optic_id: catalog.optics[optic_id].reach_m for optic_id in catalog.optics}
    assert reach["osfp-800g-2xfr4-sm"] == 2000 > reach["osfp-800g-2xdr4-500m-sm"] == 500
    assert reach["dac-800g-twin-osfp"] < reach["acc-800g-splitter"] < reach["aec-800g-osfp"]
    for storage_id in ("ddn-ai400x2-turbo", "vast-ceres-dbox", "weka-data-platform"):
        entry = catalog.storage[storage_id]
        assert entry.price_usd_per_tb and entry.price_allowance  # priced, and marked as such
    for kind in ("switches", "nics", "optics", "storage"):
        for entry in getattr(catalog, kind).values():
            assert entry.sources and all(source.date for source in entry.sources)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_fabric_power_says_how_much_is_allowance(path):
    """The fabric's power totals name the watts that rest on allowances (the results page shows
    them on the IT power card) and count lines with no figure at all (none in the examples)."""
    fabric = _results(path)["fabric"]
    allowance = sum(
        line.total_power_max_w or 0.0 for line in fabric.bom if line.power_basis == "allowance"
    )
    assert fabric.power_w.allowance_max_w == pytest.approx(allowance)
    assert fabric.power_w.allowance_max_w <= fabric.power_w.total_max_w + 1e-9
    assert fabric.power_w.lines_without_power == 0
