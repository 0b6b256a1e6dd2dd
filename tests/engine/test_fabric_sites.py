"""Sites are first-class in the fabric and facility engines: one compute fabric and one facility
per site, sized to that site's GPUs, plus the WAN / data-centre-interconnect equipment between
sites in the BOM, priced (or explicitly unpriced) and powered at its site.

Figures under test: QM9700 (R = 64) reaches R^3/4 = 65,536 endpoints in three tiers (fabric_clos
tests), so ~33k GB200 per site fit one site fabric while ~99k do not; WAN rules in
`engines/fabric/wan.py` (ports per end = ceil(bandwidth / 400G), two modules per port pair,
routers = max(2, ceil(ports / WAN ports per router))).
"""

from __future__ import annotations

import math

import pytest

from models_engine.engines.fabric.data import WAN_MIN_ROUTERS_PER_SITE
from models_engine.engines.fabric.wan import fibre_km
from tests.engine.fabric_designs import (
    CATALOG,
    cluster_fabric,
    cluster_facility,
    design_doc,
    multi_site_doc,
)

GB200 = "gb200-nvl72-multirack"
NVL72_RACKS_99K = 1380  # 1,380 NVL72 racks = 99,360 GPUs, 460 racks (33,120 GPUs) per site


def _ids(findings) -> set[str]:
    return {finding["id"] for finding in findings}


def test_three_sites_of_33k_gb200_get_three_fabrics_within_capacity():
    doc = multi_site_doc(GB200, NVL72_RACKS_99K * 72, ["or", "tx", "va"])
    fabric = cluster_fabric(doc)
    assert [site.site_id for site in fabric.sites] == ["or", "tx", "va"]
    assert sum(site.gpus for site in fabric.sites) == doc["compute"]["gpu_count"]
    for site in fabric.sites:
        assert site.gpus == 33_120
        assert site.scale_out.gpus == site.gpus
        assert site.scale_out.capacity["within_capacity"] is True
        assert site.scale_out.tiers == 3
    assert "fabric-capacity-exceeded" not in _ids(fabric.findings)
    # The same GPUs as ONE fabric would exceed what three tiers of a 64-port switch reach.
    one_site = cluster_fabric(design_doc(GB200, compute={"gpu_count": NVL72_RACKS_99K * 72}))
    assert "fabric-capacity-exceeded" in _ids(one_site.findings)

    wan = [line for line in fabric.bom if line.network == "wan"]
    assert {line.site for line in wan} == {"or", "tx", "va"}
    assert {line.category for line in wan} == {"router", "transceiver"}
    assert fabric.totals.wan_routers == 3 * WAN_MIN_ROUTERS_PER_SITE
    # three links of 3.2 Tb/s: 8 x 400G ports per end, 16 modules per link
    assert fabric.totals.wan_transceivers == 3 * 2 * 8
    assert fabric.totals.switches.total == sum(s.scale_out.switches.total for s in fabric.sites)


def test_every_bom_line_is_tagged_with_its_site_and_wan_lines_sum_to_the_plan():
    doc = multi_site_doc(GB200, 2 * 576, ["a", "b"], bandwidth_gbps=2000)
    fabric = cluster_fabric(doc)
    assert all(line.site in {"a", "b"} for line in fabric.bom)
    plan = fabric.wan
    assert plan is not None
    (link,) = plan.links
    assert link.ports_per_end == math.ceil(2000 / 400) == 5
    assert link.transceivers == 10
    optics = [x for x in fabric.bom if x.network == "wan" and x.category == "transceiver"]
    assert sum(line.quantity for line in optics) == plan.transceivers == 10
    routers = [x for x in fabric.bom if x.category == "router"]
    assert {line.site: line.quantity for line in routers} == plan.routers_by_site
    assert fabric.site_bom("a") == [line for line in fabric.bom if line.site == "a"]


def test_two_site_bom_has_wan_routers_and_optics_priced_or_explicitly_unpriced():
    fabric = cluster_fabric(multi_site_doc("dgx-h100-superpod-4su", 2 * 1016, ["east", "west"]))
    wan = [line for line in fabric.bom if line.network == "wan"]
    assert any(line.category == "router" for line in wan)
    assert any(line.category == "transceiver" for line in wan)
    for line in wan:
        assert line.quantity > 0
        assert line.unit_power_w is not None and line.unit_power_max_w is not None
        if line.unit_price_usd is None:
            assert line.total_price_usd is None
            assert "unpriced" in (line.note or "")
            assert line.item in fabric.price_usd.items_without_price
        else:
            assert line.total_price_usd == line.unit_price_usd * line.quantity
    assert fabric.power_w.router_max_w > 0
    assert fabric.power_w.max_w_by_network["wan"] == pytest.approx(
        sum(line.total_power_max_w for line in wan)
    )


def test_each_site_facility_holds_its_wan_routers_and_optics():
    doc = multi_site_doc("dgx-h100-superpod-4su", 2 * 1016, ["east", "west"])
    fabric = cluster_fabric(doc)
    facility = cluster_facility(doc)
    one_site = cluster_facility(design_doc("dgx-h100-superpod-4su", nodes=127))
    for site in facility.sites:
        wan = [line for line in fabric.site_bom(site.site_id) if line.network == "wan"]
        wan_kw = sum(line.total_power_max_w for line in wan) / 1000.0
        # same site size as the one-site design: the difference is exactly its WAN gear
        base = one_site.primary.power.it_kw
        it = site.power.it_kw
        assert it.switches + it.optics == pytest.approx(base.switches + base.optics + wan_kw)
        assert site.rack_summary.network_racks == one_site.primary.rack_summary.network_racks + 1
        assert any("WAN / DCI router" in rack["items"][0]["what"] for rack in site.racks)
    assert facility.totals.total_racks == sum(s.rack_summary.total_racks for s in facility.sites)


def test_long_links_need_a_line_system_and_beyond_reach_links_are_reported_not_skipped():
    metro = multi_site_doc(GB200, 2 * 576, ["a", "b"], rtt_ms=0.5)  # ~51 km
    regional = multi_site_doc(GB200, 2 * 576, ["a", "b"], rtt_ms=4.0)  # ~408 km
    long_haul = multi_site_doc(GB200, 2 * 576, ["a", "b"], rtt_ms=60.0)  # ~6,100 km
    assert fibre_km(1.0) == pytest.approx(102.1, rel=0.01)

    link = cluster_fabric(metro).wan.links[0]
    assert (link.reach_class, link.optic_sku) == ("400zr", "qsfpdd-400g-zr")

    fabric = cluster_fabric(regional)
    assert fabric.wan.links[0].reach_class == "openzr+"
    assert "wan-line-system-not-priced" in _ids(fabric.findings)

    fabric = cluster_fabric(long_haul)
    link = fabric.wan.links[0]
    assert link.reach_class == "beyond-pluggable-reach" and link.optic_sku is None
    assert link.transceivers == 0 and link.line_system_needed
    assert "wan-beyond-pluggable-reach" in _ids(fabric.findings)
    transport = [line for line in fabric.bom if line.category == "wan-transport"]
    assert transport and all(line.unit_price_usd is None for line in transport)
    assert fabric.totals.wan_routers == 2 * WAN_MIN_ROUTERS_PER_SITE  # ports still terminate


def test_coherent_optics_are_never_picked_inside_a_site():
    fabric = cluster_fabric(design_doc("dgx-h100-superpod-4su", nodes=127))
    coherent = {optic.id for optic in CATALOG.optics.values() if optic.coherent}
    assert coherent
    assert not {line.catalog_id for line in fabric.bom} & coherent
    assert fabric.wan is None and fabric.totals.wan_routers == 0


def test_routers_grow_with_wan_ports():
    doc = multi_site_doc(GB200, 2 * 576, ["a", "b"], bandwidth_gbps=400 * 40)
    fabric = cluster_fabric(doc)
    per_router = fabric.wan.wan_ports_per_router
    assert per_router == 18  # 36 cages, half facing the WAN
    assert fabric.wan.routers_by_site == {"a": math.ceil(40 / 18), "b": math.ceil(40 / 18)}
