"""Capex completeness: allowances are listed and counted, a line added to the BOM never makes
capex drop, and a switch with no published figures is never counted as $0 and 0 W."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.engines.cost import evaluate_cost
from models_engine.engines.fabric.result import BomLine
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
XDR_PARTS = {
    "technology": "infiniband-xdr",
    "switch_sku": "nvidia-q3400",
    "nic_sku": "cx8-xdr-800g",
    "nic_speed_gbps": 800,
}


def _doc(gpus: int | None = None, fabric: dict | None = None) -> dict:
    doc = json.loads((EXAMPLES / "dgx-h100-superpod-4su.json").read_text())
    doc["workload"]["parallelism"] = "auto"
    if gpus:
        doc["compute"]["gpu_count"] = gpus
    doc["fabric"].update(fabric or {})
    return doc


@cache
def _results(gpus: int | None = None, xdr: bool = False):
    valid = validate_design(_doc(gpus, XDR_PARTS if xdr else None))
    return valid, run_engines(valid.spec, valid.catalog, valid.gpu)


def _cost_with_bom(extra_lines: list[BomLine], gpus: int | None = None, xdr: bool = False):
    valid, results = _results(gpus, xdr)
    fabric = results["fabric"]
    fabric = fabric.model_copy(update={"bom": [*fabric.bom, *extra_lines]})
    engines = {k: results[k] for k in ("facility", "storage", "performance", "regions")}
    return evaluate_cost(
        valid.spec, valid.catalog, fabric=fabric, reliability=results["reliability"], **engines
    )


def _line(category, network, catalog_id, quantity, unit_price, site) -> BomLine:
    total = None if unit_price is None else unit_price * quantity
    return BomLine(
        item=f"added {network} {category} {catalog_id}",
        catalog_id=catalog_id,
        category=category,
        network=network,
        quantity=quantity,
        unit_power_w=None,
        unit_power_max_w=None,
        unit_price_usd=unit_price,
        total_power_w=None,
        total_power_max_w=None,
        total_price_usd=total,
        placement=None,
        rack_units=None,
        note=None,
        site=site,
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    category=st.sampled_from(["switch", "transceiver", "cable", "nic"]),
    network=st.sampled_from(["compute", "storage", "frontend"]),
    catalog_id=st.sampled_from([None, "nvidia-qm9700", "nvidia-q3400", "osfp-400g-sr4-mm"]),
    quantity=st.integers(min_value=1, max_value=500),
    unit_price=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1e5)),
)
def test_capex_never_drops_when_a_bom_line_is_added(
    category, network, catalog_id, quantity, unit_price
):
    """A priced line adds its price (a category allowance shrinks by at most that much); an
    unpriced line adds an allowance or nothing."""
    before = _cost_with_bom([]).summary.capex_usd
    site = _results()[1]["fabric"].bom[0].site
    line = _line(category, network, catalog_id, quantity, unit_price, site)
    after = _cost_with_bom([line]).summary.capex_usd
    assert after >= before - 1e-6


def test_a_priced_compute_optic_shrinks_the_category_allowance_not_the_total():
    """No catalog optic has a price: the per-GPU optics-and-cables allowance covers the XDR
    compute fabric's transceivers and cables ($2,560 x 4,096 GPUs at two tiers). A team-priced
    transceiver line of $10k replaces $10k of allowance: capex stays the same, where it used to
    drop by the whole allowance."""
    site = _results(4096, True)[1]["fabric"].bom[0].site
    base = _cost_with_bom([], 4096, True)
    line = _line("transceiver", "compute", None, 1, 10_000.0, site)
    added = _cost_with_bom([line], 4096, True)
    assert abs(added.summary.capex_usd - base.summary.capex_usd) < 1e-3
    lines = added.capex["lines"]
    allowance = [line for line in lines if line.get("allowance") and "optics" in line["item"]]
    assert [line["total_usd"] for line in allowance] == [2560 * 4096 - 10_000.0]


def test_completeness_lists_every_allowance_and_the_priced_share():
    cost = _results(4096, True)[1]["cost"]
    complete = cost.completeness
    lines = cost.capex["lines"]
    allowance_total = sum(line["total_usd"] for line in lines if line.get("allowance"))
    assert complete["allowance_usd"] == allowance_total
    assert len(complete["allowance_lines"]) == cost.summary.allowance_lines_count > 0
    share = (complete["total_usd"] - allowance_total) / complete["total_usd"]
    assert cost.summary.capex_priced_share_by_value == share
    assert 0 < share < 1
    listed = {item["item"] for item in complete["unpriced_not_covered"]}
    assert len(listed) <= cost.summary.unpriced_not_covered_count
    assert complete["complete"] is (cost.summary.unpriced_not_covered_count == 0)


def test_an_xdr_switch_without_published_figures_is_never_zero_watts_or_zero_dollars():
    """Quantum-X800 Q3400 has no published price or power: its BOM lines carry a power
    allowance scaled from the QM9700 by switching capacity (115.2 / 25.6 = 4.5 x 747 W =
    3,361.5 W typical), and every Q3400 line is priced at the per-Tb/s allowance
    (115.2 x $1,406.25 = $162,000)."""
    results = _results(4096, True)[1]
    q3400 = [line for line in results["fabric"].bom if line.catalog_id == "nvidia-q3400"]
    assert q3400
    for line in q3400:
        assert line.unit_power_w == 747 * 4.5
        assert line.note.startswith("allowance:")
    priced = [
        line for line in results["cost"].capex["lines"] if line["catalog_id"] == "nvidia-q3400"
    ]
    assert {line["item"].split(" ")[0] for line in priced} == {"compute", "storage"}
    for line in priced:
        assert line["unit_price_usd"] == 115.2 * 1406.25
        assert line["allowance"] is True


def test_xdr_is_not_cheaper_in_network_capex_for_lack_of_figures():
    """The same 4,096 GPUs on XDR: every Q3400 line is priced by an allowance or covered by
    the compute-fabric category allowance, none is counted as $0 silently."""
    cost = _results(4096, True)[1]["cost"]
    uncovered = {item["item"] for item in cost.completeness["unpriced_not_covered"]}
    assert not any("Q3400" in item for item in uncovered)
