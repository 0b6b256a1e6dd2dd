"""Logical-network engine: the addressing, eBGP underlay, tenancy and lossless QoS of the
fabric the fabric engine sized (read from FabricResult, never re-derived), and the
per-switch configuration rendered from them (`render.py`)."""

from __future__ import annotations

from models_engine.engines.fabric.result import FabricResult, SiteFabric

from .addressing import AddressPlan, PoolExhausted
from .data import BGP_HOLD_S, BGP_KEEPALIVE_S, IB_ROUTING_ENGINE, IB_SUBNET_MANAGERS
from .qos import buffer_rows, headroom_rows, mtu_chain, traffic_classes
from .result import NetworkResult, PoolUsage, SiteNetwork, Underlay
from .routing import AsnPlan, ecmp_rows
from .tenancy import isolation_facts, tenant_rows
from .topology import SiteTopology, topology_of

POOL_ORDER = ("loopback", "p2p", "gpu", "tenant", "management", "storage")


def evaluate_network(spec, fabric: FabricResult, catalog=None) -> NetworkResult:
    """The logical plan of every site. Raises PoolExhausted naming the pool too small.
    `catalog` gives each switch's packet buffer (without it, no headroom-vs-buffer check)."""
    intent = spec.network
    offsets = dict.fromkeys(POOL_ORDER, 0)
    asn_next = intent.asn_base
    sites = []
    for site in fabric.sites:
        topo = topology_of(site)
        plan = AddressPlan(intent.pools, topo, dict(offsets), len(intent.tenants))
        asns = AsnPlan(intent.asn_scheme, asn_next, topo)
        buffer = switch_buffer(catalog, site.scale_out.switch_sku)
        sites.append(site_network(site, topo, plan, asns, intent, buffer))
        for use in sites[-1].pools:
            offsets[use.pool] += use.blocks_needed
        asn_next += asns.asns_used
    ethernet = any(s.technology.startswith("roce") for s in sites)
    tenants = tenant_rows(intent.tenants, ethernet, intent.asn_base)
    return NetworkResult(
        sites=sites,
        pools={name: getattr(intent.pools, name) for name in POOL_ORDER},
        tenants=tenants,
        isolation=isolation_facts(tenants, ethernet, intent, _management_in_band(spec, fabric)),
        findings=[f for s in sites for f in s.findings],
    )


def _management_in_band(spec, fabric: FabricResult) -> bool:
    """In-band management rides the compute fabric: a frontend the fabric engine converged
    onto it at any site, or a network the design declares flat."""
    converged = any(site.frontend_network.mode == "converged" for site in fabric.sites)
    return converged or spec.security.network_segmentation == "flat"


def switch_buffer(catalog, sku: str) -> tuple[float | None, str]:
    """(packet buffer MB, where the figure comes from) of a catalog switch."""
    entry = catalog.switches.get(sku) if catalog is not None else None
    if entry is None or entry.packet_buffer_mb is None:
        return None, ""
    cited = [s for s in entry.sources if "buffer" in s.title.lower()] or list(entry.sources)
    source = cited[0]
    note = f", {source.note}" if source.note else ""
    return entry.packet_buffer_mb, f"catalog {sku}: {source.title} ({source.date}{note})"


def site_network(
    site: SiteFabric,
    topo: SiteTopology,
    plan: AddressPlan,
    asns: AsnPlan,
    intent,
    buffer: tuple[float | None, str] = (None, ""),
) -> SiteNetwork:
    management_hosts = (
        topo.switches
        + site.frontend_network.switches
        + site.storage_network.switches
        + 2 * topo.nodes  # each node's BMC and host management port
    )
    storage_hosts = (site.storage_network.endpoints or 0) + (
        site.storage_network.storage_target_ports or 0
    )
    uses = plan.usage(management_hosts, storage_hosts)
    pools = [PoolUsage(**vars(use), offset=plan.offsets[use.pool]) for use in uses]
    exhausted = [e for use in uses if (e := use.exhausted(plan.offsets[use.pool]))]
    ethernet = topo.ethernet
    mtu, mtu_findings = mtu_chain(intent.host_mtu, intent.switch_mtu, overlay=ethernet)
    headroom = headroom_rows(site, intent.switch_mtu) if ethernet else []
    buffers, buffer_findings = buffer_rows(site, headroom, *buffer) if ethernet else ([], [])
    findings = [
        *(_pool_finding(error) for error in exhausted),
        *_ecmp_findings(topo, intent.ecmp_max_paths),
        *_summary_findings(topo, intent.route_summarisation),
        *mtu_findings,
        *buffer_findings,
    ]
    return SiteNetwork(
        site_id=site.site_id,
        technology=topo.technology,
        leaves=topo.leaves,
        spines=topo.spines,
        cores=topo.cores,
        pods=topo.pods,
        leaf_uplinks=topo.leaf_uplinks,
        spine_uplinks=topo.spine_uplinks,
        hosts_per_leaf=topo.hosts_per_leaf,
        rails=topo.rails,
        gpu_subnet_prefix=plan.gpu_prefix,
        tenant_subnets=_tenant_subnets(plan, intent.tenants) if ethernet else [],
        pools=pools,
        underlay=_underlay(topo, plan, asns, intent),
        subnet_manager=None if ethernet else _subnet_manager(topo),
        traffic_classes=traffic_classes(site) if ethernet else [],
        ecn_by_link_speed=site.roce["thresholds_by_link_speed"] if ethernet else [],
        pfc_headroom=headroom,
        buffer_check=buffers,
        mtu=mtu,
        findings=[{**f, "site": site.site_id} for f in findings],
    )


def _underlay(topo: SiteTopology, plan: AddressPlan, asns: AsnPlan, intent) -> Underlay:
    return Underlay(
        protocol="ebgp" if topo.ethernet else "infiniband-sm",
        asn_scheme=asns.scheme,
        asn_base=asns.base,
        allowas_in=asns.needs_allowas_in,
        asns=asns.table() if topo.ethernet else [],
        ecmp=ecmp_rows(topo, intent.ecmp_max_paths) if topo.ethernet else [],
        ecmp_max_paths=intent.ecmp_max_paths,
        bfd_interval_ms=intent.bfd_interval_ms,
        bfd_multiplier=intent.bfd_multiplier,
        keepalive_s=BGP_KEEPALIVE_S,
        hold_s=BGP_HOLD_S,
        summaries=pod_summaries(topo, plan) if topo.ethernet and topo.spines else [],
        summarised=topo.ethernet and bool(topo.spines) and intent.route_summarisation == "pod",
        bgp_gtsm=intent.bgp_gtsm,
        bgp_authentication=intent.bgp_authentication,
    )


def _tenant_subnets(plan: AddressPlan, tenants) -> list[dict]:
    """Each tenant's subnet at this site (None when the tenant pool is too small: the pool
    finding says so)."""
    rows = []
    for number, tenant in enumerate(tenants, start=1):
        try:
            subnet = plan.tenant_subnet(number)
        except PoolExhausted:
            subnet = None
        rows.append(
            {
                "tenant": tenant.name,
                "subnet": str(subnet) if subnet else None,
                "gateway": str(subnet.network_address + 1) if subnet else None,
            }
        )
    return rows


def pod_summaries(topo: SiteTopology, plan: AddressPlan) -> list[str]:
    """One aggregate per pod: each pod's GPU subnets sit in a power-of-two aligned block
    (`SiteTopology.pod_stride`), which its spines can announce to the cores in place of the
    per-leaf subnets (route summarisation where the topology allows)."""
    bits = (topo.pod_stride - 1).bit_length()
    return [
        str(plan.gpu_subnet(topo.leaf(pod * topo.leaves_per_pod)).supernet(prefixlen_diff=bits))
        for pod in range(topo.pods)
        if pod * topo.leaves_per_pod < topo.leaves
    ]


def _summary_findings(topo: SiteTopology, scheme: str) -> list[dict]:
    if scheme != "pod" or not topo.ethernet or not topo.spines:
        return []
    return [
        {
            "id": "summarised-pod-routes-blackhole",
            "severity": "warning",
            "message": "spines announce one aggregate per pod: a spine that loses its link to "
            "a leaf still attracts that leaf's traffic and drops it until the link returns "
            f"(RFC 7938 section 8.2); 1/{topo.spines_per_pod} of the traffic towards that leaf",
            "path": "network.route_summarisation",
        }
    ]


def _subnet_manager(topo: SiteTopology) -> dict:
    return {
        "managers": IB_SUBNET_MANAGERS,
        "placement": "master and standby on two management hosts (UFM / OpenSM) attached "
        "to different leaves",
        "routing_engine": IB_ROUTING_ENGINE,
    }


def _pool_finding(error: PoolExhausted) -> dict:
    return {
        "id": f"pool-exhausted-{error.pool}",
        "severity": "error",
        "message": str(error),
        "path": f"network.pools.{error.pool}",
    }


def _ecmp_findings(topo: SiteTopology, max_paths: int) -> list[dict]:
    if topo.ethernet and topo.spines and topo.leaf_uplinks > max_paths:
        return [
            {
                "id": "ecmp-width-below-uplinks",
                "severity": "warning",
                "message": f"leaves have {topo.leaf_uplinks} uplinks but ECMP installs at "
                f"most {max_paths} next hops: {topo.leaf_uplinks - max_paths} uplinks idle",
                "path": "network.ecmp_max_paths",
            }
        ]
    return []


__all__ = ["NetworkResult", "PoolExhausted", "evaluate_network"]
