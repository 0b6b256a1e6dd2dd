"""The rendered configurations carry the plan: SONiC config_db.json tables hold the result's
QoS figures (PFC priority, ECN Kmin/Kmax, PFC headroom) and reference only objects they define;
FRR and EOS leaves hold each tenant's VRF with its L3 VNI and type-5 export; spines aggregate
their pod only when the design asks; OpenSM gets one partition per tenant; and the security
engine judges the network's isolation facts from the typed result."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import models_engine
from models_engine.engines.network.render import MD5_PLACEHOLDER, frr_config, render_plans
from models_engine.engines.network.render_sonic import sonic_config_db
from models_engine.engines.security import evaluate_security
from models_engine.pipeline import run_engines, security_facts
from models_engine.validate import validate_design
from tests.engine.network_lab import reduced_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ROCE = "llama3-16k-h100-roce.json"
INFINIBAND = "h100-256-onprem-starter.json"
TWO_TENANTS = [{"name": "red"}, {"name": "blue"}]


def design(name: str, network: dict | None = None, ecn: bool = True, **security):
    doc = json.loads((EXAMPLES / name).read_text())
    doc["network"] = network or {}
    if doc["fabric"]["technology"].startswith("roce"):
        doc["fabric"].setdefault("roce", {})["ecn_enabled"] = ecn
    doc.setdefault("security", {}).update(security)
    return validate_design(doc)


def planned(name: str, network: dict | None = None, ecn: bool = True):
    built = design(name, network, ecn)
    results = run_engines(built.spec, built.catalog, built.gpu, only=("fabric", "network"))
    return results["fabric"], results["network"]


@pytest.fixture(scope="module")
def roce():
    fabric, network = planned(ROCE, {"tenants": TWO_TENANTS})
    return fabric, network, render_plans(fabric, network)[0]


def config_db(plan, role: str) -> dict:
    device = next(d for d in plan.topo.devices() if d.role == role)
    return json.loads(sonic_config_db(plan, device))


@pytest.mark.parametrize("role", ["leaf", "spine", "core"])
def test_sonic_config_db_references_only_what_it_defines(roce, role):
    _, _, plan = roce
    db = config_db(plan, role)
    ports = db["PORT"]
    for key in [*db["PORT_QOS_MAP"], *(k.split("|")[0] for k in db["QUEUE"])]:
        assert key in ports, key
    for key in db["INTERFACE"]:
        assert key.split("|")[0] in ports, key
    for key in db.get("VLAN_MEMBER", {}):
        vlan, port = key.split("|")
        assert vlan in db["VLAN"] and port in ports, key
    for key, pg in db["BUFFER_PG"].items():
        assert pg["profile"] in db["BUFFER_PROFILE"], key
    for profile in db["BUFFER_PROFILE"].values():
        assert profile["pool"] in db["BUFFER_POOL"]
    for entry in db["QUEUE"].values():
        assert entry["scheduler"] in db["SCHEDULER"]
        assert entry.get("wred_profile", next(iter(db["WRED_PROFILE"]))) in db["WRED_PROFILE"]
    for qos in db["PORT_QOS_MAP"].values():
        for table in ("DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP"):
            assert qos[{"DSCP_TO_TC_MAP": "dscp_to_tc_map",
                        "TC_TO_PRIORITY_GROUP_MAP": "tc_to_pg_map",
                        "TC_TO_QUEUE_MAP": "tc_to_queue_map"}[table]] in db[table]  # fmt: skip
    assert db["DEVICE_METADATA"]["localhost"]["bgp_asn"] == str(
        plan.asns.asn(next(d for d in plan.topo.devices() if d.role == role))
    )


def test_sonic_qos_tables_carry_the_results_figures(roce):
    _, network, plan = roce
    site = network.sites[0]
    db = config_db(plan, "leaf")
    lossless = next(c for c in site.traffic_classes if c["lossless"])
    assert {q["pfc_enable"] for q in db["PORT_QOS_MAP"].values()} == {str(lossless["priority"])}
    dscp = db["DSCP_TO_TC_MAP"]["ROCE"]
    assert len(dscp) == 64 and dscp[str(lossless["dscp"])] == str(lossless["priority"])
    ecn = site.ecn_by_link_speed[0]
    (wred,) = db["WRED_PROFILE"].values()
    assert wred["ecn"] == "ecn_all"
    assert int(wred["green_min_threshold"]) == round(ecn["ecn_kmin_kb"] * 1000)
    assert int(wred["green_max_threshold"]) == round(ecn["ecn_kmax_kb"] * 1000)
    headroom = {r["links"]: round(r["headroom_kb_per_port"] * 1000) for r in site.pfc_headroom}
    xoffs = {int(p["xoff"]) for p in db["BUFFER_PROFILE"].values()}
    assert xoffs == {headroom["node_leaf"], headroom["leaf_spine"]}
    assert len(db["BUFFER_PG"]) == len(db["PORT"])  # every port's lossless PG has headroom
    assert int(db["BUFFER_POOL"]["ingress_lossless_pool"]["size"]) == round(
        site.buffer_check[0]["buffer_mb"] * 1e6
    )


def test_sonic_without_ecn_has_no_wred_profile():
    fabric, network = planned(ROCE, ecn=False)
    db = config_db(render_plans(fabric, network)[0], "leaf")
    assert "WRED_PROFILE" not in db
    assert not any("wred_profile" in q for q in db["QUEUE"].values())


def test_leaf_tenants_are_symmetric_irb_vrfs_in_every_dialect(roce):
    _, network, plan = roce
    leaf = plan.topo.leaf(0)
    frr = models_engine.network_configs(*roce[:2], "frr")[f"{plan.topo.site_id}/frr/leaf1.frr.conf"]
    eos = models_engine.network_configs(*roce[:2], "eos")[f"{plan.topo.site_id}/eos/leaf1.eos.cfg"]
    db = config_db(plan, "leaf")
    for number, tenant in plan.tenant_numbered():
        vrf, subnet = tenant["vrf"], plan.addresses.tenant_subnet(number)
        gateway = f"{plan.addresses.tenant_gateway(number)}/{subnet.prefixlen}"
        assert f"vrf {vrf}\n vni {tenant['l3_vni']}\nexit-vrf" in frr
        vrf_bgp = frr.split(f"router bgp {plan.asns.asn(leaf)} vrf {vrf}\n")[1].split("exit\n")[0]
        assert "advertise ipv4 unicast" in vrf_bgp and "redistribute connected" in vrf_bgp
        assert f"route-target export {tenant['route_target_l3']}" in vrf_bgp
        assert f"interface Vlan{tenant['vlan']}\n description tenant" in frr and gateway in frr
        assert f"vxlan vrf {vrf} vni {tenant['l3_vni']}" in eos
        assert f"ip address virtual {gateway}" in eos
        assert db["VRF"][vrf] == {"vni": str(tenant["l3_vni"])}
        assert db["VLAN_INTERFACE"][f"Vlan{tenant['vlan']}"] == {"vrf_name": vrf}
        assert f"Vlan{tenant['vlan']}|{gateway}" in db["VLAN_INTERFACE"]
    subnets = [row["subnet"] for row in network.sites[0].tenant_subnets]
    assert len(set(subnets)) == 2 and None not in subnets


def test_spines_aggregate_their_pod_only_when_the_design_asks():
    for scheme, aggregated in (("none", False), ("pod", True)):
        fabric, network = planned(ROCE, {"route_summarisation": scheme})
        plan = render_plans(fabric, network)[0]
        configs = models_engine.network_configs(fabric, network, "frr")
        site = plan.topo.site_id
        spine = configs[f"{site}/frr/spine1.frr.conf"]
        leaf = configs[f"{site}/frr/leaf1.frr.conf"]
        expected = f"aggregate-address {network.sites[0].underlay.summaries[0]} summary-only"
        assert (expected in spine) is aggregated
        assert "aggregate-address" not in leaf
        finding = "summarised-pod-routes-blackhole" in {f["id"] for f in network.findings}
        assert finding is aggregated


def test_bgp_session_protection_is_rendered_as_stated():
    fabric, network = planned(ROCE, {"bgp_gtsm": True, "bgp_authentication": "md5"})
    site = network.sites[0].site_id
    frr = models_engine.network_configs(fabric, network, "frr")[f"{site}/frr/spine1.frr.conf"]
    eos = models_engine.network_configs(fabric, network, "eos")[f"{site}/eos/spine1.eos.cfg"]
    assert "neighbor FABRIC ttl-security hops 1" in frr
    assert f"neighbor FABRIC password {MD5_PLACEHOLDER}" in frr
    assert "neighbor FABRIC ttl maximum-hops 1" in eos
    fabric, network = planned(ROCE, {"bgp_gtsm": False})
    frr = models_engine.network_configs(fabric, network, "frr")[f"{site}/frr/spine1.frr.conf"]
    assert "ttl-security" not in frr and "password" not in frr


def test_infiniband_site_gets_one_partition_per_tenant_and_two_subnet_managers():
    fabric, network = planned(INFINIBAND, {"tenants": TWO_TENANTS})
    archive = zipfile.ZipFile(io.BytesIO(models_engine.network_configs_zip(fabric, network)))
    site = network.sites[0].site_id
    partitions = archive.read(f"{site}/opensm/partitions.conf").decode()
    lines = [line for line in partitions.splitlines() if line and not line.startswith("#")]
    assert lines == [
        "Default=0x7fff, ipoib : ALL=limited, SELF=full ;",
        "red=0x0001, ipoib, defmember=full : ;",
        "blue=0x0002, ipoib, defmember=full : ;",
    ]
    master = archive.read(f"{site}/opensm/opensm-master.conf").decode()
    standby = archive.read(f"{site}/opensm/opensm-standby.conf").decode()
    assert "routing_engine ftree" in master and "sm_priority 15" in master
    assert "sm_priority 14" in standby
    assert not any(n.endswith(".frr.conf") for n in archive.namelist())


# --- security reads the network's isolation facts ---------------------------------------------


def statuses(built, network) -> dict[str, str]:
    facts = network.isolation.security_facts()
    posture = evaluate_security(built.spec, facts=facts)
    return {c["id"]: c["status"] for c in posture["checks"]}


@pytest.mark.parametrize(
    ("tenants", "expected"), [(TWO_TENANTS, "PASS"), ([{"name": "shared"}], "FAIL")]
)
def test_a_shared_fabric_needs_a_segment_per_tenant(tenants, expected):
    built = design(ROCE, {"tenants": tenants}, multi_tenant_fabric=True)
    _, network = planned(ROCE, {"tenants": tenants})
    assert statuses(built, network)["CS-NET-008"] == expected


@pytest.mark.parametrize(
    ("network_intent", "expected"),
    [
        ({}, "PASS"),  # GTSM by default
        ({"bgp_gtsm": False, "bgp_authentication": "md5"}, "PASS"),
        ({"bgp_gtsm": False}, "FAIL"),
    ],
)
def test_bgp_sessions_must_be_protected(network_intent, expected):
    built = design(ROCE, network_intent)
    _, network = planned(ROCE, network_intent)
    assert statuses(built, network)["CS-NET-009"] == expected


def test_infiniband_has_no_bgp_sessions_to_protect():
    built = design(INFINIBAND)
    _, network = planned(INFINIBAND)
    assert statuses(built, network)["CS-NET-009"] == "NOT_APPLICABLE"


def test_the_pipeline_passes_the_network_result_to_security():
    doc = json.loads((EXAMPLES / ROCE).read_text())
    doc["network"] = {"bgp_gtsm": False}
    results = models_engine.evaluate(doc)
    checks = {c["id"]: c for c in results["security"]["checks"]}
    assert checks["CS-NET-009"]["status"] == "FAIL"
    facts = results["security"]["facts"]
    for name in ("network.bgp_session_protection", "fabric.management_shares_compute_fabric"):
        assert facts[name]["source"] == "provided", name
    assert facts["network.bgp_session_protection"]["value"] == []


def test_management_separation_comes_from_the_network_plan():
    built = design(ROCE)
    results = run_engines(
        built.spec, built.catalog, built.gpu, only=("fabric", "network", "storage_supply",
                                                   "performance", "storage", "regions")
    )  # fmt: skip
    facts = security_facts(results["fabric"], results["regions"], results["network"])
    assert facts["fabric.management_shares_compute_fabric"] is False
    flat = design(ROCE, network_segmentation="flat")
    network = run_engines(flat.spec, flat.catalog, flat.gpu, only=("fabric", "network"))["network"]
    assert network.isolation.management_out_of_band is False


# --- FRR accepts every line ------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("vtysh") is None, reason="needs Debian's frr (bin/test)")
def test_frr_parses_every_rendered_line_including_tenant_vrfs_md5_and_aggregates(tmp_path):
    """vtysh's dry run (-C) parses a config with FRR's own grammar and fails on any line it
    does not know: it covers what the namespace lab cannot where the kernel lacks VRF devices
    (the tenant VRFs' BGP instances, type-5 export), plus MD5 and the spine aggregates."""
    plan = dataclasses.replace(reduced_plan(), bgp_md5=True)
    for device in plan.topo.devices():
        conf = tmp_path / f"{device.name}.conf"
        conf.write_text(frr_config(plan, device))
        done = subprocess.run(["vtysh", "-C", "-f", str(conf)], capture_output=True, text=True)
        assert done.returncode == 0, f"{device.name}: {done.stdout}{done.stderr}"
    leaf = frr_config(plan, plan.topo.leaf(0))
    assert "advertise ipv4 unicast" in leaf and MD5_PLACEHOLDER in leaf
    broken = tmp_path / "broken.conf"
    broken.write_text(leaf.replace(" advertise ipv4 unicast", " advertise ipv4 unicastt"))
    done = subprocess.run(["vtysh", "-C", "-f", str(broken)], capture_output=True, text=True)
    assert done.returncode != 0  # the dry run does reject what FRR does not know
