"""Bandwidth a job achieves from a storage tier, not the tier's rating.

    achieved = min(rated x achieved_fraction,          server side (published default per kind)
                   clients x client_{read,write}_...,  client side (e.g. NFS RPC slots), if given
                   storage network)                    node-side links to the shared tiers

Node-local NVMe has no shared service and no network: every node moves its own data, so its
aggregate is nodes x the per-node figure x the fraction. Published achieved-vs-rated figures
are fixtures in tests/engine/test_storage_achieved.py (Llama 3 Tectonic 2 of 7 TB/s; the
Lablup B200 / VAST NFS cluster saving at 16.0 % and restoring at 21.5 % of rated, bound by the
128-slot NFS RPC layer of each client).
"""

from __future__ import annotations

from dataclasses import dataclass

from .data import ACHIEVED_FRACTION_BY_KIND, ACHIEVED_FRACTION_SOURCE


@dataclass(frozen=True)
class Achieved:
    gbytes_per_s: float
    rated_gbytes_per_s: float
    fraction: float
    fraction_source: str
    limited_by: str  # "tier (achieved)", "clients", "storage network", "node NVMe"


def achieved_fraction(tier) -> tuple[float, str]:
    if tier.achieved_fraction is not None:
        return tier.achieved_fraction, "design"
    return ACHIEVED_FRACTION_BY_KIND[tier.kind], ACHIEVED_FRACTION_SOURCE[tier.kind]


def achieved_bandwidth(tier, attr: str, *, nodes: int, network_gbytes_per_s: float) -> Achieved:
    """What `nodes` client nodes achieve reading (`attr`="read_gbytes_per_s") or writing
    (`attr`="write_gbytes_per_s") the tier at once."""
    fraction, source = achieved_fraction(tier)
    if tier.kind == "local-nvme":
        rated = getattr(tier, attr) * nodes
        return Achieved(rated * fraction, rated, fraction, source, "node NVMe")
    rated = getattr(tier, attr)
    limits = [(rated * fraction, "tier (achieved)"), (network_gbytes_per_s, "storage network")]
    client = getattr(tier, "client_" + attr)
    if client is not None:
        limits.append((client * nodes, "clients"))
    value, limited_by = min(limits, key=lambda item: item[0])
    return Achieved(value, rated, fraction, source, limited_by)


def metadata_s(tier, files: int) -> float:
    """Time the tier's metadata service takes to create `files` files (0 when not limiting)."""
    if tier.kind == "local-nvme" or tier.metadata_creates_per_s is None:
        return 0.0
    return files / tier.metadata_creates_per_s
