"""Typed result of the logical-network engine.

The network engine owns the logical plan on the fabric the fabric engine sized: address
pools and their use, the ASN plan, ECMP and BFD, tenant overlays (EVPN-VXLAN or PKeys), the
lossless-QoS table and PFC headroom, MTU end to end. Sizes stay small for any fabric: one
row per pool, role, tenant, link group or tier, never one per port; per-switch
configuration is rendered on request from this result and the fabric result (`render.py`).
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class PoolUsage(ResultPart):
    pool: str
    cidr: str
    block_prefix: int
    blocks_needed: int
    blocks_available: int
    offset: int  # blocks earlier sites took from the same pool
    first: str | None
    last: str | None


class Underlay(ResultPart):
    protocol: str  # "ebgp" (Ethernet) or "infiniband-sm"
    asn_scheme: str
    asn_base: int
    allowas_in: bool
    asns: list[JsonDict]  # role, switches, asn_first, asn_last
    ecmp: list[JsonDict]  # role, uplinks, ecmp_width
    ecmp_max_paths: int
    bfd_interval_ms: int
    bfd_multiplier: int
    keepalive_s: int
    hold_s: int
    summaries: list[str]  # GPU-subnet aggregate of each pod (aligned: a spine can announce it)
    summarised: bool  # spines announce `summaries` (summary-only) instead of leaf subnets
    bgp_gtsm: bool  # RFC 5082 TTL security on every session
    bgp_authentication: str  # "none" or "md5" (RFC 2385)


class SiteNetwork(ResultPart):
    site_id: str
    technology: str
    leaves: int
    spines: int
    cores: int
    pods: int
    leaf_uplinks: int
    spine_uplinks: int
    hosts_per_leaf: int
    rails: int | None
    gpu_subnet_prefix: int
    tenant_subnets: list[JsonDict]  # Ethernet: tenant, subnet, gateway (anycast), l3_vni
    pools: list[PoolUsage]
    underlay: Underlay
    subnet_manager: JsonDict | None  # InfiniBand: placement and routing engine
    traffic_classes: list[JsonDict]
    ecn_by_link_speed: list[JsonDict]  # the fabric's thresholds, as read
    pfc_headroom: list[JsonDict]  # per link group
    buffer_check: list[JsonDict]  # per switch tier
    mtu: JsonDict
    findings: list[JsonDict]


class IsolationFacts(ResultPart):
    """How the plan keeps tenants and planes apart, in the words the security engine reads
    (`security_facts()`): the network engine owns these facts, the security engine only
    judges them."""

    tenants: int
    mechanism: str  # "evpn-vxlan-vrf" (VRF + L2/L3 VNI + route targets) or "infiniband-pkey"
    tenants_share_fabric: bool
    tenant_segments: int  # distinct VRF / L3 VNI (Ethernet) or PKey (InfiniBand) segments
    management_out_of_band: bool  # management pool never routed on the compute fabric
    bgp_underlay: bool  # some site runs an eBGP underlay
    bgp_session_protection: list[str]  # of "gtsm", "md5"; empty: sessions unprotected

    def security_facts(self) -> dict:
        return {
            "network.tenant_segments": self.tenant_segments,
            "network.bgp_underlay": self.bgp_underlay,
            "network.bgp_session_protection": list(self.bgp_session_protection),
            "fabric.management_shares_compute_fabric": not self.management_out_of_band,
        }


class NetworkResult(EngineResult):
    sites: list[SiteNetwork]
    pools: JsonDict  # the design's pool CIDRs by name
    tenants: list[JsonDict]
    isolation: IsolationFacts
    findings: list[JsonDict]

    def site(self, site_id: str) -> SiteNetwork:
        return next(s for s in self.sites if s.site_id == site_id)
