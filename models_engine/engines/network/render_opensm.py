"""OpenSM files of an InfiniBand site: `partitions.conf` (one partition per tenant, the
default partition limited) and `opensm.conf` for the master and the standby subnet manager
(routing engine, priority, M_Key protection), from the network result's tenants and subnet
manager plan.

Syntax: OpenSM's doc/partition-config.txt (`Name=PKey[,ipoib][,defmember=full|limited] :
[port list] ;`, an empty list: no ports yet; the default partition rule
`Default=0x7fff : ALL=limited, SELF=full ;`) and opensm.conf option names
(`opensm -c` writes every option with its default). Hardening after NVIDIA's InfiniBand
Security Overview "Practical Guidelines": hosts limited members of the default partition,
M_Key set with protect bits and a lease period."""

from __future__ import annotations

from .data import DEFAULT_PKEY, PKEY_FULL_MEMBER
from .result import SiteNetwork

# Master SM priority 15 (the highest, IBTA vol. 1 SMInfo:Priority 0-15), standby one lower.
SM_PRIORITIES = {"master": 15, "standby": 14}
# M_Key protection level 2: SubnGet/SubnSet without the right M_Key fail (IBTA vol. 1
# 14.2.4.1); lease 60 s (a stated choice: how long protection waits for a lost SM).
M_KEY_PROTECT_BITS = 2
M_KEY_LEASE_S = 60
M_KEY_PLACEHOLDER = "0x0"  # replaced on site with a secret 64-bit key (never rendered here)


def partitions_conf(site: SiteNetwork, tenants: list[dict]) -> str:
    lines = [
        "# OpenSM partitions: one per tenant. Members: add each tenant's HCA port GUIDs",
        "# (full membership) to its line, e.g. `red=0x0001, ipoib, defmember=full : 0x...;`.",
        "# Hosts are limited members of the default partition: they cannot talk to each other",
        "# over it, only to the subnet manager.",
        f"Default=0x{DEFAULT_PKEY:04x}, ipoib : ALL=limited, SELF=full ;",
    ]
    for tenant in tenants:
        pkey = int(tenant["pkey"], 16) & ~PKEY_FULL_MEMBER  # the 15-bit key, membership apart
        lines.append(f"{tenant['tenant']}=0x{pkey:04x}, ipoib, defmember=full : ;")
    return "\n".join(lines) + "\n"


def opensm_conf(site: SiteNetwork, role: str) -> str:
    manager = site.subnet_manager or {}
    return "\n".join(
        [
            f"# OpenSM {role} subnet manager of site {site.site_id}",
            f"# placement: {manager.get('placement', '')}",
            f"sm_priority {SM_PRIORITIES[role]}",
            f"routing_engine {manager.get('routing_engine', 'ftree')}",
            "partition_config_file /etc/opensm/partitions.conf",
            "no_partition_enforcement FALSE",
            "allow_both_pkeys FALSE",
            f"m_key {M_KEY_PLACEHOLDER}",
            f"m_key_protection_level {M_KEY_PROTECT_BITS}",
            f"m_key_lease_period {M_KEY_LEASE_S}",
            "lmc 0",
            "sweep_interval 10",
            "",
        ]
    )


def opensm_files(site: SiteNetwork, tenants: list[dict]) -> dict[str, str]:
    """{file name: text} of one InfiniBand site."""
    return {
        "partitions.conf": partitions_conf(site, tenants),
        **{f"opensm-{role}.conf": opensm_conf(site, role) for role in SM_PRIORITIES},
    }
