"""Invariants of the logical-network plan over many fabric shapes (hypothesis): addresses never
overlap across or within pools, every link gets exactly two addresses seen from both ends, ASN
plans follow the stated scheme, PFC headroom grows with cable length and link speed."""

from __future__ import annotations

import ipaddress
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models_engine.engines.network.addressing import AddressPlan
from models_engine.engines.network.qos import pfc_headroom_bytes
from models_engine.engines.network.routing import AsnPlan
from models_engine.engines.network.topology import SiteTopology
from models_engine.spec.network import PRIVATE_ASN_FIRST, PRIVATE_ASN_LAST, AddressPools

POOLS = AddressPools()
NO_OFFSETS = dict.fromkeys(("loopback", "p2p", "gpu", "tenant", "management", "storage"), 0)
TENANTS = 3


@st.composite
def topologies(draw) -> SiteTopology:
    pods = draw(st.integers(1, 4))
    cores = draw(st.sampled_from([0, 0, 2, 4, 8])) if pods > 1 else 0
    spines_per_pod = draw(st.integers(1, 8))
    leaves_per_pod = draw(st.integers(1, 16))
    pods = pods if cores else 1
    leaves = pods * leaves_per_pod - draw(st.integers(0, leaves_per_pod - 1))
    return SiteTopology(
        site_id="s",
        technology="roce-400g",
        leaves=leaves,
        spines=pods * spines_per_pod,
        cores=cores,
        pods=pods,
        leaf_uplinks=spines_per_pod * draw(st.integers(1, 4)),
        spine_uplinks=draw(st.integers(1, 8)) if cores else 0,
        hosts_per_leaf=draw(st.integers(1, 128)),
        rails=None,
        nodes=leaves,
        link_speed_gbps=400.0,
    )


def allocations(topo: SiteTopology) -> dict[str, list[ipaddress.IPv4Network]]:
    plan = AddressPlan(POOLS, topo, NO_OFFSETS, TENANTS)
    leaves = [d for d in topo.devices() if d.role == "leaf"]
    nets = {
        "loopback": [ipaddress.IPv4Network(plan.loopback(d)) for d in topo.devices()],
        "p2p": [ipaddress.IPv4Network((plan.p2p(link)[0], 31)) for link in topo.all_links()],
        "gpu": [plan.gpu_subnet(leaf) for leaf in leaves],
        "tenant": [plan.tenant_subnet(n) for n in range(1, TENANTS + 1)],
    }
    for use in plan.usage(management_hosts=topo.switches + 2 * topo.nodes, storage_hosts=64):
        if use.pool in ("management", "storage"):
            first = ipaddress.IPv4Network(use.first).network_address
            last = ipaddress.IPv4Network(use.last).network_address
            nets[use.pool] = list(ipaddress.summarize_address_range(first, last))
    return nets


@settings(max_examples=60, deadline=None)
@given(topologies())
def test_addresses_never_overlap_across_or_within_pools(topo):
    nets = allocations(topo)
    flat = sorted(
        ((n, pool) for pool, group in nets.items() for n in group),
        key=lambda item: (int(item[0].network_address), item[0].prefixlen),
    )
    for (a, pool_a), (b, pool_b) in itertools.pairwise(flat):
        assert not a.overlaps(b), f"{a} ({pool_a}) overlaps {b} ({pool_b})"
    for pool, group in nets.items():
        parent = ipaddress.IPv4Network(getattr(POOLS, pool))
        assert all(n.subnet_of(parent) for n in group), pool


@settings(max_examples=60, deadline=None)
@given(topologies())
def test_every_link_gets_exactly_two_addresses_seen_from_both_ends(topo):
    plan = AddressPlan(POOLS, topo, NO_OFFSETS, TENANTS)
    ends = Counter()
    addresses = Counter()
    for device in topo.devices():
        for link in topo.links_of(device):
            ends[link.index] += 1
            upper, lower = plan.p2p(link)
            assert upper != lower
            assert (
                ipaddress.IPv4Interface((upper, 31)).network
                == ipaddress.IPv4Interface((lower, 31)).network
            )
            addresses[str(upper if link.upper == device else lower)] += 1
    assert sorted(ends) == list(range(topo.links))
    assert set(ends.values()) <= {2}
    assert len(addresses) == 2 * topo.links and set(addresses.values()) <= {1}


@settings(max_examples=60, deadline=None)
@given(topologies(), st.sampled_from(["per-leaf", "per-tier"]))
def test_asn_plan_follows_its_scheme(topo, scheme):
    plan = AsnPlan(scheme, PRIVATE_ASN_FIRST, topo)
    by_role: dict[str, list[int]] = {"leaf": [], "spine": [], "core": []}
    for device in topo.devices():
        by_role[device.role].append(plan.asn(device))
    every = [asn for group in by_role.values() for asn in group]
    assert all(PRIVATE_ASN_FIRST <= asn <= PRIVATE_ASN_LAST for asn in every)
    assert len(set(every)) == plan.asns_used
    if scheme == "per-leaf":
        assert len(set(by_role["leaf"])) == topo.leaves  # RFC 7938: one ASN per leaf
        spines_per_pod = Counter(plan.asn(d) for d in topo.devices() if d.role == "spine")
        assert len(spines_per_pod) == min(topo.pods, topo.spines)
        assert len(set(by_role["core"])) <= 1
        assert not set(by_role["leaf"]) & set(by_role["spine"] + by_role["core"])
    else:
        assert all(len(set(group)) <= 1 for group in by_role.values())
        assert plan.needs_allowas_in
    for link in topo.all_links():  # every session is eBGP
        assert plan.asn(link.lower) != plan.asn(link.upper)


@given(
    st.sampled_from([25, 100, 200, 400, 800]),
    st.floats(0.5, 2000),
    st.floats(0.1, 500),
    st.sampled_from([1500, 4200, 9216]),
)
def test_pfc_headroom_grows_with_cable_length_and_speed(speed, cable_m, extra_m, mtu):
    here = pfc_headroom_bytes(speed, cable_m, mtu)
    assert pfc_headroom_bytes(speed, cable_m + extra_m, mtu) > here
    faster = {25: 100, 100: 200, 200: 400, 400: 800, 800: 1600}[speed]
    assert pfc_headroom_bytes(faster, cable_m, mtu) > here


def test_pfc_headroom_matches_the_802_1qbb_sum_at_100g():
    """100 GbE, 100 m, 9216-byte frames: 2 x (9216 x 8 + 160) + 672 + 122880 + 201728
    + 2 x 100 m x 5 ns/m x 100 Gb/s = 573,056 bit times = 71,632 bytes (Cisco PFC white
    paper's components, summed by hand)."""
    assert pfc_headroom_bytes(100, 100, 9216) == pytest.approx(71_632, rel=1e-9)
