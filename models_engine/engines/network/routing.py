"""eBGP underlay in the RFC 7938 style: the ASN of every switch, ECMP width per tier, BFD.

per-leaf (RFC 7938 5.2.1): every leaf its own ASN, the spines of a pod one ASN, the cores one
ASN, so the AS path alone prevents loops. per-tier: one ASN per tier; a leaf then sees its
own ASN in other leaves' routes and needs `allowas-in` (so do spines of a 3-tier fabric)."""

from __future__ import annotations

from dataclasses import dataclass

from .topology import Device, SiteTopology


@dataclass(frozen=True)
class AsnPlan:
    scheme: str
    base: int  # first ASN of this site
    topo: SiteTopology

    @property
    def asns_used(self) -> int:
        if self.scheme == "per-tier":
            return 1 + bool(self.topo.spines) + bool(self.topo.cores)
        return (
            self.topo.leaves + (self.topo.pods if self.topo.spines else 0) + bool(self.topo.cores)
        )

    def asn(self, device: Device) -> int:
        topo = self.topo
        if self.scheme == "per-tier":
            return self.base + {"leaf": 0, "spine": 1, "core": 2}[device.role]
        if device.role == "leaf":
            return self.base + device.role_index
        if device.role == "spine":
            return self.base + topo.leaves + device.pod
        return self.base + topo.leaves + topo.pods

    @property
    def needs_allowas_in(self) -> bool:
        return self.scheme == "per-tier"

    def table(self) -> list[dict]:
        """One row per role (and pod for spines): the ASN range, not one row per switch."""
        topo = self.topo
        rows = []
        if topo.leaves:
            first, last = self.asn(topo.leaf(0)), self.asn(topo.leaf(topo.leaves - 1))
            rows.append(
                {"role": "leaf", "switches": topo.leaves, "asn_first": first, "asn_last": last}
            )
        if topo.spines:
            first, last = self.asn(topo.spine(0)), self.asn(topo.spine(topo.spines - 1))
            rows.append(
                {"role": "spine", "switches": topo.spines, "asn_first": first, "asn_last": last}
            )
        if topo.cores:
            asn = self.asn(topo.core(0))
            rows.append({"role": "core", "switches": topo.cores, "asn_first": asn, "asn_last": asn})
        return rows


def ecmp_rows(topo: SiteTopology, max_paths: int) -> list[dict]:
    """Equal-cost next hops per tier towards the tier above (one per uplink), capped."""
    rows = []
    if topo.spines:
        rows.append(
            {
                "role": "leaf",
                "uplinks": topo.leaf_uplinks,
                "ecmp_width": min(topo.leaf_uplinks, max_paths),
            }
        )
    if topo.cores:
        rows.append(
            {
                "role": "spine",
                "uplinks": topo.spine_uplinks,
                "ecmp_width": min(topo.spine_uplinks, max_paths),
            }
        )
    return rows
