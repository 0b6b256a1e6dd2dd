"""Published NVIDIA DGX SuperPOD compute fabrics, reproduced exactly from radix, rails, planes and
the equal-links-per-spine rule.

- DGX H100 (RA-11333-001 V11, Table 4), fabric_power.md [S1]: 1-4 SUs, 31/63/95/127 nodes plus
  the UFM slot: leaf, spine, compute+UFM cables, spine-leaf cables; 4-SU transceivers 1,536 on
  switches (48 x 32 twin-port cages) and 508 on the DGX (127 x 4).
- DGX B200 RA (RA-11334-001), "DGX SuperPOD Architecture": larger SuperPODs up to 64 SUs, three
  tiers from 16 SUs. https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-
  infrastructure-b200/latest/dgx-superpod-architecture.html
- DGX B300 with Quantum-X800 XDR (RA-11339-001) Table 3: 144-port switches, 72-node SUs.
- DGX B300 with Spectrum-4 (RA-11337-001) Table 3: twin-plane 2 x 400GbE per 800G NIC, SN5600
  broken out to 128 x 400G, 64-node SUs.
Tolerance: none, counts are exact.
"""

from __future__ import annotations

import pytest

from models_engine.engines.fabric.result import SwitchCounts
from tests.engine.fabric_designs import design_doc, fabric_result, site_fabric

# (SUs, nodes, leaf, spine, compute+UFM cables, spine-leaf cables)  [S1] Table 4, stated
H100_TABLE_4 = [
    (1, 31, 8, 4, 252, 256),
    (2, 63, 16, 8, 508, 512),
    (3, 95, 24, 16, 764, 768),
    (4, 127, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine", "compute_cables", "spine_leaf"), H100_TABLE_4
)
def test_dgx_h100_superpod_table_4_counts_are_exact(
    sus, nodes, leaf, spine, compute_cables, spine_leaf
):
    out = site_fabric(design_doc(nodes=nodes)).scale_out
    assert out.scalable_units == sus
    assert out.switches == SwitchCounts(leaf=leaf, spine=spine, core=0, total=leaf + spine)
    assert out.cables["compute_and_fabric_manager"] == compute_cables
    assert out.cables["node_leaf"] == nodes * 8
    assert out.cables["fabric_manager"] == 4
    assert out.cables["leaf_spine"] == spine_leaf
    assert out.fabric_manager["placed_in_free_slot"] is True
    assert out.tiers == 2


def test_dgx_h100_four_su_transceivers_match_the_bill():
    fabric = site_fabric(design_doc(nodes=127))
    out = fabric.scale_out
    # 1,536 twin-port modules on 48 switches x 32 cages; 508 on 127 DGX x 4 cages.
    assert out.transceivers.switch_side == 1536
    assert out.transceivers.node_side == 508
    # the one-site stored result and the one-site builder agree
    assert fabric.to_json()["scale_out"] == fabric_result(design_doc(nodes=127))["scale_out"]


def test_dgx_h100_rail_traffic_is_one_hop_and_cross_rail_three():
    hops = fabric_result(design_doc(nodes=127))["scale_out"]["hops"]
    assert hops["same_rail_same_su"] == 1
    assert hops["cross_rail"] == 3
    assert hops["cross_su"] == 3


def test_each_leaf_lands_an_equal_whole_number_of_links_on_every_spine():
    # 3 SUs: 24 leaves x 32 uplinks need 12 spines' worth of ports, but 12 does not divide 32:
    # the RA uses 16 spines with 2 links from every leaf.
    out = fabric_result(design_doc(nodes=95))["scale_out"]
    assert out["equal_links"]["spines_per_pod"] == 16
    assert out["equal_links"]["links_per_leaf_per_spine"] == 2
    assert out["oversubscription"]["leaf_uplinks"] % out["equal_links"]["spines_per_pod"] == 0


# (SUs, nodes, leaf, spine, core, node-leaf, leaf-spine, spine-core)  DGX B200 RA, stated
B200_LARGER = [
    (2, 64, 16, 8, 0, 512, 512, 0),
    (4, 128, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine", "core", "node_leaf", "leaf_spine", "spine_core"),
    B200_LARGER,
)
def test_dgx_b200_larger_superpods_including_three_tiers(
    sus, nodes, leaf, spine, core, node_leaf, leaf_spine, spine_core
):
    doc = design_doc(nodes=nodes, compute={"gpu_sku": "b200-sxm-180gb", "system_sku": "dgx-b200"})
    out = fabric_result(doc)["scale_out"]
    assert out["scalable_units"] == sus
    assert (out["switches"]["leaf"], out["switches"]["spine"], out["switches"]["core"]) == (
        leaf,
        spine,
        core,
    )
    assert out["cables"]["node_leaf"] == node_leaf
    assert out["cables"]["leaf_spine"] == leaf_spine
    assert out["cables"]["spine_core"] == spine_core
    assert out["tiers"] == (3 if core else 2)


# (SUs, nodes, leaf, spine, node-leaf, leaf-spine)  B300 Quantum-X800 RA Table 3, stated
B300_XDR = [
    (1, 72, 8, 4, 576, 576),
    (2, 144, 16, 8, 1152, 1152),
    (4, 288, 32, 18, 2304, 2304),
    (8, 576, 64, 36, 4608, 4608),
    (18, 1296, 144, 72, 10368, 10368),
]


@pytest.mark.parametrize(("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), B300_XDR)
def test_dgx_b300_xdr_144_port_radix(sus, nodes, leaf, spine, node_leaf, leaf_spine):
    doc = design_doc(
        nodes=nodes,
        compute={"gpu_sku": "b300-sxm", "system_sku": "dgx-b300"},
        fabric={
            "technology": "infiniband-xdr",
            "switch_sku": "nvidia-q3400",
            "nic_sku": "cx8-xdr-800g",
            "nic_speed_gbps": 800,
        },
    )
    out = fabric_result(doc)["scale_out"]
    assert out["scalable_units"] == sus
    assert (out["switches"]["leaf"], out["switches"]["spine"]) == (leaf, spine)
    assert out["cables"]["node_leaf"] == node_leaf
    assert out["cables"]["leaf_spine"] == leaf_spine


# (SUs, nodes, leaf, spine, node-leaf, leaf-spine)  B300 Spectrum-4 RA Table 3, stated
B300_SPECTRUM4 = [
    (1, 64, 16, 8, 512, 512),
    (2, 128, 32, 16, 1024, 1024),
    (4, 256, 64, 32, 2048, 2048),
    (8, 512, 128, 64, 4096, 4096),
    (16, 1024, 256, 128, 8192, 8192),
]


@pytest.mark.parametrize(
    ("sus", "nodes", "leaf", "spine", "node_leaf", "leaf_spine"), B300_SPECTRUM4
)
def test_dgx_b300_spectrum4_twin_plane_ethernet(sus, nodes, leaf, spine, node_leaf, leaf_spine):
    doc = design_doc(
        nodes=nodes,
        compute={"gpu_sku": "b300-sxm", "system_sku": "dgx-b300"},
        fabric={
            "technology": "roce-800g",
            "switch_sku": "nvidia-sn5600",
            "nic_sku": "cx8-xdr-800g",
            "nic_speed_gbps": 800,
            "planes": 2,
        },
    )
    out = fabric_result(doc)["scale_out"]
    assert out["scalable_units"] == sus
    assert out["port_mode"] == {
        "ports_per_switch": 128,
        "port_speed_gbps": 400.0,
        "breakout_used": True,
    }
    assert (out["switches"]["leaf"], out["switches"]["spine"]) == (leaf, spine)
    # one cable per 800G port carries two 400G plane links
    assert out["cables"]["node_leaf"] == node_leaf
    assert out["cables"]["leaf_spine"] == leaf_spine
    assert out["links"]["leaf_spine"]["links"] == 2 * leaf_spine


def test_full_scalable_units_leave_no_slot_for_the_fabric_manager():
    # B200 RA counts node-leaf = nodes x 8 at full SUs: the UFM is reported, not squeezed in.
    doc = design_doc(nodes=64, compute={"gpu_sku": "b200-sxm-180gb", "system_sku": "dgx-b200"})
    result = fabric_result(doc)
    out = result["scale_out"]
    assert out["fabric_manager"]["placed_in_free_slot"] is False
    assert out["cables"]["fabric_manager"] == 0
    assert "fabric-manager-no-slot" in {f["id"] for f in result["findings"]}
