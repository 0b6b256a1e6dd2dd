"""The network engine on the shipped designs: it reads the fabric's switch counts, stays
small for a 16k-GPU fabric, names the pool that is too small, catches MTU mismatches, and
renders FRR and EOS configurations that match the plan."""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path

import pytest

import models_engine
from models_engine.engines.network.render import render_plans
from models_engine.pipeline import run_engines
from models_engine.validate import validate_design

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROCE = "llama3-16k-h100-roce.json"
INFINIBAND = "h100-256-onprem-starter.json"


def plan_of(name: str, network: dict | None = None):
    doc = json.loads((EXAMPLES / name).read_text())
    if network is not None:
        doc["network"] = network
    design = validate_design(doc)
    results = run_engines(design.spec, design.catalog, design.gpu, only=("fabric", "network"))
    return results["fabric"], results["network"]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")))
def test_plan_reads_the_fabric_engines_switch_counts(name):
    fabric, network = plan_of(name)
    for site in network.sites:
        counts = fabric.site(site.site_id).scale_out.switches
        assert (site.leaves, site.spines, site.cores) == (counts.leaf, counts.spine, counts.core)
    # Small for any fabric: rows per pool, role, tier and tenant, never per port.
    assert len(json.dumps(network.to_json())) < 8_000 * len(network.sites)


def test_ecmp_width_and_asns_of_the_16k_gpu_fat_tree():
    fabric, network = plan_of(ROCE)
    site = network.sites[0]
    leaf_spine = fabric.sites[0].scale_out.links["leaf_spine"].links
    assert site.leaf_uplinks == leaf_spine // site.leaves
    assert site.underlay.ecmp[0]["ecmp_width"] == min(site.leaf_uplinks, 64)
    leaf_row = next(r for r in site.underlay.asns if r["role"] == "leaf")
    assert leaf_row["asn_last"] - leaf_row["asn_first"] + 1 == site.leaves  # one per leaf
    assert len(site.underlay.summaries) == site.pods  # one aggregate per pod


def test_rendered_leaf_has_one_neighbor_per_uplink_in_both_dialects():
    fabric, network = plan_of(ROCE)
    plan = render_plans(fabric, network)[0]
    leaf = plan.topo.leaf(0)
    frr = models_engine.network_configs(fabric, network, "frr")
    eos = models_engine.network_configs(fabric, network, "eos")
    frr_leaf = frr[f"{plan.topo.site_id}/frr/leaf1.frr.conf"]
    eos_leaf = eos[f"{plan.topo.site_id}/eos/leaf1.eos.cfg"]
    assert frr_leaf.count(" peer-group FABRIC") == plan.topo.leaf_uplinks
    assert eos_leaf.count(" peer group FABRIC") == plan.topo.leaf_uplinks
    assert f"router bgp {plan.asns.asn(leaf)}" in frr_leaf
    assert f"network {plan.addresses.gpu_subnet(leaf)}" in frr_leaf
    assert "priority-flow-control priority 3 no-drop" in eos_leaf
    assert len(frr) == plan.topo.switches


def test_zip_holds_every_dialect_for_every_switch():
    fabric, network = plan_of("inference-fleet.json")
    archive = zipfile.ZipFile(io.BytesIO(models_engine.network_configs_zip(fabric, network)))
    switches = sum(s.leaves + s.spines + s.cores for s in network.sites)
    names = archive.namelist()
    assert sum(n.endswith(".frr.conf") for n in names) == switches
    assert sum(n.endswith(".eos.cfg") for n in names) == switches
    assert sum(n.endswith(".config_db.json") for n in names) == switches


def test_a_pool_too_small_is_a_finding_and_blocks_rendering_naming_the_pool():
    fabric, network = plan_of(ROCE, {"pools": {"p2p": "10.1.0.0/24"}})
    ids = {f["id"] for f in network.findings}
    assert "pool-exhausted-p2p" in ids
    with pytest.raises(models_engine.PoolExhausted, match=r"network\.pools\.p2p"):
        models_engine.network_configs(fabric, network)


def test_overlapping_pools_are_refused_naming_the_field():
    doc = json.loads((EXAMPLES / ROCE).read_text())
    doc["network"] = {"pools": {"p2p": "10.0.128.0/17"}}
    with pytest.raises(models_engine.SpecValidationError) as info:
        validate_design(doc)
    assert any(e["path"] == "network.pools.p2p" for e in info.value.errors)


def test_overlay_mtu_mismatch_is_an_error_finding():
    _, network = plan_of(ROCE, {"host_mtu": 9216, "switch_mtu": 9216})
    assert "mtu-mismatch" in {f["id"] for f in network.findings}
    _, fine = plan_of(ROCE)
    assert fine.sites[0].mtu["consistent"] and fine.sites[0].mtu["rdma_mtu"] == 4096


def test_infiniband_tenants_get_partition_keys_and_no_ip_configs():
    tenants = {"tenants": [{"name": "red"}, {"name": "blue"}]}
    fabric, network = plan_of(INFINIBAND, tenants)
    assert [t["pkey"] for t in network.tenants] == ["0x8001", "0x8002"]
    assert network.isolation.mechanism == "infiniband-pkey"
    assert network.isolation.tenant_segments == 2
    assert network.isolation.bgp_session_protection == []  # no BGP on InfiniBand
    assert network.sites[0].subnet_manager["routing_engine"] == "ftree"
    assert models_engine.network_configs(fabric, network) == {}


def test_sites_take_disjoint_blocks_of_shared_pools():
    doc = json.loads((EXAMPLES / ROCE).read_text())
    two = copy.deepcopy(doc)
    two["regions"] = json.loads((EXAMPLES / "two-region-hierarchical.json").read_text())["regions"]
    design = validate_design(two)
    results = run_engines(design.spec, design.catalog, design.gpu, only=("fabric", "network"))
    first, second = results["network"].sites
    for a, b in zip(first.pools, second.pools, strict=True):
        assert b.offset == a.offset + a.blocks_needed
