"""The rendered FRR configuration of a reduced fabric (4 leaves, 2 spines, 2 hosts per leaf,
2 tenants) booted on real routing daemons in network namespaces (network_lab.py): every BGP
session comes up, every loopback answers from every leaf over as many equal-cost paths as
there are spines, and every tenant VNI has one EVPN route per VTEP. Skipped only without root
or without Debian's frr."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.engine.network_lab import Lab, missing_prerequisite, reduced_plan

pytestmark = pytest.mark.skipif(
    missing_prerequisite() is not None, reason=str(missing_prerequisite())
)
CONVERGE_S = 60.0


@pytest.fixture(scope="module")
def lab():
    lab = Lab(reduced_plan(leaves=4, spines=2, hosts_per_leaf=2, tenants=("red", "blue")))
    try:
        lab.boot()
        yield lab
    finally:
        lab.teardown()


def wait_for(check, what: str):
    """Poll `check()` (returns (ok, detail)) until ok or CONVERGE_S; fail with the detail."""
    deadline = time.monotonic() + CONVERGE_S
    while True:
        ok, detail = check()
        if ok:
            return detail
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not reached in {CONVERGE_S:.0f} s: {detail}")
        time.sleep(1.0)


def switches(lab):
    return list(lab.plan.topo.devices())


def leaves(lab):
    return [d for d in switches(lab) if d.role == "leaf"]


def test_every_bgp_session_established(lab):
    def check():
        states = {}
        for device in switches(lab):
            peers = lab.vtysh(device.name, "show bgp summary json")["ipv4Unicast"]["peers"]
            expected = len(lab.plan.ports(device))
            states[device.name] = [p["state"] for p in peers.values()]
            if len(peers) != expected:
                return False, states
        ok = all(s == "Established" for row in states.values() for s in row)
        return ok, states

    states = wait_for(check, "every session Established")
    links = sum(1 for _ in lab.plan.topo.all_links())
    assert sum(len(row) for row in states.values()) == 2 * links


def test_every_loopback_reachable_from_every_leaf_over_ecmp(lab):
    spines = lab.plan.topo.spines
    loopbacks = {d.name: str(lab.plan.addresses.loopback(d)) for d in switches(lab)}

    def check():
        widths = {}
        for leaf in leaves(lab):
            for other in leaves(lab):
                if other != leaf:
                    route = json.loads(
                        lab.run(leaf.name, "ip", "-j", "route", "show", loopbacks[other.name])
                    )
                    hops = route[0].get("nexthops", [route[0]]) if route else []
                    widths[(leaf.name, other.name)] = len(hops)
        return all(w == spines for w in widths.values()), widths

    wait_for(check, f"{spines} equal-cost next hops to every other leaf")
    for leaf in leaves(lab):
        for name, address in loopbacks.items():
            if name != leaf.name:
                assert lab.reaches(leaf.name, loopbacks[leaf.name], address), (
                    f"{leaf.name} -> {name} ({address}) unanswered"
                )


def test_hosts_reach_hosts_on_other_leaves(lab):
    """The GPU subnets are announced: a host on leaf1 reaches a host on the last leaf."""
    first, last = leaves(lab)[0], leaves(lab)[-1]
    target = str(lab.plan.addresses.gateway(last) + 1)
    assert lab.reaches(f"{first.name}h1", "-", target), f"{first.name}h1 -> {target}"


def test_one_evpn_route_per_tenant_vni_per_vtep(lab):
    vtep_count = lab.plan.topo.leaves
    vnis = [t["l2_vni"] for t in lab.plan.tenants]

    def check():
        table = lab.vtysh("leaf1", "show bgp l2vpn evpn route type multicast json")
        per_vni = {vni: [] for vni in vnis}
        for routes in table.values():
            if not isinstance(routes, dict) or "rd" not in routes:
                continue
            for prefix, entry in routes.items():
                if not prefix.startswith("[3]"):
                    continue
                best = [p for paths in entry["paths"] for p in paths if p.get("bestpath")]
                for path in best:
                    rt = re.search(r"RT:\S+:(\d+)", path["extendedCommunity"]["string"])
                    if rt and int(rt.group(1)) in per_vni:
                        per_vni[int(rt.group(1))].append(path["ip"])
        ok = all(sorted(set(v)) == sorted(v) and len(v) == vtep_count for v in per_vni.values())
        return ok, per_vni

    per_vni = wait_for(check, "one type-3 EVPN route per VNI from every VTEP")
    leaf_loopbacks = {str(lab.plan.addresses.loopback(d)) for d in leaves(lab)}
    assert all(set(vteps) == leaf_loopbacks for vteps in per_vni.values())


def evpn_routes(lab, leaf: str, route_type: str) -> dict[str, list[dict]]:
    """{prefix: [best path, ...]} of one EVPN route type in a leaf's BGP table, every RD."""
    table = lab.vtysh(leaf, f"show bgp l2vpn evpn route type {route_type} json")
    found: dict[str, list[dict]] = {}
    for rd, routes in table.items():
        if not isinstance(routes, dict) or "rd" not in routes:
            continue
        for prefix, entry in routes.items():
            if not prefix.startswith("["):
                continue
            best = [p for paths in entry["paths"] for p in paths if p.get("bestpath")]
            found.setdefault(prefix, []).extend({**p, "rd": rd} for p in best)
    return found


def test_one_type5_route_per_tenant_from_every_vtep_with_its_l3_route_target(lab):
    """Symmetric IRB: each tenant's subnet (its anycast gateway on every leaf, in its VRF)
    is announced as an EVPN type-5 route by every leaf, tagged with the tenant's L3 route
    target only, and lands in that tenant's VRF and no other."""
    if not lab.vrf_support:
        pytest.skip("this kernel has no VRF devices (CONFIG_NET_VRF): no L3 VNI, no type-5")
    plan = lab.plan
    vteps = plan.topo.leaves
    subnets = {t["tenant"]: (plan.addresses.tenant_subnet(n), t) for n, t in plan.tenant_numbered()}

    def check():
        routes = evpn_routes(lab, "leaf1", "prefix")
        per_tenant = {}
        for name, (subnet, _) in subnets.items():
            key = f"[5]:[0]:[{subnet.prefixlen}]:[{subnet.network_address}]"
            paths = routes.get(key, [])
            per_tenant[name] = {
                "rds": sorted({p["rd"] for p in paths}),
                "rts": sorted(
                    set(
                        re.findall(
                            r"RT:(\S+)", " ".join(p["extendedCommunity"]["string"] for p in paths)
                        )
                    )
                ),
            }
        ok = all(len(v["rds"]) == vteps for v in per_tenant.values())
        return ok, per_tenant

    per_tenant = wait_for(check, "one type-5 route per tenant from every VTEP")
    for name, (_, tenant) in subnets.items():
        assert per_tenant[name]["rts"] == [tenant["route_target_l3"]], per_tenant[name]
    for name, (subnet, tenant) in subnets.items():
        table = lab.vtysh("leaf1", f"show ip route vrf {tenant['vrf']} json")
        assert str(subnet) in table, f"{subnet} missing from {tenant['vrf']}"
        others = [t for t in plan.tenants if t["tenant"] != name]
        for other in others:
            assert str(subnet) not in lab.vtysh("leaf1", f"show ip route vrf {other['vrf']} json")


def test_leaf_holds_the_spines_pod_aggregate_instead_of_leaf_subnets(lab):
    """Spines announce the pod's GPU subnets as one aggregate (summary-only): a leaf routes
    to the other leaves' hosts over it, through every spine, and holds no per-leaf subnet."""
    plan = lab.plan
    aggregate = plan.summaries[0]
    last = leaves(lab)[-1]

    def check():
        route = json.loads(lab.run("leaf1", "ip", "-j", "route", "show", "exact", aggregate))
        hops = route[0].get("nexthops", [route[0]]) if route else []
        return len(hops) == plan.topo.spines, route

    wait_for(check, f"{aggregate} over {plan.topo.spines} spines on leaf1")
    specific = str(plan.addresses.gpu_subnet(last))
    assert json.loads(lab.run("leaf1", "ip", "-j", "route", "show", "exact", specific)) == []


def test_sessions_run_with_gtsm(lab):
    """GTSM (RFC 5082) is on: every session of a spine is established with TTL security
    (bgpd reports a peer "at most 1 hop away" only for GTSM or multihop; the rendered config
    has no multihop, so this is GTSM's one hop)."""
    neighbors = lab.vtysh("spine1", "show bgp neighbors json")
    assert neighbors and all(n.get("bgpState") == "Established" for n in neighbors.values())
    assert all(n.get("externalBgpNbrMaxHopsAway") == 1 for n in neighbors.values()), neighbors
    running = lab.run("spine1", "vtysh", "--vty_socket", lab.dir("spine1"), "-c", "show run")
    assert "neighbor FABRIC ttl-security hops 1" in running
