"""Network section: the logical plan per site (key figures, address pools, ASN map, ECMP),
the tenant overlays, the lossless-QoS tables (traffic classes, ECN per link speed, PFC
headroom per link group and against each tier's buffer), the findings and the download of
every switch's configuration."""

from django.urls import reverse

from models_engine import NetworkResult
from studio.runs.sections.blocks import (
    Block,
    Card,
    Cards,
    Column,
    Group,
    Heading,
    Paragraph,
    code,
    findings_list,
    link,
    table,
    text,
)
from studio.runs.sections.common import small
from studio.runs.sections.format import DASH, count, number, percent
from studio.runs.selectors import TypedResults


def configs_url(run) -> str:
    return reverse("run-network-configs", args=[run.pk])


def blocks(results: TypedResults, run=None) -> list[Block]:
    network = results.network
    if network is None:
        return []
    built: list[Block] = []
    multi_site = len(network.sites) > 1
    for index, site in enumerate(network.sites):
        suffix = f"-{site.site_id}" if index else ""
        if multi_site:
            built.append(Heading(text(code(site.site_id), " ", small(site.technology))))
        built += site_blocks(site, suffix)
    built += tenant_blocks(network)
    if run is not None and network.sites:
        built.append(
            Paragraph(
                text(
                    link(
                        "Download every switch's configuration (zip)",
                        configs_url(run),
                        id="network-configs-download",
                    ),
                    f": {archive_contents(network)}",
                ),
            )
        )
    built += findings_list(network.findings, "network-findings")
    return built


def archive_contents(network: NetworkResult) -> str:
    """What the configuration zip holds for this design, in words."""
    parts = []
    if any(s.underlay.protocol == "ebgp" for s in network.sites):
        parts.append(
            "FRR frr.conf, Arista EOS and SONiC config_db.json (QoS tables) per switch, and a "
            "README with the Linux devices each leaf needs for the tenant VRFs"
        )
    if any(s.subnet_manager for s in network.sites):
        parts.append("OpenSM partitions.conf and opensm.conf for the InfiniBand sites")
    return "; ".join(parts) + "."


def site_blocks(site, suffix: str) -> list[Block]:
    built: list[Block] = [Cards(key_figures(site), id=f"network-key-figures{suffix}")]
    built += [Heading(text("Addressing")), pools_table(site, f"network-pools{suffix}")]
    if site.underlay.protocol == "ebgp":
        built += [Heading(text("eBGP underlay")), asn_table(site, f"network-asns{suffix}")]
        built.append(Paragraph(underlay_sentence(site.underlay), css="muted small"))
        built += qos_blocks(site, suffix)
    elif site.subnet_manager:
        sm = site.subnet_manager
        built.append(
            Paragraph(
                text(
                    f"InfiniBand: {sm['managers']} subnet managers ({sm['placement']}), "
                    "routing engine ",
                    code(sm["routing_engine"]),
                    ".",
                ),
                css="small",
            )
        )
    return built


def underlay_sentence(underlay):
    """Route summarisation and session protection, in words."""
    aggregates = ", ".join(underlay.summaries)
    if underlay.summarised:
        summary = text("Spines announce one aggregate per pod (summary-only): ", code(aggregates))
    elif aggregates:
        summary = text(
            "Every leaf's GPU subnet is announced; the pods' aggregates (",
            code(aggregates),
            ") are available with network.route_summarisation = pod",
        )
    else:
        summary = text("Every leaf's GPU subnet is announced")
    protection = " and ".join(
        {"gtsm": "GTSM (TTL 255, one hop)", "md5": "TCP MD5"}[p]
        for p in (["gtsm"] if underlay.bgp_gtsm else [])
        + (["md5"] if underlay.bgp_authentication == "md5" else [])
    )
    sessions = (
        f"; sessions protected by {protection}."
        if protection
        else ("; sessions unprotected (no GTSM, no authentication).")
    )
    return summary + text(sessions)


def key_figures(site) -> list[Card]:
    underlay = site.underlay
    widths = ", ".join(f"{r['role']} {r['ecmp_width']}" for r in underlay.ecmp) or DASH
    mtu = site.mtu
    return [
        Card(
            "Switches",
            count(site.leaves + site.spines + site.cores),
            note=f"{site.leaves} leaves, {site.spines} spines, {site.cores} cores",
        ),
        Card(
            "Underlay",
            "eBGP" if underlay.protocol == "ebgp" else "InfiniBand SM",
            note=f"ASN {underlay.asn_scheme}" if underlay.protocol == "ebgp" else "",
        ),
        Card("ECMP width", widths, note=f"at most {underlay.ecmp_max_paths} paths"),
        Card("BFD", f"{underlay.bfd_interval_ms} ms", note=f"x {underlay.bfd_multiplier}"),
        Card(
            "MTU",
            f"{mtu['host_mtu']} / {mtu['switch_mtu']}",
            unit="bytes",
            note=f"host / switch, RDMA {mtu['rdma_mtu']}",
            status="ok" if mtu["consistent"] else "bad",
        ),
    ]


# Five columns at most: the report's PDF prints tables up to that width (document.py).
POOL_COLUMNS = [
    Column("pool"),
    Column("CIDR"),
    Column("each", "block"),
    Column("used", "blocks"),
    Column("this site's range"),
]


def pools_table(site, table_id: str):
    rows = [
        [
            use.pool,
            code(use.cidr),
            f"/{use.block_prefix}",
            f"{count(use.offset + use.blocks_needed)} of {count(use.blocks_available)} "
            f"({_share(use.offset + use.blocks_needed, use.blocks_available)})",
            _block_range(use),
        ]
        for use in site.pools
        if use.blocks_needed
    ]
    return table(table_id, POOL_COLUMNS, rows, css="grid rc-table", scroll=False)


def _share(used: int, available: int) -> str:
    """A pool's use as a percentage; "< 0.1 %" rather than a used pool reading 0.0 %."""
    fraction = used / available
    return "< 0.1 %" if 0 < fraction < 0.0005 else percent(fraction)


def _block_range(use) -> str:
    """First to last block this site takes ("does not fit" when the pool is too small)."""
    if not use.first:
        return "does not fit: pool too small"
    if use.block_prefix == 32:  # single addresses: the blocks are the addresses
        first, last = use.first.split("/")[0], use.last.split("/")[0]
    else:
        first, last = use.first, use.last
    return first if first == last else f"{first} to {last}"


ASN_COLUMNS = [
    Column("role"),
    Column("switches", "count", numeric=True),
    Column("first ASN", "ASN", numeric=True),
    Column("last ASN", "ASN", numeric=True),
]


def asn_table(site, table_id: str):
    rows = [
        [r["role"], count(r["switches"]), str(r["asn_first"]), str(r["asn_last"])]
        for r in site.underlay.asns
    ]
    return table(table_id, ASN_COLUMNS, rows, css="grid rc-table", scroll=False)


CLASS_COLUMNS = [
    Column("class"),
    Column("priority", "802.1p", numeric=True),
    Column("DSCP", "code point", numeric=True),
    Column("treatment"),
    Column("scheduling"),
]
HEADROOM_COLUMNS = [
    Column("links"),
    Column("speed", "Gb/s", numeric=True),
    Column("cable", "m", numeric=True),
    Column("PFC headroom per port", "KB", numeric=True),
]
BUFFER_COLUMNS = [
    Column("tier"),
    Column("ports per switch", "ports", numeric=True),
    Column("headroom per switch", "MB", numeric=True),
    Column("switch buffer", "MB", numeric=True),
    Column("share of buffer", "%", numeric=True),
]
ECN_COLUMNS = [
    Column("speed", "Gb/s", numeric=True),
    Column("Kmin", "KB", numeric=True),
    Column("Kmax", "KB", numeric=True),
    Column("Kmin floor (BDP/7)", "KB", numeric=True),
]


def qos_blocks(site, suffix: str) -> list[Block]:
    classes = [
        [
            c["class"],
            str(c["priority"]),
            str(c["dscp"]),
            _treatment(c),
            c["scheduling"],
        ]
        for c in site.traffic_classes
    ]
    headroom = [
        [
            r["links"],
            number(r["link_speed_gbps"]),
            number(r["cable_m"]),
            number(r["headroom_kb_per_port"]),
        ]
        for r in site.pfc_headroom
    ]
    buffers = [
        [
            r["tier"],
            number(r["ports_per_switch"]),
            number(r["headroom_mb_per_switch"], 1),
            number(r["buffer_mb"]) if r["buffer_mb"] else DASH,
            percent(r["fraction_of_buffer"]) if r["fraction_of_buffer"] is not None else DASH,
        ]
        for r in site.buffer_check
    ]
    ecn = [
        [
            number(r["link_speed_gbps"]),
            number(r["ecn_kmin_kb"]),
            number(r["ecn_kmax_kb"]),
            number(r["ecn_kmin_floor_kb"]),
        ]
        for r in site.ecn_by_link_speed
    ]
    detail = [
        table(f"network-ecn{suffix}", ECN_COLUMNS, ecn, scroll=False),
        table(f"network-headroom{suffix}", HEADROOM_COLUMNS, headroom, scroll=False),
        table(f"network-buffers{suffix}", BUFFER_COLUMNS, buffers, scroll=False),
    ]
    return [
        Heading(text("Lossless QoS (RoCEv2)")),
        table(f"network-classes{suffix}", CLASS_COLUMNS, classes, scroll=False),
        Paragraph(buffer_summary(site), css="small"),
        Group(
            detail,
            summary="ECN thresholds per link speed, PFC headroom per link group and per switch",
            id=f"network-qos-detail{suffix}",
        ),
        Paragraph(
            text(
                "PFC headroom per port: IEEE 802.1Qbb delay model (two maximum frames, the "
                "PAUSE frame, interface and response delays, the cable both ways).",
                buffer_note(site),
            ),
            css="muted small",
        ),
    ]


def _treatment(traffic_class: dict) -> str:
    marks = [
        "lossless (PFC)" if traffic_class["lossless"] else "lossy",
        "ECN marked" if traffic_class["ecn"] else "",
    ]
    return ", ".join(m for m in marks if m)


def buffer_summary(site):
    """The headroom check in one line (the PDF keeps it; the tables are on the web page)."""
    rows = [r for r in site.buffer_check if r["fraction_of_buffer"] is not None]
    if not rows:
        return text("PFC headroom not checked: no published buffer size for this switch.")
    worst = max(rows, key=lambda r: r["fraction_of_buffer"])
    speeds = ", ".join(
        f"{number(r['link_speed_gbps'])} Gb/s Kmin {number(r['ecn_kmin_kb'])} KB / Kmax "
        f"{number(r['ecn_kmax_kb'])} KB"
        for r in site.ecn_by_link_speed
    )
    return text(
        f"PFC headroom takes at most {percent(worst['fraction_of_buffer'])} of a switch's buffer "
        f"({worst['tier']}: {number(worst['headroom_mb_per_switch'], 1)} MB of "
        f"{number(worst['buffer_mb'])} MB)",
        f"; ECN marking {speeds}." if speeds else ".",
    )


def buffer_note(site) -> str:
    sources = sorted({r.get("buffer_source") for r in site.buffer_check} - {None, ""})
    return f" Switch buffer: {sources[0]}." if sources else ""


ETHERNET_TENANT_COLUMNS = [
    Column("tenant"),
    Column("VRF"),
    Column("subnet (anycast gateway)"),
    Column("VLAN", "id", numeric=True),
    Column("VNI L2 / L3", "id"),
]
INFINIBAND_TENANT_COLUMNS = [Column("tenant"), Column("PKey", "full member")]


def tenant_subnets(network: NetworkResult, tenant: str) -> str:
    """The tenant's subnet at each site ("site: subnet" when there are several)."""
    rows = [
        (site.site_id, row)
        for site in network.sites
        for row in site.tenant_subnets
        if row["tenant"] == tenant
    ]
    if not rows:
        return DASH
    if len(rows) == 1:
        return rows[0][1]["subnet"] or "pool too small"
    return ", ".join(f"{site}: {row['subnet'] or 'pool too small'}" for site, row in rows)


def tenant_blocks(network: NetworkResult) -> list[Block]:
    ethernet = network.isolation.mechanism == "evpn-vxlan-vrf"
    if ethernet:
        columns = ETHERNET_TENANT_COLUMNS
        rows = [
            [
                t["tenant"],
                code(t["vrf"]),
                tenant_subnets(network, t["tenant"]),
                _or_dash(t["vlan"]),
                f"{t['l2_vni']} / {t['l3_vni']}",
            ]
            for t in network.tenants
        ]
    else:
        columns = INFINIBAND_TENANT_COLUMNS
        rows = [[t["tenant"], code(t["pkey"])] for t in network.tenants]
    built: list[Block] = [
        Heading(text("Tenant overlays")),
        table("network-tenants", columns, rows, scroll=False),
    ]
    if ethernet and network.tenants:
        first = network.tenants[0]
        built.append(
            Paragraph(
                text(
                    "Route targets are <first ASN>:<VNI> (",
                    code(first["route_target_l2"]),
                    " and ",
                    code(first["route_target_l3"]),
                    f" for {first['tenant']}); type-5 routes carry the L3 one.",
                ),
                css="muted small",
            )
        )
    built.append(Paragraph(text(isolation_sentence(network.isolation)), css="muted small"))
    return built


MECHANISMS = {
    "evpn-vxlan-vrf": "EVPN-VXLAN, one VRF with its own L3 VNI and route targets per tenant "
    "(symmetric IRB)",
    "infiniband-pkey": "InfiniBand partitions, one partition key per tenant",
}


def isolation_sentence(isolation) -> str:
    """The isolation facts the security engine judges, in one sentence."""
    parts = [
        f"Isolation: {MECHANISMS.get(isolation.mechanism, isolation.mechanism)}",
        f"{count(isolation.tenant_segments)} separate segment"
        + ("s" if isolation.tenant_segments != 1 else ""),
        "management out of band"
        if isolation.management_out_of_band
        else "management in band on the compute fabric",
    ]
    if isolation.bgp_underlay:
        protection = " + ".join(p.upper() for p in isolation.bgp_session_protection)
        parts.append(
            f"BGP sessions protected by {protection}"
            if protection
            else "BGP sessions unprotected (no GTSM, no authentication)"
        )
    return "; ".join(parts) + "."


def _or_dash(value) -> str:
    return DASH if value is None else str(value)
