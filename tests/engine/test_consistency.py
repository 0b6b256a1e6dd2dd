"""Every shared quantity is identical wherever it appears: GPU count, racks, switches per tier,
optics, checkpoint bytes, storage read bandwidth (storage supply, performance I/O, storage
read table), IT power, step time and time to train (performance, regions,
headline, cost per run, the scaling point at the design's size), and the quick look's memory
against the run's. Every example plus generated single- and multi-site designs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.headline import headline
from models_engine.pipeline import run_engines
from models_engine.quick_look import quick_look
from models_engine.validate import validate_design
from tests.engine.fabric_designs import multi_site_doc

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))
REL = 1e-9


def evaluate_typed(doc: dict):
    design = validate_design(doc)
    results = run_engines(design.spec, design.catalog, design.gpu)
    return design.spec, results, headline(results)


def same(a: float | None, b: float | None) -> bool:
    return a == pytest.approx(b, rel=REL)


def assert_one_model(doc: dict) -> None:
    spec, r, head = evaluate_typed(doc)
    fabric, facility, storage = r["fabric"], r["facility"], r["storage"]
    performance, regions, reliability = r["performance"], r["regions"], r["reliability"]
    cost, scaling = r["cost"], r["scaling"]

    # GPU count: the same split at every per-site engine, summing to the design's count.
    gpus = spec.compute.gpu_count
    for per_site in (fabric.sites, facility.sites, storage.sites):
        assert sum(site.gpus for site in per_site) == gpus
    assert [s.gpus for s in fabric.sites] == [s.gpus for s in facility.sites]
    assert [s.gpus for s in fabric.sites] == [s.gpus for s in storage.sites]
    assert fabric.totals.gpus == gpus
    by_site = {site["id"]: site["gpus"] for site in regions.sites}
    assert all(by_site[s.site_id] == s.gpus for s in fabric.sites)

    # Racks: headline = facility totals = sum over sites = what reliability counted.
    assert head["racks"] == facility.totals.total_racks
    assert facility.totals.total_racks == sum(s.rack_summary.total_racks for s in facility.sites)
    assert reliability.scope.racks == facility.totals.total_racks

    # Switches per tier and optics: fabric totals = sum over sites = BOM = reliability = cost.
    for tier in ("leaf", "spine", "core"):
        per_site = sum(getattr(s.scale_out.switches, tier) for s in fabric.sites)
        assert getattr(fabric.totals.switches, tier) == per_site
    compute_switches = sum(
        line.quantity
        for line in fabric.bom
        if line.category == "switch" and line.network == "compute"
    )
    assert compute_switches == fabric.totals.switches.total
    assert reliability.scope.switches == fabric.totals.switches
    assert reliability.scope.nic_cards == fabric.totals.nic_cards
    compute_optics = sum(
        line.quantity
        for line in fabric.bom
        if line.category == "transceiver" and line.network == "compute"
    )
    assert compute_optics == fabric.totals.transceivers
    # Cost prices exactly the fabric's BOM, line by line, at each line's site.
    priced = {
        (line["site"], line["item"]): line["quantity"]
        for line in cost.capex["lines"]
        if line["part"] == "network"
    }
    for line in fabric.bom:
        assert priced[(line.site, line.item)] == line.quantity

    # IT power: headline = facility totals = what cost prices.
    assert same(head["it_power_kw"], facility.totals.it_kw)
    assert same(cost.inputs["it_power_kw"], facility.totals.it_kw)

    if not performance.training:
        return
    # Checkpoint bytes: storage owns them; reliability and regions use the same bytes.
    assert same(reliability.checkpoint["size_bytes"], storage.checkpoint.size_bytes)

    # Storage read bandwidth: storage owns it (`StorageSupply`, before performance). The
    # step's I/O reads the largest site's data-loading figure; storage's read table and
    # storage network at every site are the supply's own numbers.
    supply = r["storage_supply"]
    io = performance.io
    assert io.site_id == fabric.primary.site_id
    primary_supply = supply.site(io.site_id)
    assert io.storage_read_gb_per_s == primary_supply.data_loading_gbytes_per_s
    assert io.storage_tier == primary_supply.data_loading_tier
    assert same(io.site_share, primary_supply.gpus / gpus)
    assert same(io.site_data_bytes_per_step, io.data_bytes_per_step * io.site_share)
    assert [s.site_id for s in supply.sites] == [s.site_id for s in storage.sites]
    for site in storage.sites:
        site_supply = supply.site(site.site_id)
        assert site.gpus == site_supply.gpus
        assert site.storage_network == site_supply.storage_network
        assert [row["provided_read_gbytes_per_s"] for row in site.read["tiers"]] == [
            tier.provided_read_gbytes_per_s for tier in site_supply.tiers
        ]
        assert site.read["best_tier"] == site_supply.data_loading_tier

    # Step time and time to train: regions owns the job's step (site step + WAN, once).
    training = regions.training
    assert same(training.site_step_time_s, performance.step_time_s)
    assert same(training.step_time_s, training.site_step_time_s + training.wan_added_s_per_step)
    assert same(head["step_time_s"], training.step_time_s)
    if regions.cross_region:
        assert same(regions.cross_region["chosen"]["step_time_s"], training.step_time_s)
    assert same(
        reliability.time_to_train.failure_free_days, training.time_to_train_failure_free_days
    )
    assert same(head["time_to_train_days"], reliability.time_to_train.with_failures_days)
    assert same(cost.training_run.time_to_train_days, head["time_to_train_days"])
    design_points = [p for p in scaling.points if p.is_design]
    if design_points:
        assert same(design_points[0].step_time_s, training.step_time_s)
        assert same(
            design_points[0].time_to_train_failure_free_days,
            training.time_to_train_failure_free_days,
        )

    # The quick look shows the run's own memory fit.
    look = quick_look(doc)
    assert look["valid"]
    assert same(look["memory"]["total_gib"], performance.memory.total_gib)
    assert look["memory"]["fits"] == performance.memory.fits


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_one_model(example):
    assert_one_model(json.loads(example.read_text()))


BASE = json.loads((EXAMPLES[0].parent / "two-region-hierarchical.json").read_text())


@st.composite
def multi_site_designs(draw):
    doc = copy.deepcopy(BASE)
    count = draw(st.integers(1, 3))
    # Nodes per site (a site holds whole nodes); shares follow from them.
    nodes = draw(st.lists(st.integers(2, 96), min_size=count, max_size=count))
    doc["compute"]["gpu_count"] = sum(nodes) * doc["compute"]["gpus_per_node"]
    shares = [n / sum(nodes) for n in nodes]
    shares[-1] = 1.0 - sum(shares[:-1])
    template = BASE["regions"]["sites"][0]
    doc["regions"]["sites"] = [
        {**template, "id": f"site-{i}", "name": f"Site {i}", "gpu_share": share}
        for i, share in enumerate(shares)
    ]
    doc["regions"]["datasets"] = []
    bandwidth = draw(st.sampled_from([100, 400, 1600]))
    rtt = draw(st.sampled_from([2, 20, 95]))
    doc["regions"]["wan_links"] = [
        {
            "from_site": f"site-{i}",
            "to_site": f"site-{i + 1}",
            "bandwidth_gbps": bandwidth,
            "rtt_ms": rtt,
        }
        for i in range(count - 1)
    ]
    doc["regions"]["cross_region_strategy"] = (
        "none"
        if count == 1
        else draw(st.sampled_from(["synchronous", "hierarchical", "async-averaging"]))
    )
    return doc


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(multi_site_designs())
def test_generated_designs_are_one_model(doc):
    assert_one_model(doc)


def test_three_sites_of_33k_gb200_evaluate_as_one_model_with_three_fabrics():
    """The issue's case: ~99k GB200 over three sites is three fabrics, facilities and storage
    systems, joined by WAN equipment, with no capacity error, end to end."""
    doc = multi_site_doc("gb200-nvl72-multirack", 1380 * 72, ["or", "tx", "va"])
    doc["regions"]["cross_region_strategy"] = "hierarchical"
    assert_one_model(doc)
    _, results, head = evaluate_typed(doc)
    fabric = results["fabric"]
    assert [site.gpus for site in fabric.sites] == [33_120] * 3
    assert "fabric-capacity-exceeded" not in {f["id"] for f in fabric.findings}
    assert fabric.totals.wan_routers > 0 and fabric.totals.wan_transceivers > 0
    assert head["sites"] == 3
    assert len(results["facility"].sites) == len(results["storage"].sites) == 3
