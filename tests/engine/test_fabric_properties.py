"""Invariants of the fabric engine over generated designs (hypothesis), and every example file.

- more GPUs never means fewer switches (same parts and settings);
- ports used <= ports available on every tier of every network;
- every leaf lands an equal whole number of links on every spine of its pod, every spine on
  every core of its group;
- links and cables add up (leaf-spine links = leaves x uplinks; one cable per native port);
- every example evaluates (fabric, storage, facility) and is JSON-serialisable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.engines.fabric import evaluate_fabric
from models_engine.hardware import resolve_gpu
from models_engine.pipeline import run_engines
from models_engine.spec import parse_design
from tests.engine.fabric_designs import CATALOG, EXAMPLES, design_doc

PARTS = [
    ("infiniband-ndr", "nvidia-qm9700", "cx7-ndr-400g", 400),
    ("infiniband-xdr", "nvidia-q3400", "cx8-xdr-800g", 800),
    ("roce-400g", "nvidia-sn5600", "bf3-400g", 400),
    ("roce-800g", "nvidia-sn5600", "cx8-xdr-800g", 800),
]

fabric_settings = st.fixed_dictionaries(
    {
        "parts": st.sampled_from(PARTS),
        "topology": st.sampled_from(["rail-optimized", "leaf-spine", "fat-tree-3tier"]),
        "nics_per_node": st.sampled_from([1, 2, 4, 8]),
        "planes": st.sampled_from([1, 2]),
        "leaf": st.sampled_from([1.0, 1.5, 2.0, 3.0, 7.0]),
        "spine": st.sampled_from([1.0, 2.0, 7.0]),
        "storage_mode": st.sampled_from(["separate", "converged"]),
    }
)


def _doc(nodes: int, choice: dict) -> dict:
    technology, switch, nic, speed = choice["parts"]
    return design_doc(
        nodes=nodes,
        fabric={
            "technology": technology,
            "switch_sku": switch,
            "nic_sku": nic,
            "nic_speed_gbps": speed,
            "topology": choice["topology"],
            "nics_per_node": choice["nics_per_node"],
            "planes": choice["planes"],
            "oversubscription": {"leaf": choice["leaf"], "spine": choice["spine"]},
            "storage_network": {"mode": choice["storage_mode"]},
        },
    )


def _fabric(nodes: int, choice: dict) -> dict:
    """The stored JSON of the one site's networks."""
    return evaluate_fabric(parse_design(_doc(nodes, choice)), CATALOG).primary.to_json()


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    choice=fabric_settings,
    nodes=st.integers(min_value=1, max_value=6000),
    extra=st.integers(min_value=0, max_value=3000),
)
def test_more_gpus_never_means_fewer_switches(choice, nodes, extra):
    small = _fabric(nodes, choice)["scale_out"]["switches"]
    large = _fabric(nodes + extra, choice)["scale_out"]["switches"]
    assert large["total"] >= small["total"]
    assert large["leaf"] >= small["leaf"]


@SETTINGS
@given(choice=fabric_settings, nodes=st.integers(min_value=1, max_value=20000))
def test_ports_links_and_cables_are_consistent(choice, nodes):
    result = _fabric(nodes, choice)
    out = result["scale_out"]
    tiers = out["switch_tiers"] + result["frontend_network"]["tiers"]
    tiers += result["storage_network"]["tiers"]
    for tier in tiers:
        assert 0 <= tier["ports_used"] <= tier["ports_total"]
        assert tier["ports_free"] == tier["ports_total"] - tier["ports_used"]

    equal = out["equal_links"]
    leaf_up = out["oversubscription"]["leaf_uplinks"]
    if out["switches"]["spine"]:
        assert leaf_up % equal["spines_per_pod"] == 0
        assert equal["links_per_leaf_per_spine"] * equal["spines_per_pod"] == leaf_up
    if out["switches"]["core"] and out["capacity"]["within_capacity"]:
        spine_up = out["oversubscription"]["spine_uplinks"]
        assert spine_up % equal["cores_per_group"] == 0
        assert out["tiers"] == 3

    planes = out["planes"]
    leaves = out["switches"]["leaf"]
    if "leaf_spine" in out["links"]:
        assert out["links"]["leaf_spine"]["links"] == leaves * leaf_up
        per_port = out["switch_tiers"][0]["links_per_port"]
        assert out["cables"]["leaf_spine"] * per_port >= out["links"]["leaf_spine"]["links"]
    node_links = out["links"]["node_leaf"]["links"] - out["cables"]["fabric_manager"]
    assert node_links == nodes * choice["nics_per_node"] * planes
    assert out["oversubscription"]["leaf"] <= choice["leaf"] + 1e-9 or leaf_up == 0
    assert (
        out["bisection"]["bisection_gbit_per_s"]
        <= out["bisection"]["injection_gbit_per_s"] / 2 + 1e-6
    )
    assert out["capacity"]["max_gpus_two_tier"] <= out["capacity"]["max_gpus_three_tier"]
    gpus = nodes * 8
    if not out["capacity"]["within_capacity"]:
        assert gpus > out["capacity"]["max_gpus_three_tier"]
        assert "fabric-capacity-exceeded" in {f["id"] for f in result["findings"]}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_every_example_evaluates(path: Path):
    spec = parse_design(json.loads(path.read_text()))
    results = run_engines(
        spec,
        CATALOG,
        resolve_gpu(spec.compute, CATALOG),
        only=("fabric", "storage_supply", "performance", "storage", "facility"),
    )
    fabric, storage, facility = results["fabric"], results["storage"], results["facility"]
    for result in (fabric, storage, facility):
        json.dumps(result.to_json())
        for finding in result.findings:
            assert {"id", "severity", "message", "path"} <= set(finding)
            assert finding["severity"] in {"info", "warning", "error"}
    for site in fabric.sites:
        assert site.scale_out.switches.total >= 1
        assert "breakdown" in site.to_json()
    assert sum(site.gpus for site in fabric.sites) == spec.compute.gpu_count
    assert [s.site_id for s in facility.sites] == [s.site_id for s in fabric.sites]
    for site in facility.sites:
        assert site.rack_summary.total_racks >= 1
    assert fabric.totals.wan_routers == (
        sum(fabric.wan.routers_by_site.values()) if fabric.wan else 0
    )
