"""Planes and mixed port speeds on one 51.2 Tb/s box, counts derived by hand in each docstring.

The box is the NVIDIA Spectrum-4 SN5600: 64 native 800G ports, split as 128 x 400G or
256 x 200G (SN5000 manual, catalog more_breakouts). Base design: DGX H100 nodes, 8 rails.
"""

from __future__ import annotations

import pytest

from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design
from tests.engine.fabric_designs import design_doc, site_fabric

SN5600_200G = {
    "technology": "roce-400g",
    "switch_sku": "nvidia-sn5600",
    "nic_sku": "cx7-ndr-400g",
    "nic_speed_gbps": 200,
}
CX8_800G = {
    "technology": "roce-800g",
    "switch_sku": "nvidia-sn5600",
    "nic_sku": "cx8-xdr-800g",
    "nic_speed_gbps": 800,
}


def _links(scale_out) -> dict[str, tuple[int, float, int]]:
    return {
        name: (group.links, group.link_speed_gbps, group.cables)
        for name, group in scale_out.links.items()
    }


def test_a_51t_leaf_runs_128x200g_down_and_64x400g_up():
    """200G node links run four per native port (256 x 200G mode), 400G uplinks two per port
    (128 x 400G). At 1:1 the leaf keeps u native ports up with (64 - u) x 4 x 200 = u x 2 x 400
    -> u = 32: 32 ports as 64 x 400G up and 32 ports as 128 x 200G down (all 51.2 Tb/s used).
    128 nodes x 8 rails = 1 SU of 128 nodes = 8 leaves. Spines run 400G (128 ports):
    8 x 64 = 512 uplinks; S x 128 >= 512 and 64 / S whole -> S = 4. Cables = native ports in
    use: node side 8 leaves x 32 = 256, leaf-spine 8 x 32 = 256. One speed (200G up too)
    needs the same 8 + 4 switches but 1,024 leaf-spine links instead of 512."""
    mixed = site_fabric(
        design_doc(nodes=128, fabric={**SN5600_200G, "leaf_uplink_speed_gbps": 400})
    ).scale_out
    same = site_fabric(design_doc(nodes=128, fabric=SN5600_200G)).scale_out
    assert (mixed.switches.leaf, mixed.switches.spine, mixed.switches.core) == (8, 4, 0)
    assert _links(mixed) == {"node_leaf": (1024, 200, 256), "leaf_spine": (512, 400, 256)}
    over = mixed.oversubscription
    assert (over["leaf"], over["leaf_downlinks"], over["leaf_uplinks"]) == (1.0, 128, 64)
    leaf = next(row for row in mixed.switch_tiers if row["tier"] == "leaf")
    assert leaf["ports_used"] == leaf["ports_total"] == 8 * 64
    assert (same.switches.leaf, same.switches.spine) == (8, 4)
    assert _links(same)["leaf_spine"] == (1024, 200, 256)


def test_dual_plane_400g_nics_build_two_200g_planes():
    """Each 400G NIC port splits into 2 planes of 200G. One plane: 256 nodes x 8 rails = 2,048
    endpoints at 200G; a leaf (256 x 200G) at 1:1 takes 128 nodes down, 128 up, so an SU is 128
    nodes and 8 leaves: 2 SUs = 16 leaves; 16 x 128 = 2,048 uplinks, S x 256 >= 2,048 and
    128 / S whole -> 8 spines. Two planes: 32 leaves + 16 spines = 48 switches, 4,096 node links
    (256 x 8 x 2) and 4,096 leaf-spine links, all 200G."""
    fabric = {**SN5600_200G, "nic_speed_gbps": 400, "nic_sku": "bf3-400g", "planes": 2}
    scale_out = site_fabric(design_doc(nodes=256, fabric=fabric)).scale_out
    assert scale_out.planes == 2
    assert (scale_out.switches.leaf, scale_out.switches.spine, scale_out.switches.total) == (
        32,
        16,
        48,
    )
    links = _links(scale_out)
    assert links["node_leaf"][:2] == (4096, 200)
    assert links["leaf_spine"][:2] == (4096, 200)
    assert scale_out.leaves_per_su == 16  # 8 rails x 2 planes


def test_four_planes_split_an_800g_connectx8_into_4x200g():
    """ConnectX-8 (800G) over 4 planes of 200G: each plane is the dual-plane test's plane
    (256 nodes x 8 rails at 200G = 16 leaves + 8 spines), four times over: 64 leaves + 32 spines,
    256 x 8 x 4 = 8,192 node links and 8,192 leaf-spine links at 200G; node-leaf cables = leaf
    native ports in use = 8,192 / 4 links per port = 2,048."""
    scale_out = site_fabric(design_doc(nodes=256, fabric={**CX8_800G, "planes": 4})).scale_out
    assert scale_out.planes == 4
    assert (scale_out.switches.leaf, scale_out.switches.spine) == (64, 32)
    assert _links(scale_out) == {
        "node_leaf": (8192, 200, 2048),
        "leaf_spine": (8192, 200, 2048),
    }


@pytest.mark.parametrize("planes", [3, 16])
def test_plane_counts_other_than_1_2_4_8_are_errors_naming_the_field(planes):
    with pytest.raises(SpecValidationError) as caught:
        validate_design(design_doc(fabric={**CX8_800G, "planes": planes}))
    assert "fabric.planes" in [error["path"] for error in caught.value.errors]


def test_a_576_port_chassis_spine_replaces_32_fixed_spines():
    """SN5600 leaves (128 x 400G: 64 down, 64 up at 1:1) under Arista 7816R4 chassis spines
    (576 x 800G = 1,152 x 400G). 512 nodes x 8 rails = 8 SUs of 64 nodes = 64 leaves; 64 x 64 =
    4,096 uplinks at 400G. Two tiers: S x 1,152 >= 4,096 and 64 / S whole -> S = 4 chassis
    (each uses 4,096 / 4 / 2 = 512 of its 576 native ports). Fixed SN5600 spines (128 x 400G)
    need 4,096 / 128 = 32. The chassis lines carry allowances (no published price or power)."""
    fabric = {**SN5600_200G, "nic_sku": "bf3-400g", "nic_speed_gbps": 400, "tiers": 2}
    chassis = site_fabric(
        design_doc(nodes=512, fabric={**fabric, "spine_switch_sku": "arista-7816r4"})
    )
    fixed = site_fabric(design_doc(nodes=512, fabric=fabric)).scale_out
    scale_out = chassis.scale_out
    assert (scale_out.switches.leaf, scale_out.switches.spine) == (64, 4)
    assert (fixed.switches.leaf, fixed.switches.spine) == (64, 32)
    spine = next(row for row in scale_out.switch_tiers if row["tier"] == "spine")
    assert (spine["ports_total"], spine["ports_used"]) == (4 * 576, 4 * 512)
    assert scale_out.links["leaf_spine"].links == 4096
    line = next(line for line in chassis.bom if line.catalog_id == "arista-7816r4")
    assert line.quantity == 4 and line.power_basis == "allowance"
