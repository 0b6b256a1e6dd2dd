"""The line-by-line cost change between two cost results adds up to the headline change and
re-prices nothing."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from models_engine import cost_delta
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dgx-h100-superpod-4su.json"


@cache
def _cost(nodes: int, technology: str = "infiniband-ndr"):
    doc = json.loads(EXAMPLE.read_text())
    doc["workload"]["parallelism"] = "auto"
    doc["compute"]["gpu_count"] = nodes * 8
    if technology == "infiniband-xdr":
        doc["fabric"].update(
            technology="infiniband-xdr",
            switch_sku="nvidia-q3400",
            nic_sku="cx8-xdr-800g",
            nic_speed_gbps=800,
        )
    valid = validate_design(doc)
    return run_engines(valid.spec, valid.catalog, valid.gpu)["cost"]


def test_same_result_has_no_changed_line():
    delta = cost_delta(_cost(127), _cost(127))
    assert delta["capex"]["lines"] == []
    assert delta["capex"]["delta_usd"] == 0
    assert delta["capex"]["unchanged_count"] == len(_cost(127).capex["lines"])


def test_line_deltas_add_up_to_the_capex_change():
    """127 -> 254 DGX H100: 127 more systems at the catalog's $375,000 each, and more fabric;
    every priced line's delta sums to the headline capex change."""
    before, after = _cost(127), _cost(254)
    delta = cost_delta(before, after)["capex"]
    assert delta["total_before_usd"] == pytest.approx(before.summary.capex_usd)
    assert delta["total_after_usd"] == pytest.approx(after.summary.capex_usd)
    assert delta["delta_usd"] == pytest.approx(after.summary.capex_usd - before.summary.capex_usd)
    assert sum(row["delta_usd"] or 0.0 for row in delta["lines"]) == pytest.approx(
        delta["delta_usd"]
    )
    systems = next(row for row in delta["lines"] if row["item"].startswith("NVIDIA DGX H100"))
    assert (systems["quantity_before"], systems["quantity_after"]) == (127, 254)
    assert systems["unit_price_after_usd"] == 375_000
    assert systems["delta_usd"] == pytest.approx(127 * 375_000)
    deltas = [abs(row["delta_usd"] or 0.0) for row in delta["lines"]]
    assert deltas == sorted(deltas, reverse=True)  # biggest change first


def test_a_technology_change_lists_added_and_removed_lines_with_allowances():
    """NDR -> XDR removes the QM9700 lines and adds Q3400 lines priced by the per-Tb/s allowance
    (marked); the totals still add up."""
    delta = cost_delta(_cost(127), _cost(127, "infiniband-xdr"))["capex"]
    statuses = {row["status"] for row in delta["lines"]}
    assert {"added", "removed"} <= statuses
    added = [row for row in delta["lines"] if row["status"] == "added"]
    assert any("Q3400" in row["item"] and row["allowance"] for row in added)
    removed = [row for row in delta["lines"] if row["status"] == "removed"]
    assert any("QM9700" in row["item"] for row in removed)
    assert sum(row["delta_usd"] or 0.0 for row in delta["lines"]) == pytest.approx(
        delta["delta_usd"]
    )


def test_no_cost_result_gives_no_delta():
    assert cost_delta(None, _cost(127)) is None


def test_opex_lines_add_up_to_the_yearly_opex_change():
    before, after = _cost(127), _cost(254)
    opex = cost_delta(before, after)["opex"]
    assert opex["total_before_usd"] == pytest.approx(
        before.opex["total_usd_per_year"] + before.opex["one_time_usd"]
    )
    assert opex["unpriced_lines"] == 0
    assert sum(row["delta_usd"] for row in opex["lines"]) == pytest.approx(opex["delta_usd"])
