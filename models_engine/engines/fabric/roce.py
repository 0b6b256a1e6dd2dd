"""Consistency checks of lossless RoCE settings, reported as findings (never silently accepted).

- Lossless class: PFC on the RDMA priority; vendor default priority 3 with CNPs on priority 6
  (strict) (NVIDIA Onyx / Cumulus "roce lossless", see data.py).
- Congestion control: ECN marking (DCQCN). PFC alone cannot prevent congestion spreading (Intel
  Ethernet 800 Series RDMA flow-control guide: PFC and ECN thresholds must be balanced so that
  ECN acts before PFC).
- ECN thresholds per link speed: marking should start no earlier than C x RTT / 7 of queue
  (DCTCP rule, Alizadeh et al. SIGCOMM 2010), which grows with the link speed.
"""

from __future__ import annotations

from .data import (
    DCTCP_K_DIVISOR,
    ROCE_CNP_PRIORITY,
    ROCE_NETWORK_CONTROL_PRIORITY,
    ROCE_RECOMMENDED_PRIORITY,
    RTT_US_HOST,
    RTT_US_PER_SWITCH_HOP_ONE_WAY,
)


def finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def base_rtt_us(max_switch_hops: int) -> float:
    """Round-trip time of the longest path: per-hop time both ways plus host time."""
    return 2.0 * max_switch_hops * RTT_US_PER_SWITCH_HOP_ONE_WAY + RTT_US_HOST


def ecn_kmin_floor_kb(link_gbps: float, rtt_us: float) -> float:
    """Smallest Kmin (KB) that keeps a link busy: bandwidth-delay product / 7 (DCTCP)."""
    bdp_kb = link_gbps * 1e9 * rtt_us * 1e-6 / 8.0 / 1000.0
    return bdp_kb / DCTCP_K_DIVISOR


def roce_check(fabric, link_speeds_gbps: list[float], max_switch_hops: int) -> dict:
    """The `roce` block of the fabric result and its findings."""
    settings = fabric.roce
    applies = fabric.technology.startswith("roce")
    rtt = base_rtt_us(max_switch_hops)
    per_speed = [
        {
            "link_speed_gbps": speed,
            "bdp_kb": speed * 1e9 * rtt * 1e-6 / 8.0 / 1000.0,
            "ecn_kmin_floor_kb": ecn_kmin_floor_kb(speed, rtt),
            "ecn_kmin_kb": settings.ecn_kmin_kb,
            "ecn_kmax_kb": settings.ecn_kmax_kb,
            "kmin_ok": settings.ecn_kmin_kb >= ecn_kmin_floor_kb(speed, rtt),
        }
        for speed in sorted(set(link_speeds_gbps))
    ]
    block = {
        "applies": applies,
        "pfc_enabled": settings.pfc_enabled,
        "pfc_priority": settings.pfc_priority,
        "ecn_enabled": settings.ecn_enabled,
        "base_rtt_us": rtt,
        "thresholds_by_link_speed": per_speed,
    }
    if not applies:
        return {"block": block, "findings": []}
    return {"block": block, "findings": _findings(settings, per_speed)}


def _findings(settings, per_speed: list[dict]) -> list[dict]:
    out = []
    if not settings.pfc_enabled and not settings.ecn_enabled:
        out.append(
            finding(
                "roce-no-congestion-control",
                "error",
                "RoCE with neither PFC nor ECN: RDMA traffic is lossy and unthrottled; "
                "go-back-N retransmission collapses throughput under incast",
                "fabric.roce",
            )
        )
    elif not settings.pfc_enabled:
        out.append(
            finding(
                "roce-pfc-disabled",
                "warning",
                "PFC is off: RoCE runs lossy; only safe with a loss-tolerant transport "
                "(selective retransmission / adaptive routing) end to end",
                "fabric.roce.pfc_enabled",
            )
        )
    elif not settings.ecn_enabled:
        out.append(
            finding(
                "roce-ecn-disabled",
                "warning",
                "PFC without ECN (DCQCN): pauses are the only congestion signal, so congestion "
                "spreads upstream (head-of-line blocking, PFC storms); enable ECN so marking "
                "acts before PFC",
                "fabric.roce.ecn_enabled",
            )
        )
    if settings.pfc_enabled:
        out.extend(_priority_findings(settings.pfc_priority))
    if settings.ecn_enabled:
        for row in per_speed:
            if not row["kmin_ok"]:
                out.append(
                    finding(
                        f"roce-ecn-kmin-low-{row['link_speed_gbps']:g}g",
                        "warning",
                        f"ECN Kmin {settings.ecn_kmin_kb:g} KB is below the "
                        f"{row['ecn_kmin_floor_kb']:.0f} KB a {row['link_speed_gbps']:g} Gb/s "
                        "link needs (bandwidth-delay product / 7): marking starts before the "
                        "queue absorbs one RTT, costing throughput",
                        "fabric.roce.ecn_kmin_kb",
                    )
                )
            if settings.ecn_kmax_kb < row["bdp_kb"]:
                out.append(
                    finding(
                        f"roce-ecn-kmax-low-{row['link_speed_gbps']:g}g",
                        "info",
                        f"ECN Kmax {settings.ecn_kmax_kb:g} KB is under one bandwidth-delay "
                        f"product ({row['bdp_kb']:.0f} KB) at {row['link_speed_gbps']:g} Gb/s: "
                        "full-probability marking on shallow queues",
                        "fabric.roce.ecn_kmax_kb",
                    )
                )
    return out


def _priority_findings(priority: int) -> list[dict]:
    path = "fabric.roce.pfc_priority"
    if priority == ROCE_CNP_PRIORITY:
        return [
            finding(
                "roce-priority-cnp-clash",
                "error",
                f"lossless RDMA on priority {priority}, the priority congestion notification "
                "packets (CNP) use with strict scheduling: CNPs would be paused with the data "
                "they should throttle",
                path,
            )
        ]
    if priority == ROCE_NETWORK_CONTROL_PRIORITY:
        return [
            finding(
                "roce-priority-network-control",
                "warning",
                "lossless RDMA on priority 7 (network control): pausing it can stall routing "
                "and LLDP traffic",
                path,
            )
        ]
    if priority == 0:
        return [
            finding(
                "roce-priority-default-class",
                "warning",
                "lossless RDMA on priority 0 shares the default best-effort class: untagged "
                "traffic gets paused too",
                path,
            )
        ]
    if priority != ROCE_RECOMMENDED_PRIORITY:
        return [
            finding(
                "roce-priority-nondefault",
                "info",
                f"RDMA priority {priority} differs from the vendor default 3: the NIC "
                "(DSCP to priority map) and every switch must agree",
                path,
            )
        ]
    return []
