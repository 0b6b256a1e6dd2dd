"""Clos formulas (fabric_power.md "Formulas for the fabric engine"), breakout, hops, bisection,
scale-up domains, RoCE findings and the auxiliary networks.

Sources: R^2/2 two-tier and 3R/2 switches (Cumulus "m^2/2" [S26], [S27]); R^3/4 three-tier and
5R^2/4 switches (Al-Fares k-ary fat tree [S24], [S27]); oversubscription = down/up (RFC 7938
[S28]); bisection N*B/(2*o). Exact equality: these are integer identities.
"""

from __future__ import annotations

import pytest

from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.fabric.clos import (
    port_mode_for,
    smallest_divisor_at_least,
    uplink_candidates,
)
from models_engine.engines.fabric.sizing import size_plane
from models_engine.spec import parse_design
from tests.engine.fabric_designs import (
    CATALOG,
    catalog_with_switch,
    design_doc,
    fabric_result,
)


def _tor_plane(radix: int, endpoints: int, leaf_o: float = 1.0, force3: bool = False):
    switch = catalog_with_switch(radix).switches[f"test-switch-r{radix}"]
    return size_plane(
        nodes=endpoints,
        ports_per_node=1,
        attachment="tor",
        force_three_tier=force3,
        mode=port_mode_for(switch, 400),
        node_link_gbps=400,
        leaf_oversubscription=leaf_o,
        spine_oversubscription=1.0,
    )


@pytest.mark.parametrize("radix", [8, 16, 32, 64])
def test_two_tier_non_blocking_reaches_r_squared_over_two_with_3r_over_2_switches(radix):
    full = _tor_plane(radix, radix * radix // 2)
    assert full.plan.tiers == 2
    assert full.plan.leaves == radix
    assert full.plan.spines == radix // 2
    assert full.plan.switches == 3 * radix // 2
    assert _tor_plane(radix, radix * radix // 2 + 1).plan.tiers == 3


@pytest.mark.parametrize("radix", [8, 16])
def test_three_tier_fat_tree_reaches_r_cubed_over_four_with_5r_squared_over_4_switches(radix):
    full = _tor_plane(radix, radix**3 // 4)
    plan = full.plan
    assert plan.tiers == 3
    assert plan.within_capacity
    assert plan.leaves == radix * radix // 2
    assert plan.spines == radix * radix // 2
    assert plan.cores == radix * radix // 4
    assert plan.switches == 5 * radix * radix // 4
    assert plan.pods == radix
    assert not _tor_plane(radix, radix**3 // 4 + radix // 2).plan.within_capacity


def test_capacity_reports_r_squared_over_two_and_r_cubed_over_four_gpus():
    # DGX H100: 8 rails, one NIC per GPU, R = 64 -> 2,048 and 65,536 GPUs (endpoints).
    capacity = fabric_result(design_doc(nodes=127))["scale_out"]["capacity"]
    assert capacity["max_gpus_two_tier"] == 64**2 // 2
    assert capacity["max_gpus_three_tier"] == 64**3 // 4


def test_oversubscription_is_downlinks_over_uplinks():
    plane = _tor_plane(64, 1000, leaf_o=3.0)
    down, up = plane.attachment.leaf_down, plane.plan.leaf_up
    assert down + up == 64
    assert plane.leaf_oversubscription == pytest.approx(down / up)
    assert plane.leaf_oversubscription <= 3.0
    assert plane.plan.leaf_up % plane.plan.spines_per_pod == 0


def test_uplink_candidates_span_requested_ratio_to_non_blocking():
    assert uplink_candidates(64, 1.0, 400, 400) == [32]
    candidates = uplink_candidates(64, 3.0, 400, 400)
    assert min(candidates) == 16 and max(candidates) == 32
    # broken-out 800G ports: uplinks come in pairs so no port mixes up- and downlinks
    assert all(u % 2 == 0 for u in uplink_candidates(128, 2.0, 400, 400, multiple=2))


def test_smallest_divisor_rule():
    assert smallest_divisor_at_least(32, 12) == 16
    assert smallest_divisor_at_least(72, 32) == 36
    assert smallest_divisor_at_least(32, 33) is None


def test_bisection_is_n_b_over_two_o():
    doc = design_doc(nodes=127)
    out = fabric_result(doc)["scale_out"]["bisection"]
    assert out["injection_gbit_per_s"] == 127 * 8 * 400
    assert out["bisection_gbit_per_s"] == pytest.approx(127 * 8 * 400 / 2)
    oversub = design_doc("llama3-16k-h100-roce")  # spine 7:1 toward the core
    out = fabric_result(oversub)["scale_out"]["bisection"]
    assert out["oversubscription_at_cut"] == pytest.approx(7.0)
    assert out["bisection_gbit_per_s"] == pytest.approx(out["injection_gbit_per_s"] / (2 * 7.0))


def test_800g_ports_break_out_to_two_400g_links():
    switch = CATALOG.switches["nvidia-sn5600"]
    mode = port_mode_for(switch, 400)
    assert (mode.ports, mode.speed_gbps, mode.links_per_native_port) == (128, 400.0, 2)
    assert port_mode_for(switch, 800).ports == 64
    # the QM9700 keeps its native 400G ports for 400G links
    assert port_mode_for(CATALOG.switches["nvidia-qm9700"], 400).ports == 64


def test_three_tier_hops_and_growth_step():
    out = fabric_result(design_doc(nodes=511))["scale_out"]
    assert out["hops"]["cross_pod"] == 5
    step = fabric_result(design_doc(nodes=127))["scale_out"]["growth_step"]
    assert step["unit"] == "scalable unit"
    assert step["adds_nodes"] == 32 and step["adds_gpus"] == 256
    assert step["adds_leaf_switches"] == 8
    assert step["adds_spine_switches"] == 16  # 40 leaves need 32 spines (divisors of 32)


def test_ports_used_never_exceed_ports_available_in_examples():
    for slug in ("dgx-h100-superpod-4su", "llama3-16k-h100-roce", "inference-fleet"):
        result = fabric_result(design_doc(slug))
        tiers = result["scale_out"]["switch_tiers"]
        for network in ("frontend_network", "storage_network"):
            tiers = tiers + result[network]["tiers"]
        for tier in tiers:
            assert 0 <= tier["ports_used"] <= tier["ports_total"]


@pytest.mark.parametrize(
    ("slug", "gpus_per_domain", "nvlink", "chips"),
    [
        ("dgx-h100-superpod-4su", 8, 900.0, 4),
        ("gb200-nvl72-multirack", 72, 1800.0, 18),
        ("l40s-custom-gpu-finetune", 1, 0.0, 0),
    ],
)
def test_scale_up_domain(slug, gpus_per_domain, nvlink, chips):
    scale_up = fabric_result(design_doc(slug))["scale_up"]
    assert scale_up["gpus_per_domain"] == gpus_per_domain
    assert scale_up["nvlink_gbytes_per_s_per_gpu"] == nvlink
    assert scale_up["nvswitch_chips_per_domain"] == chips
    assert scale_up["domain_all_to_all_gbytes_per_s"] == gpus_per_domain * nvlink / 2


def test_nvl72_domain_aggregate_is_about_130_tbytes_per_s():
    scale_up = fabric_result(design_doc("gb200-nvl72-multirack"))["scale_up"]
    assert scale_up["domain_aggregate_gbytes_per_s_bidirectional"] == pytest.approx(129_600)
    assert scale_up["domains"] == 8


def _findings(doc) -> dict[str, dict]:
    return {f["id"]: f for f in fabric_result(doc)["findings"]}


def test_roce_findings_for_lossless_settings():
    base = {"technology": "roce-400g", "switch_sku": "nvidia-sn5600", "nic_sku": "bf3-400g"}
    ok = _findings(design_doc(fabric={**base, "roce": {}}))
    assert not [k for k in ok if k.startswith("roce-")]
    no_ecn = _findings(design_doc(fabric={**base, "roce": {"ecn_enabled": False}}))
    assert no_ecn["roce-ecn-disabled"]["path"] == "fabric.roce.ecn_enabled"
    cnp = _findings(design_doc(fabric={**base, "roce": {"pfc_priority": 6}}))
    assert cnp["roce-priority-cnp-clash"]["severity"] == "error"
    low = _findings(design_doc(fabric={**base, "roce": {"ecn_kmin_kb": 20}}))
    assert low["roce-ecn-kmin-low-400g"]["path"] == "fabric.roce.ecn_kmin_kb"
    nothing = _findings(
        design_doc(fabric={**base, "roce": {"pfc_enabled": False, "ecn_enabled": False}})
    )
    assert nothing["roce-no-congestion-control"]["severity"] == "error"
    # InfiniBand ignores the RoCE block
    ib = _findings(design_doc(fabric={"roce": {"pfc_priority": 6}}))
    assert not [k for k in ib if k.startswith("roce-")]


def test_ecn_kmin_floor_grows_with_link_speed():
    result = fabric_result(design_doc("llama3-16k-h100-roce"))
    rows = result["roce"]["thresholds_by_link_speed"]
    assert rows[0]["ecn_kmin_floor_kb"] == pytest.approx(rows[0]["bdp_kb"] / 7)
    doc = design_doc(
        nodes=127,
        compute={"gpu_sku": "b300-sxm", "system_sku": "dgx-b300"},
        fabric={
            "technology": "roce-800g",
            "switch_sku": "nvidia-sn5600",
            "nic_sku": "cx8-xdr-800g",
            "nic_speed_gbps": 800,
        },
    )
    fast = fabric_result(doc)["roce"]["thresholds_by_link_speed"][0]
    assert fast["link_speed_gbps"] == 800
    assert fast["ecn_kmin_floor_kb"] > rows[0]["ecn_kmin_floor_kb"]


def test_frontend_and_storage_networks_separate_or_converged():
    separate = fabric_result(design_doc(nodes=127))
    storage = separate["storage_network"]
    assert storage["mode"] == "separate"
    assert storage["nic_ports"] == 127 * 2
    assert storage["storage_target_ports"] > 0
    assert storage["switches"] > 0
    assert {line["network"] for line in separate["bom"]} == {"compute", "storage", "frontend"}
    converged = fabric_result(
        design_doc(nodes=127, fabric={"storage_network": {"mode": "converged"}})
    )
    assert converged["storage_network"] == {
        "mode": "converged",
        "carried_on": "compute fabric",
        "switches": 0,
        "tiers": [],
        "links": {},
    }
    assert "storage" not in {line["network"] for line in converged["bom"]}


def test_bom_lines_carry_quantities_power_and_prices():
    result = fabric_result(design_doc(nodes=127))
    keys = {
        "item",
        "catalog_id",
        "category",
        "quantity",
        "unit_power_w",
        "unit_price_usd",
        "total_power_w",
        "total_price_usd",
    }
    for line in result["bom"]:
        assert keys <= set(line)
        if line["unit_price_usd"] is None:
            assert line["total_price_usd"] is None
        else:
            assert line["total_price_usd"] == line["unit_price_usd"] * line["quantity"]
    leaf = next(line for line in result["bom"] if line["item"].startswith("compute leaf"))
    assert (leaf["catalog_id"], leaf["quantity"], leaf["unit_price_usd"]) == (
        "nvidia-qm9700",
        32,
        50000.0,
    )
    # switch power = chassis + modules on their own lines: 1.72 kW max includes 32 x 17 W
    assert leaf["unit_power_max_w"] == pytest.approx(1720 - 32 * 17)


def test_network_for_performance_gives_per_gpu_bandwidth_and_hops():
    perf = fabric_result(design_doc("llama3-16k-h100-roce"))["network_for_performance"]
    assert perf["scale_out_effective_gbytes_per_s_per_gpu"] == pytest.approx(48.0)
    assert perf["scale_out_effective_gbytes_per_s_per_gpu_cross_pod"] == pytest.approx(48 / 7)
    assert perf["max_switch_hops"] == 5
    assert perf["tiers"] == 3


def test_diagram_lists_tiers_with_counts_and_link_speeds():
    diagram = fabric_result(design_doc(nodes=511))["diagram"]
    names = [tier["name"] for tier in diagram["tiers"]]
    assert names == ["core", "spine", "leaf", "nodes"]
    assert diagram["tiers"][0]["switches"] == 64
    assert {(link["from"], link["to"]) for link in diagram["links"]} == {
        ("nodes", "leaf"),
        ("leaf", "spine"),
        ("spine", "core"),
    }
    assert all(link["speed_gbps"] == 400 for link in diagram["links"])


def test_custom_switch_from_a_team_catalog_is_sized_by_its_radix():
    catalog = catalog_with_switch(32)
    spec = parse_design(design_doc(nodes=64, fabric={"switch_sku": "test-switch-r32"}))
    out = evaluate_fabric(spec, catalog).primary.scale_out
    # R = 32: SU = 16 nodes, 8 leaves; 64 nodes = 4 SUs = 32 leaves = R -> two tiers, 16 spines
    assert out.nodes_per_su == 16
    assert out.switches.leaf == 32 and out.switches.spine == 16
    assert out.capacity["max_gpus_two_tier"] == 32 * 32 // 2
