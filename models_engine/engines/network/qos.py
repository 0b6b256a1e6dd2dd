"""Lossless QoS for RoCEv2: traffic classes, PFC headroom per port against the switch buffer,
ECN thresholds (read from the fabric result, which owns them) and MTU end to end."""

from __future__ import annotations

from models_engine.engines.fabric.result import SiteFabric

from .data import (
    CABLE_NS_PER_M,
    CNP_DSCP,
    CNP_PRIORITY,
    FRAME_OVERHEAD_BITS,
    INTERFACE_DELAY_BITS,
    LOSSLESS_PRIORITIES_PER_PORT,
    NETWORK_CONTROL_DSCP,
    NETWORK_CONTROL_PRIORITY,
    PFC_PAUSE_FRAME_BITS,
    RDMA_MTUS,
    RESPONSE_DELAY_BITS,
    ROCE_DSCP,
    ROCE_HEADERS_BYTES,
    VXLAN_OVERHEAD_BYTES,
)


def finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def _delay_bits(table: dict[int, int], speed_gbps: float) -> float:
    """Delay in bit times at `speed_gbps`: the table's value, else the nearest rate's delay
    held constant in time (bit times scale with the rate; assumption, see data.py)."""
    nearest = min(table, key=lambda rate: abs(rate - speed_gbps))
    return table[nearest] * speed_gbps / nearest


def pfc_headroom_bytes(speed_gbps: float, cable_m: float, mtu_bytes: int) -> float:
    """Bytes one port must buffer per lossless priority after sending PAUSE (802.1Qbb)."""
    frame_bits = mtu_bytes * 8 + FRAME_OVERHEAD_BITS
    cable_bits = 2.0 * cable_m * CABLE_NS_PER_M * speed_gbps  # ns x Gb/s = bits, round trip
    bits = (
        2 * frame_bits
        + PFC_PAUSE_FRAME_BITS
        + _delay_bits(INTERFACE_DELAY_BITS, speed_gbps)
        + _delay_bits(RESPONSE_DELAY_BITS, speed_gbps)
        + cable_bits
    )
    return bits / 8.0


def traffic_classes(site: SiteFabric) -> list[dict]:
    roce = site.roce
    rdma = roce["pfc_priority"]
    return [
        {
            "class": "RoCEv2 data",
            "priority": rdma,
            "dscp": ROCE_DSCP,
            "lossless": bool(roce["pfc_enabled"]),
            "ecn": bool(roce["ecn_enabled"]),
            "scheduling": "DWRR",
        },
        {
            "class": "CNP",
            "priority": CNP_PRIORITY,
            "dscp": CNP_DSCP,
            "lossless": False,
            "ecn": False,
            "scheduling": "strict",
        },
        {
            "class": "network control",
            "priority": NETWORK_CONTROL_PRIORITY,
            "dscp": NETWORK_CONTROL_DSCP,
            "lossless": False,
            "ecn": False,
            "scheduling": "strict",
        },
        {
            "class": "best effort",
            "priority": 0,
            "dscp": 0,
            "lossless": False,
            "ecn": True,
            "scheduling": "DWRR",
        },
    ]


def headroom_rows(site: SiteFabric, mtu: int) -> list[dict]:
    """Per link group: headroom one port reserves, from its speed and cable length."""
    rows = []
    for group_name, group in site.scale_out.links.items():
        rows.append(
            {
                "links": group_name,
                "link_speed_gbps": group.link_speed_gbps,
                "cable_m": group.reach_class_m,
                "headroom_kb_per_port": pfc_headroom_bytes(
                    group.link_speed_gbps, group.reach_class_m, mtu
                )
                / 1000.0,
            }
        )
    return rows


def buffer_rows(
    site: SiteFabric, headroom: list[dict], buffer_mb: float | None, buffer_source: str
) -> tuple[list[dict], list[dict]]:
    """Per switch tier: headroom over all its ports vs the switch's buffer (the catalog's
    `packet_buffer_mb`, None when unpublished), and findings.

    A tier's ports carry the link groups that touch it: leaves node_leaf + leaf_spine,
    spines leaf_spine + spine_core, cores spine_core (ports used per switch from the fabric)."""
    sku = site.scale_out.switch_sku
    per_group = {row["links"]: row["headroom_kb_per_port"] for row in headroom}
    touching = {
        "leaf": ("node_leaf", "leaf_spine"),
        "spine": ("leaf_spine", "spine_core"),
        "core": ("spine_core",),
    }
    rows, findings = [], []
    for tier in site.scale_out.switch_tiers:
        groups = [g for g in touching.get(tier["tier"], ()) if g in per_group]
        if not groups or not tier["switches"]:
            continue
        ports = tier["ports_used"] / tier["switches"] * tier.get("links_per_port", 1)
        worst_kb = max(per_group[g] for g in groups)
        total_mb = ports * worst_kb * LOSSLESS_PRIORITIES_PER_PORT / 1000.0
        rows.append(
            {
                "tier": tier["tier"],
                "ports_per_switch": ports,
                "headroom_mb_per_switch": total_mb,
                "buffer_mb": buffer_mb,
                "fraction_of_buffer": total_mb / buffer_mb if buffer_mb else None,
                "buffer_source": buffer_source,
            }
        )
        if buffer_mb is not None and total_mb > buffer_mb:
            findings.append(
                finding(
                    f"pfc-headroom-exceeds-buffer-{tier['tier']}",
                    "error",
                    f"{tier['tier']} switches ({sku}) need {total_mb:.1f} MB of PFC headroom "
                    f"({ports:g} ports x {worst_kb:.0f} KB) but hold {buffer_mb:g} MB of "
                    "buffer: lossless traffic would drop; shorten cables or lower the MTU",
                    "fabric.roce",
                )
            )
    if buffer_mb is None and rows:
        findings.append(
            finding(
                "pfc-buffer-unknown",
                "info",
                f"no published buffer size for {sku}: PFC headroom not checked against it",
                "fabric.scale_out.switch_sku",
            )
        )
    return rows, findings


def mtu_chain(host_mtu: int, switch_mtu: int, overlay: bool) -> tuple[dict, list[dict]]:
    """MTU at each hop, the RDMA MTU the host MTU allows, and mismatches as findings."""
    rdma_mtu = next((m for m in RDMA_MTUS if m + ROCE_HEADERS_BYTES <= host_mtu), 256)
    needed = host_mtu + (VXLAN_OVERHEAD_BYTES if overlay else 0)
    chain = {
        "host_mtu": host_mtu,
        "rdma_mtu": rdma_mtu,
        "overlay_overhead_bytes": VXLAN_OVERHEAD_BYTES if overlay else 0,
        "switch_mtu_needed": needed,
        "switch_mtu": switch_mtu,
        "consistent": needed <= switch_mtu,
    }
    findings = []
    if needed > switch_mtu:
        findings.append(
            finding(
                "mtu-mismatch",
                "error",
                f"host MTU {host_mtu}"
                + (f" + {VXLAN_OVERHEAD_BYTES} bytes of VXLAN" if overlay else "")
                + f" = {needed} exceeds the switch MTU {switch_mtu}: large frames drop",
                "network.switch_mtu",
            )
        )
    if rdma_mtu < RDMA_MTUS[0]:
        findings.append(
            finding(
                "rdma-mtu-below-4096",
                "warning",
                f"host MTU {host_mtu} fits an RDMA MTU of only {rdma_mtu} (4096 needs "
                f"{RDMA_MTUS[0] + ROCE_HEADERS_BYTES}): more packets per message",
                "network.host_mtu",
            )
        )
    return chain, findings
