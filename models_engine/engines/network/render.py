"""Per-switch configuration rendered from the plan: FRR (SONiC-style frr.conf, SONiC port
names `Ethernet<N>`) and Arista EOS (SONiC config_db.json: render_sonic.py; the archive of
every file: archive.py). Rendering regenerates each switch's interfaces and
addresses from the fabric and network results (the result itself stays small), one switch at
a time, so a large fabric streams into the archive."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import SimpleNamespace

from models_engine.engines.fabric.result import FabricResult

from .addressing import AddressPlan, pool_exhausted
from .qos_plan import QosPlan, qos_plan
from .result import NetworkResult, SiteNetwork
from .routing import AsnPlan
from .topology import Device, SiteTopology, topology_of


@dataclass(frozen=True)
class Port:
    number: int
    peer: Device
    peer_port: int
    address: str  # this end, a.b.c.d
    peer_address: str


@dataclass(frozen=True)
class RenderPlan:
    """What a switch's configuration needs: the site's topology, addresses, ASNs, tenants and
    the underlay and QoS settings."""

    topo: SiteTopology
    addresses: AddressPlan
    asns: AsnPlan
    tenants: list[dict]
    ecmp_max_paths: int
    bfd_interval_ms: int
    bfd_multiplier: int
    keepalive_s: int
    hold_s: int
    switch_mtu: int
    pfc_priority: int | None = None
    ecn_kmin_kb: float | None = None
    ecn_kmax_kb: float | None = None
    summaries: tuple[str, ...] = ()  # pod aggregates the spines announce (summary-only)
    bgp_gtsm: bool = True
    bgp_md5: bool = False
    qos: QosPlan | None = None  # SONiC buffer / ECN / DSCP tables (Ethernet sites)

    def tenant_numbered(self) -> Iterator[tuple[int, dict]]:
        """(number from 1, row) of every tenant: the number picks its subnet and VNIs."""
        return enumerate(self.tenants, start=1)

    def pod_summary(self, device: Device) -> str | None:
        """The aggregate a spine announces for its pod, when the plan summarises."""
        if device.role != "spine" or not self.summaries:
            return None
        return self.summaries[min(device.pod, len(self.summaries) - 1)]

    def ports(self, device: Device) -> list[Port]:
        out = []
        for link in self.topo.links_of(device):
            upper_ip, lower_ip = self.addresses.p2p(link)
            if link.lower == device:
                out.append(
                    Port(link.lower_port, link.upper, link.upper_port, str(lower_ip), str(upper_ip))
                )
            else:
                out.append(
                    Port(link.upper_port, link.lower, link.lower_port, str(upper_ip), str(lower_ip))
                )
        return sorted(out, key=lambda p: p.number)


def render_plans(fabric: FabricResult, network: NetworkResult) -> list[RenderPlan]:
    """One render plan per Ethernet site (InfiniBand sites carry no IP routing). Raises
    PoolExhausted (naming the pool) when the plan's addresses do not fit its pools."""
    for site in network.sites:
        for use in site.pools:
            if error := pool_exhausted(use, use.offset):
                raise error
    pools = SimpleNamespace(**network.pools)
    return [
        _site_plan(fabric, site, pools, network.tenants)
        for site in network.sites
        if site.underlay.protocol == "ebgp"
    ]


def _site_plan(fabric, site: SiteNetwork, pools, tenants) -> RenderPlan:
    topo = topology_of(fabric.site(site.site_id))
    offsets = {use.pool: use.offset for use in site.pools}
    underlay = site.underlay
    lossless = next((c for c in site.traffic_classes if c["lossless"]), None)
    ecn = site.ecn_by_link_speed[0] if site.ecn_by_link_speed else {}
    marks_ecn = bool(lossless and lossless["ecn"])
    return RenderPlan(
        topo=topo,
        addresses=AddressPlan(pools, topo, offsets, len(tenants)),
        asns=AsnPlan(underlay.asn_scheme, underlay.asn_base, topo),
        tenants=tenants,
        ecmp_max_paths=underlay.ecmp_max_paths,
        bfd_interval_ms=underlay.bfd_interval_ms,
        bfd_multiplier=underlay.bfd_multiplier,
        keepalive_s=underlay.keepalive_s,
        hold_s=underlay.hold_s,
        switch_mtu=site.mtu["switch_mtu"],
        pfc_priority=lossless["priority"] if lossless else None,
        ecn_kmin_kb=ecn.get("ecn_kmin_kb") if marks_ecn else None,
        ecn_kmax_kb=ecn.get("ecn_kmax_kb") if marks_ecn else None,
        summaries=tuple(underlay.summaries) if underlay.summarised else (),
        bgp_gtsm=underlay.bgp_gtsm,
        bgp_md5=underlay.bgp_authentication == "md5",
        qos=qos_plan(site),
    )


# --- FRR ------------------------------------------------------------------------------------


def frr_config(plan: RenderPlan, device: Device) -> str:
    """frr.conf of one switch (SONiC-style: FRR owns routing, ports named Ethernet<N>)."""
    loopback = plan.addresses.loopback(device)
    ports = plan.ports(device)
    lines = [
        "frr version 8.4",
        "frr defaults datacenter",
        f"hostname {device.name}",
        "service integrated-vtysh-config",
        "!",
        "interface lo",
        f" ip address {loopback}/32",
        "!",
    ]
    for port in ports:
        lines += [
            f"interface Ethernet{port.number}",
            f" description {port.peer.name} Ethernet{port.peer_port}",
            f" ip address {port.address}/31",
            "!",
        ]
    if device.role == "leaf":
        lines += [
            "interface Vlan10",
            " description GPU NIC subnet",
            f" ip address {plan.addresses.gateway(device)}/{plan.addresses.gpu_prefix}",
            "!",
        ]
        lines += _frr_tenant_interfaces(plan)
    lines += _frr_bgp(plan, device, loopback, ports)
    if device.role == "leaf":
        lines += [line for _, t in plan.tenant_numbered() for line in _frr_vrf_bgp(plan, device, t)]
    lines += [
        "bfd",
        " profile fabric",
        f"  transmit-interval {plan.bfd_interval_ms}",
        f"  receive-interval {plan.bfd_interval_ms}",
        f"  detect-multiplier {plan.bfd_multiplier}",
        " exit",
        "exit",
        "!",
        "end",
    ]
    return "\n".join(lines) + "\n"


MD5_PLACEHOLDER = "REPLACE-WITH-BGP-SECRET"  # a secret never leaves the operator's vault


def _frr_tenant_interfaces(plan: RenderPlan) -> list[str]:
    """Symmetric IRB: each tenant's VRF carries its L3 VNI; its VLAN interface holds the
    tenant's anycast gateway (the same address on every leaf) inside the VRF. The kernel
    devices (VRF, VXLAN, bridges) are created on the host side: see the archive README."""
    lines = []
    for number, tenant in plan.tenant_numbered():
        subnet = plan.addresses.tenant_subnet(number)
        lines += [
            f"vrf {tenant['vrf']}",
            f" vni {tenant['l3_vni']}",
            "exit-vrf",
            "!",
            f"interface Vlan{tenant['vlan']}",
            f" description tenant {tenant['tenant']} anycast gateway",
            f" ip address {plan.addresses.tenant_gateway(number)}/{subnet.prefixlen}",
            "!",
        ]
    return lines


def _frr_vrf_bgp(plan: RenderPlan, device: Device, tenant: dict) -> list[str]:
    """The tenant VRF's BGP instance: its connected subnet announced as EVPN type-5 routes
    (`advertise ipv4 unicast`) with the tenant's L3 route target, so every leaf learns every
    other leaf's tenant prefixes in that VRF only."""
    return [
        f"router bgp {plan.asns.asn(device)} vrf {tenant['vrf']}",
        f" bgp router-id {plan.addresses.loopback(device)}",
        " no bgp ebgp-requires-policy",
        " !",
        " address-family ipv4 unicast",
        "  redistribute connected",
        " exit-address-family",
        " !",
        " address-family l2vpn evpn",
        "  advertise ipv4 unicast",
        f"  route-target import {tenant['route_target_l3']}",
        f"  route-target export {tenant['route_target_l3']}",
        " exit-address-family",
        "exit",
        "!",
    ]


def _frr_session_protection(plan: RenderPlan) -> list[str]:
    lines = []
    if plan.bgp_gtsm:
        lines.append(" neighbor FABRIC ttl-security hops 1")  # RFC 5082
    if plan.bgp_md5:
        lines.append(f" neighbor FABRIC password {MD5_PLACEHOLDER}")  # RFC 2385
    return lines


def _frr_bgp(plan: RenderPlan, device: Device, loopback, ports: list[Port]) -> list[str]:
    asns = plan.asns
    lines = [
        f"router bgp {asns.asn(device)}",
        f" bgp router-id {loopback}",
        " bgp bestpath as-path multipath-relax",
        " no bgp ebgp-requires-policy",
        " no bgp default ipv4-unicast",
        f" timers bgp {plan.keepalive_s} {plan.hold_s}",
        " neighbor FABRIC peer-group",
        " neighbor FABRIC bfd profile fabric",
        *_frr_session_protection(plan),
    ]
    for port in ports:
        lines += [
            f" neighbor {port.peer_address} remote-as {asns.asn(port.peer)}",
            f" neighbor {port.peer_address} peer-group FABRIC",
            f" neighbor {port.peer_address} description {port.peer.name}",
        ]
    lines += [" !", " address-family ipv4 unicast", "  neighbor FABRIC activate"]
    if asns.needs_allowas_in and device.role != "core":
        lines.append("  neighbor FABRIC allowas-in 1")
    lines.append(f"  network {loopback}/32")
    if device.role == "leaf":
        lines.append(f"  network {plan.addresses.gpu_subnet(device)}")
    if summary := plan.pod_summary(device):
        lines.append(f"  aggregate-address {summary} summary-only")
    lines += [f"  maximum-paths {plan.ecmp_max_paths}", " exit-address-family", " !"]
    lines += [" address-family l2vpn evpn", "  neighbor FABRIC activate"]
    if asns.needs_allowas_in and device.role != "core":
        lines.append("  neighbor FABRIC allowas-in 1")
    if device.role == "leaf" and plan.tenants:
        lines.append("  advertise-all-vni")
        for tenant in plan.tenants:
            lines += [
                f"  vni {tenant['l2_vni']}",
                f"   route-target import {tenant['route_target_l2']}",
                f"   route-target export {tenant['route_target_l2']}",
                "  exit-vni",
            ]
    lines += [" exit-address-family", "exit", "!"]
    return lines


# --- Arista EOS -----------------------------------------------------------------------------


def eos_config(plan: RenderPlan, device: Device) -> str:
    """Arista EOS running-config of one switch: routed ports, eBGP + EVPN, PFC/ECN, VXLAN."""
    loopback = plan.addresses.loopback(device)
    ports = plan.ports(device)
    lines = [
        f"hostname {device.name}",
        "service routing protocols model multi-agent",
        "!",
        "ip routing",
        "!",
        "interface Loopback0",
        f"   ip address {loopback}/32",
        "!",
    ]
    for port in ports:
        lines += [
            f"interface Ethernet{port.number + 1}/1",
            f"   description {port.peer.name}",
            f"   mtu {plan.switch_mtu}",
            "   no switchport",
            f"   ip address {port.address}/31",
            f"   bfd interval {plan.bfd_interval_ms} min-rx {plan.bfd_interval_ms} "
            f"multiplier {plan.bfd_multiplier}",
            *_eos_qos(plan),
            "!",
        ]
    if device.role == "leaf":
        lines += _eos_leaf_overlay(plan, device)
    lines += _eos_bgp(plan, device, loopback, ports)
    return "\n".join([*lines, "end"]) + "\n"


def _eos_qos(plan: RenderPlan) -> list[str]:
    out = []
    if plan.pfc_priority is not None:
        out += [
            "   priority-flow-control on",
            f"   priority-flow-control priority {plan.pfc_priority} no-drop",
        ]
    if plan.ecn_kmin_kb is not None and plan.ecn_kmax_kb is not None:
        out += [
            f"   tx-queue {plan.pfc_priority if plan.pfc_priority is not None else 3}",
            f"      random-detect ecn minimum-threshold {plan.ecn_kmin_kb:g} kbytes "
            f"maximum-threshold {plan.ecn_kmax_kb:g} kbytes",
        ]
    return out


def _eos_leaf_overlay(plan: RenderPlan, device: Device) -> list[str]:
    lines = [
        "interface Vlan10",
        "   description GPU NIC subnet",
        f"   ip address {plan.addresses.gateway(device)}/{plan.addresses.gpu_prefix}",
        "!",
    ]
    for number, tenant in plan.tenant_numbered():
        subnet = plan.addresses.tenant_subnet(number)
        lines += [
            f"vlan {tenant['vlan']}",
            f"   name {tenant['tenant']}",
            "!",
            f"vrf instance {tenant['vrf']}",
            "!",
            f"ip routing vrf {tenant['vrf']}",
            "!",
            f"interface Vlan{tenant['vlan']}",
            f"   vrf {tenant['vrf']}",
            f"   ip address virtual {plan.addresses.tenant_gateway(number)}/{subnet.prefixlen}",
            "!",
        ]
    lines += ["interface Vxlan1", "   vxlan source-interface Loopback0", "   vxlan udp-port 4789"]
    for tenant in plan.tenants:
        lines += [
            f"   vxlan vlan {tenant['vlan']} vni {tenant['l2_vni']}",
            f"   vxlan vrf {tenant['vrf']} vni {tenant['l3_vni']}",
        ]
    return [*lines, "!"]


def _eos_bgp(plan: RenderPlan, device: Device, loopback, ports: list[Port]) -> list[str]:
    asns = plan.asns
    lines = [
        f"router bgp {asns.asn(device)}",
        f"   router-id {loopback}",
        f"   maximum-paths {plan.ecmp_max_paths}",
        "   bgp bestpath as-path multipath-relax",
        f"   timers bgp {plan.keepalive_s} {plan.hold_s}",
        "   neighbor FABRIC peer group",
        "   neighbor FABRIC bfd",
        "   neighbor FABRIC send-community extended",
    ]
    if plan.bgp_gtsm:
        lines.append("   neighbor FABRIC ttl maximum-hops 1")
    if plan.bgp_md5:
        lines.append(f"   neighbor FABRIC password 0 {MD5_PLACEHOLDER}")
    if asns.needs_allowas_in and device.role != "core":
        lines.append("   neighbor FABRIC allowas-in 1")
    for port in ports:
        lines += [
            f"   neighbor {port.peer_address} peer group FABRIC",
            f"   neighbor {port.peer_address} remote-as {asns.asn(port.peer)}",
        ]
    lines.append(f"   network {loopback}/32")
    if summary := plan.pod_summary(device):
        lines.append(f"   aggregate-address {summary} summary-only")
    if device.role == "leaf":
        lines.append(f"   network {plan.addresses.gpu_subnet(device)}")
        for tenant in plan.tenants:
            lines += [
                f"   vlan {tenant['vlan']}",
                "      rd auto",
                f"      route-target both {tenant['route_target_l2']}",
                "      redistribute learned",
                f"   vrf {tenant['vrf']}",
                "      rd auto",
                f"      route-target import evpn {tenant['route_target_l3']}",
                f"      route-target export evpn {tenant['route_target_l3']}",
                "      redistribute connected",
            ]
    lines += [
        "   address-family evpn",
        "      neighbor FABRIC activate",
        "   address-family ipv4",
        "      neighbor FABRIC activate",
        "!",
    ]
    return lines
