"""`network` section: the logical network the network engine plans on the fabric the fabric
engine sized (address pools, eBGP underlay, tenants, MTU). Every field is optional; the
defaults give a working plan for any design."""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import model_validator

from ._base import RuleViolations, SpecModel, section_field, spec_field

# RFC 6996: 4200000000-4294967294 is the private 32-bit ASN range.
PRIVATE_ASN_FIRST = 4_200_000_000
PRIVATE_ASN_LAST = 4_294_967_294
# 11 characters: the VRF device is "Vrf-<name>", which SONiC requires (a "Vrf" prefix) and
# Linux caps at 15 characters (IFNAMSIZ 16 with the terminating NUL).
TENANT_NAME_PATTERN = r"^[A-Za-z][\w-]{0,10}$"
POOL_NAMES = ("loopback", "p2p", "gpu", "tenant", "management", "storage")


class AddressPools(SpecModel):
    """IPv4 pools the plan allocates from; they must not overlap."""

    loopback: str = spec_field(
        "10.0.0.0/16", unit="IPv4 CIDR", description="Switch loopbacks (/32 each)."
    )
    p2p: str = spec_field(
        "10.1.0.0/16", unit="IPv4 CIDR", description="Switch-to-switch links (/31 each)."
    )
    gpu: str = spec_field(
        "10.128.0.0/10",
        unit="IPv4 CIDR",
        description="GPU NIC subnets: one per leaf (per rail on a rail-optimized fabric).",
    )
    tenant: str = spec_field(
        "172.24.0.0/13",
        unit="IPv4 CIDR",
        description=(
            "Tenant subnets (Ethernet): one per tenant per site, its anycast gateway on every "
            "leaf in the tenant's VRF, sized for every GPU NIC port of the site."
        ),
    )
    management: str = spec_field(
        "172.16.0.0/16",
        unit="IPv4 CIDR",
        description="Out-of-band management: every switch, every node's BMC and host port.",
    )
    storage: str = spec_field(
        "10.64.0.0/12",
        unit="IPv4 CIDR",
        description="Storage network: node storage NIC ports and storage target ports.",
    )

    @model_validator(mode="after")
    def _check_pools(self) -> AddressPools:
        issues = RuleViolations()
        networks = {}
        for name in POOL_NAMES:
            try:
                networks[name] = ipaddress.IPv4Network(getattr(self, name))
            except ValueError as exc:
                issues.add(name, f"{getattr(self, name)!r} is not an IPv4 network ({exc})")
        names = list(networks)
        for i, first in enumerate(names):
            for second in names[i + 1 :]:
                if networks[first].overlaps(networks[second]):
                    issues.add(
                        second,
                        f"pool {second} ({networks[second]}) overlaps pool {first} "
                        f"({networks[first]}); pools must be disjoint",
                    )
        issues.raise_if_any()
        return self


class Tenant(SpecModel):
    """A tenant: a VRF with one L2 VNI (Ethernet) or one partition key (InfiniBand)."""

    name: str = spec_field(
        ...,
        unit="text",
        description="Tenant name: a letter, then letters, digits, - or _; 11 at most.",
        pattern=TENANT_NAME_PATTERN,
    )


class Network(SpecModel):
    """Logical network intent: addressing, underlay routing, tenancy and MTU."""

    pools: AddressPools = section_field(AddressPools(), description="Address pools.")
    asn_scheme: Literal["per-leaf", "per-tier"] = spec_field(
        "per-leaf",
        unit="enum",
        description=(
            "eBGP ASN plan (RFC 7938 section 5.2): per-leaf gives every leaf its own ASN, "
            "spines (per pod) and cores share one; per-tier gives each tier one ASN (leaves "
            "then need allowas-in)."
        ),
    )
    asn_base: int = spec_field(
        PRIVATE_ASN_FIRST,
        unit="ASN",
        description="First ASN of the plan (RFC 6996 private 32-bit range).",
        ge=PRIVATE_ASN_FIRST,
        le=PRIVATE_ASN_LAST - 1_000_000,
    )
    ecmp_max_paths: int = spec_field(
        64, unit="paths", description="Most equal-cost next hops a switch installs.", ge=1, le=512
    )
    bfd_interval_ms: int = spec_field(
        300, unit="ms", description="BFD transmit/receive interval (FRR default).", ge=10, le=60_000
    )
    bfd_multiplier: int = spec_field(
        3, unit="packets", description="BFD detect multiplier (FRR default).", ge=2, le=255
    )
    route_summarisation: Literal["none", "pod"] = spec_field(
        "none",
        unit="enum",
        description=(
            "pod: spines announce their pod's GPU subnets as one aggregate (summary-only) to "
            "leaves and cores, so tables hold one route per pod; a spine that loses its link to "
            "a leaf then still attracts that leaf's traffic and drops it (RFC 7938 section 8.2). "
            "none: every leaf subnet is announced."
        ),
    )
    bgp_gtsm: bool = spec_field(
        True,
        unit="boolean",
        description=(
            "GTSM (RFC 5082) on every fabric BGP session: TTL 255 sent, TTL 254 or less "
            "dropped, so only a directly attached peer can reach the session."
        ),
    )
    bgp_authentication: Literal["none", "md5"] = spec_field(
        "none",
        unit="enum",
        description=(
            "TCP MD5 signatures (RFC 2385) on every fabric BGP session; the rendered configs "
            "carry a placeholder secret to replace."
        ),
    )
    tenants: list[Tenant] = section_field(
        [Tenant(name="default")],
        description="Tenants: one VRF + VNIs (Ethernet) or one PKey (InfiniBand) each.",
        min_length=1,
        max_length=1000,
    )
    host_mtu: int = spec_field(
        9000, unit="bytes", description="IP MTU on GPU NICs.", ge=1280, le=9216
    )
    switch_mtu: int = spec_field(
        9216, unit="bytes", description="L2 MTU on every switch port.", ge=1500, le=9216
    )

    @model_validator(mode="after")
    def _check_tenants(self) -> Network:
        issues = RuleViolations()
        names = [tenant.name for tenant in self.tenants]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            issues.add("tenants", f"tenant names must be unique (repeated: {duplicates})")
        issues.raise_if_any()
        return self
