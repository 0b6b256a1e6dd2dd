"""A stated fabric intent (tier count, parts) is built exactly or rejected naming the field.

Counts are derived by hand in each test's docstring from the Clos rules of clos.py
(fabric_power.md "Formulas for the fabric engine"). The base design is the DGX H100 SuperPOD
example: 8 rails (one 400G NDR port per GPU), NVIDIA QM9700 (64 x 400G).
"""

from __future__ import annotations

import pytest

from models_engine.engines.fabric import evaluate_fabric
from models_engine.spec import SpecValidationError, parse_design
from models_engine.validate import validate_design
from tests.engine.fabric_designs import CATALOG, design_doc, site_fabric


def _errors(doc: dict) -> list[dict]:
    with pytest.raises(SpecValidationError) as caught:
        validate_design(doc)
    return caught.value.errors


def test_two_tiers_that_cannot_hold_the_design_name_the_field_and_the_limit():
    """4,096 GPUs = 512 nodes x 8 rails = 4,096 endpoints. QM9700 at 1:1: 32 down, 32 up; two
    tiers hold at most R = 64 leaves (one uplink per spine port) = 8 SUs of 8 rail leaves x 32
    nodes = 256 nodes = 2,048 endpoints."""
    errors = _errors(design_doc(nodes=512, fabric={"tiers": 2}))
    assert [e["path"] for e in errors] == ["fabric.tiers"]
    message = errors[0]["message"]
    assert "at most 2,048 endpoints at 1:1" in message
    assert "needs 4,096" in message
    assert "QM9700" in message


def test_the_engine_itself_refuses_the_two_tiers_it_cannot_build():
    """The engine never builds another topology silently, even when called without validation."""
    spec = parse_design(design_doc(nodes=512, fabric={"tiers": 2}))
    with pytest.raises(SpecValidationError, match=r"fabric\.tiers"):
        evaluate_fabric(spec, CATALOG)


def test_two_tiers_at_the_limit_build_r_leaves_and_r_over_2_spines():
    """256 nodes: 8 SUs x 8 rails = 64 leaves with 32 uplinks; spines = smallest divisor of 32
    with S x 64 >= 64 x 32 -> 32; leaf-spine links 64 x 32 = 2,048."""
    out = site_fabric(design_doc(nodes=256, fabric={"tiers": 2})).scale_out
    assert (out.switches.leaf, out.switches.spine, out.switches.core) == (64, 32, 0)
    assert out.tiers == 2
    assert out.links["leaf_spine"].links == 2048


def test_two_tiers_past_the_limit_with_oversubscription_fit():
    """At 3:1 the leaf keeps u = ceil(64 x 400 / (400 + 3 x 400)) = 16 uplinks and 48 downlinks,
    so two tiers hold (64 // 8) x 48 = 384 nodes; 320 nodes (4,096 -> 2,560 GPUs) fit: 7 SUs of
    48 nodes = 56 leaves; spines = smallest divisor of 16 with S x 64 >= 56 x 16 -> 16."""
    doc = design_doc(nodes=320, fabric={"tiers": 2, "oversubscription": {"leaf": 3.0}})
    out = site_fabric(doc).scale_out
    assert (out.switches.leaf, out.switches.spine, out.switches.core) == (56, 16, 0)


def test_three_tiers_stated_build_leaf_spine_core():
    """512 nodes at 1:1: 16 SUs = 128 leaves; pods of 32 leaves (spine 32 down / 32 up) -> 4
    pods of 32 spines = 128 spines; core groups: smallest divisor of 32 with C x 64 >= 4 x 32
    -> 2, x 32 spine positions = 64 cores. 320 switches, as auto builds."""
    stated = site_fabric(design_doc(nodes=512, fabric={"tiers": 3})).scale_out
    auto = site_fabric(design_doc(nodes=512)).scale_out
    assert (stated.switches.leaf, stated.switches.spine, stated.switches.core) == (128, 128, 64)
    assert stated.switches == auto.switches
    assert stated.tiers == 3


def test_three_tiers_on_one_pod_is_an_error_not_a_two_tier_build():
    """127 nodes = 4 SUs = 32 leaves: one pod under 32 spines, so there is no core to build."""
    errors = _errors(design_doc(nodes=127, fabric={"tiers": 3}))
    assert [e["path"] for e in errors] == ["fabric.tiers"]
    assert "no core tier" in errors[0]["message"]


def test_two_tiers_stated_build_a_leaf_and_a_spine_where_one_switch_would_do():
    """4 nodes x 8 ports on a leaf-spine (ToR) fabric: 32 links fit one 64-port switch (auto).
    Stated 2 tiers: a leaf of 32 down / 32 up holds the 4 nodes; spines = smallest divisor of 32
    with S x 64 >= 32 -> 1."""
    auto = site_fabric(design_doc(nodes=4, fabric={"topology": "leaf-spine"})).scale_out
    stated = site_fabric(
        design_doc(nodes=4, fabric={"topology": "leaf-spine", "tiers": 2})
    ).scale_out
    assert auto.switches.total == 1
    assert (stated.switches.leaf, stated.switches.spine) == (1, 1)


def test_two_tiers_on_a_fat_tree_3tier_topology_is_a_spec_error():
    with pytest.raises(SpecValidationError, match=r"fabric\.tiers"):
        parse_design(design_doc(fabric={"topology": "fat-tree-3tier", "tiers": 2}))


def test_xdr_on_an_ndr_switch_and_nic_is_an_error_naming_both_parts():
    doc = design_doc(
        fabric={
            "technology": "infiniband-xdr",
            "switch_sku": "nvidia-qm9700",
            "nic_sku": "cx7-ndr-400g",
            "nic_speed_gbps": 800,
        }
    )
    errors = {e["path"]: e["message"] for e in _errors(doc)}
    assert set(errors) == {"fabric.switch_sku", "fabric.nic_sku"}
    assert "800 Gb/s" in errors["fabric.switch_sku"]
    assert "400 Gb/s generation" in errors["fabric.switch_sku"]


def test_infiniband_on_an_ethernet_switch_is_an_error():
    doc = design_doc(fabric={"switch_sku": "nvidia-sn5600"})
    errors = _errors(doc)
    assert [e["path"] for e in errors] == ["fabric.switch_sku"]
    assert "infiniband rack switch" in errors[0]["message"]


def test_nvswitch_domain_on_an_amd_gpu_is_an_error():
    doc = design_doc(compute={"gpu_sku": "mi300x-192gb", "system_sku": None})
    errors = {e["path"]: e["message"] for e in _errors(doc)}
    assert "compute.nvlink_domain.kind" in errors
    assert "AMD" in errors["compute.nvlink_domain.kind"]


def test_nvl72_domain_on_an_eight_gpu_part_is_an_error():
    """H100 with a 72-GPU NVL72 domain (4-GPU trays, as the spec's own tray rule asks)."""
    doc = design_doc(compute={"nvlink_domain": {"kind": "nvl72", "gpus": 72}, "gpus_per_node": 4})
    doc["compute"]["system_sku"] = None
    doc["compute"]["gpu_count"] = 72 * 14
    errors = {e["path"]: e["message"] for e in _errors(doc)}
    assert "compute.nvlink_domain.kind" in errors


def test_default_parts_of_every_technology_are_consistent():
    """The parts each technology fills in pass its own rules."""
    for technology in ("infiniband-ndr", "infiniband-xdr", "roce-400g", "roce-800g"):
        doc = design_doc(fabric={"technology": technology})
        for key in ("switch_sku", "nic_sku", "nic_speed_gbps", "planes"):
            doc["fabric"].pop(key, None)
        validate_design(doc)


def test_a_larger_spine_switch_holds_4096_gpus_in_two_tiers():
    """QM9700 leaves (32 x 400G down, 32 up) under Quantum-X800 Q3400 spines: the spine's 144
    ports at 800G carry the 400G leaf uplinks (no 2 x 400G split listed), so two tiers hold up
    to 144 leaves. 512 nodes = 16 SUs x 8 rails = 128 leaves; spines = smallest divisor of 32
    with S x 144 >= 128 x 32 = 4,096 -> 29 is no divisor -> 32. 160 switches where one QM9700
    model in every tier needs 320 (128 leaf, 128 spine, 64 core)."""
    doc = design_doc(nodes=512, fabric={"tiers": 2, "spine_switch_sku": "nvidia-q3400"})
    fabric = site_fabric(doc)
    out = fabric.scale_out
    assert (out.switches.leaf, out.switches.spine, out.switches.core) == (128, 32, 0)
    by_tier = {row["tier"]: row for row in out.switch_tiers}
    assert by_tier["leaf"]["switch_sku"] == "nvidia-qm9700"
    assert by_tier["spine"]["switch_sku"] == "nvidia-q3400"
    # 32 spines x 144 ports; 4,096 used (one 400G link per port)
    assert by_tier["spine"]["ports_total"] == 32 * 144
    assert by_tier["spine"]["ports_used"] == 4096
    spine_lines = [line for line in fabric.bom if "compute spine" in line.item]
    assert [(line.catalog_id, line.quantity) for line in spine_lines] == [("nvidia-q3400", 32)]
    auto = site_fabric(design_doc(nodes=512, fabric={"spine_switch_sku": "nvidia-q3400"}))
    assert auto.scale_out.switches == out.switches


def test_a_spine_of_another_protocol_is_an_error_naming_the_field():
    doc = design_doc(fabric={"spine_switch_sku": "nvidia-sn5600"})
    errors = _errors(doc)
    assert [e["path"] for e in errors] == ["fabric.spine_switch_sku"]
    assert "infiniband" in errors[0]["message"]


def test_an_unknown_core_switch_is_an_error_naming_the_field():
    errors = _errors(design_doc(fabric={"core_switch_sku": "no-such-switch"}))
    assert [e["path"] for e in errors] == ["fabric.core_switch_sku"]


def test_connectx8_on_800g_ethernet_needs_two_planes():
    """ConnectX-8 runs 800G as XDR InfiniBand or 2 x 400GbE, never one 800GbE port (firmware
    release notes v40.44.0208): one plane is an error naming fabric.planes; two planes pass."""
    parts = {
        "technology": "roce-800g",
        "switch_sku": "nvidia-sn5600",
        "nic_sku": "cx8-xdr-800g",
        "nic_speed_gbps": 800,
    }
    errors = _errors(design_doc(fabric={**parts, "planes": 1}))
    assert [e["path"] for e in errors] == ["fabric.planes"]
    assert errors[0]["allowed"] == {"ge": 2}
    validate_design(design_doc(fabric={**parts, "planes": 2}))


def test_two_tiers_past_a_larger_spine_name_both_switches():
    """Q3400 spines hold at most 144 leaves = 18 SUs x 32 nodes = 576 nodes x 8 = 4,608
    endpoints; 1,024 nodes (8,192 endpoints) do not fit."""
    doc = design_doc(nodes=1024, fabric={"tiers": 2, "spine_switch_sku": "nvidia-q3400"})
    errors = _errors(doc)
    assert [e["path"] for e in errors] == ["fabric.tiers"]
    message = errors[0]["message"]
    assert "at most 4,608 endpoints" in message
    assert "Q3400" in message
    assert "needs 8,192" in message


ROCE_400 = {
    "technology": "roce-400g",
    "switch_sku": "nvidia-sn5600",
    "nic_sku": "bf3-400g",
    "nic_speed_gbps": 400,
}


def test_leaf_with_400g_downlinks_and_800g_uplinks_splits_its_native_ports():
    """SN5600 (64 x 800G ports). 400G node links run two per port broken out; 800G uplinks one
    per port. At 1:1 the leaf keeps u ports with (64 - u) x 2 x 400 = u x 800 -> u = 32: 32 x
    800G up and 64 x 400G down (every port used). 256 nodes = 4 SUs of 64 nodes x 8 rails = 32
    leaves; spines (SN5600 at 800G, R = 64) = smallest divisor of 32 with S x 64 >= 32 x 32
    -> 16; 1,024 leaf-spine links at 800G, where one speed needs 2,048 at 400G."""
    mixed = site_fabric(
        design_doc(nodes=256, fabric={**ROCE_400, "leaf_uplink_speed_gbps": 800})
    ).scale_out
    same = site_fabric(design_doc(nodes=256, fabric=ROCE_400)).scale_out
    assert (mixed.switches.leaf, mixed.switches.spine, mixed.switches.core) == (32, 16, 0)
    assert (mixed.links["leaf_spine"].links, mixed.links["leaf_spine"].link_speed_gbps) == (
        1024,
        800,
    )
    assert (same.links["leaf_spine"].links, same.links["leaf_spine"].link_speed_gbps) == (
        2048,
        400,
    )
    leaf = next(row for row in mixed.switch_tiers if row["tier"] == "leaf")
    assert leaf["ports_used"] == leaf["ports_total"] == 32 * 64
    over = mixed.oversubscription
    assert (over["leaf"], over["leaf_downlinks"], over["leaf_uplinks"]) == (1.0, 64, 32)


def test_uplinks_faster_than_the_leaf_ports_are_an_error():
    doc = design_doc(fabric={"leaf_uplink_speed_gbps": 800})  # QM9700: 400G ports
    errors = _errors(doc)
    assert [e["path"] for e in errors] == ["fabric.leaf_uplink_speed_gbps"]
    assert errors[0]["allowed"] == {"le": 400}
