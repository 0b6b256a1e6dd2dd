"""What a switch's QoS configuration needs, read from the network result (which owns the
traffic classes, PFC headroom and buffer check) and the ECN thresholds it copied from the
fabric result: no figure is recomputed while rendering."""

from __future__ import annotations

from dataclasses import dataclass

from .result import SiteNetwork


@dataclass(frozen=True)
class PortQos:
    """The lossless settings of the ports of one link group."""

    link_speed_gbps: float
    cable_m: float
    headroom_bytes: int  # PFC xoff headroom per lossless priority (802.1Qbb delay model)


@dataclass(frozen=True)
class QosPlan:
    pfc_priority: int | None  # the lossless (RoCEv2) priority, None without PFC
    classes: tuple[dict, ...]  # class, priority, dscp, lossless, ecn, scheduling
    ecn_by_speed: dict[float, tuple[float, float]]  # Gb/s -> (Kmin KB, Kmax KB)
    groups: dict[str, PortQos]  # by link group: node_leaf, leaf_spine, spine_core
    buffer_bytes: int | None  # the switch's shared packet buffer, when published
    mtu: int

    def ecn_kb(self, speed_gbps: float) -> tuple[float, float] | None:
        """(Kmin, Kmax) of the nearest tabulated link speed (the fabric tabulates each speed
        it uses, so the nearest is the same speed)."""
        if not self.ecn_by_speed:
            return None
        nearest = min(self.ecn_by_speed, key=lambda speed: abs(speed - speed_gbps))
        return self.ecn_by_speed[nearest]


def qos_plan(site: SiteNetwork) -> QosPlan | None:
    """The site's QoS plan; None for a site without lossless Ethernet classes."""
    if not site.traffic_classes:
        return None
    lossless = next((c for c in site.traffic_classes if c["lossless"]), None)
    buffers = [row["buffer_mb"] for row in site.buffer_check if row["buffer_mb"]]
    return QosPlan(
        pfc_priority=lossless["priority"] if lossless else None,
        classes=tuple(site.traffic_classes),
        ecn_by_speed={
            row["link_speed_gbps"]: (row["ecn_kmin_kb"], row["ecn_kmax_kb"])
            for row in site.ecn_by_link_speed
        },
        groups={
            row["links"]: PortQos(
                link_speed_gbps=row["link_speed_gbps"],
                cable_m=row["cable_m"],
                headroom_bytes=round(row["headroom_kb_per_port"] * 1000),
            )
            for row in site.pfc_headroom
        },
        buffer_bytes=round(buffers[0] * 1e6) if buffers else None,
        mtu=site.mtu["switch_mtu"],
    )
