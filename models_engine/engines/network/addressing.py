"""Address allocation from the design's pools: loopback /32s, switch-to-switch /31s (RFC 3021),
one GPU subnet per leaf, one tenant subnet per tenant (Ethernet), management and storage
ranges. Allocation is arithmetic (the n-th block of a pool), so any device's addresses are
computed without holding a table; a pool too small for what the fabric needs is an error
naming the pool."""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass

from .topology import Device, Link, SiteTopology


class PoolExhausted(ValueError):
    """A pool holds fewer addresses than the fabric needs."""

    def __init__(self, pool: str, cidr: str, needed: int, capacity: int, what: str):
        self.pool = pool
        super().__init__(
            f"network.pools.{pool}: {cidr} holds {capacity} {what}, the fabric needs {needed}; "
            "give a larger pool"
        )


@dataclass(frozen=True)
class PoolUse:
    pool: str
    cidr: str
    block_prefix: int  # prefix length of each allocation
    blocks_needed: int
    blocks_available: int
    first: str | None
    last: str | None

    @property
    def used_fraction(self) -> float:
        return self.blocks_needed / self.blocks_available

    def exhausted(self, offset: int) -> PoolExhausted | None:
        return pool_exhausted(self, offset)


def pool_exhausted(use, offset: int) -> PoolExhausted | None:
    """The error when earlier sites' blocks (`offset`) plus this site's overflow the pool;
    `use` is a PoolUse or the result's PoolUsage."""
    if offset + use.blocks_needed <= use.blocks_available:
        return None
    return PoolExhausted(
        use.pool,
        use.cidr,
        offset + use.blocks_needed,
        use.blocks_available,
        f"/{use.block_prefix} blocks",
    )


def host_subnet_prefix(hosts: int) -> int:
    """Smallest subnet holding `hosts` NIC ports plus the gateway, network and broadcast."""
    needed = hosts + 3
    return 32 - max(2, (needed - 1).bit_length())


@functools.lru_cache(maxsize=64)
def _pool_bounds(cidr: str) -> tuple[int, int]:
    network = ipaddress.IPv4Network(cidr)
    return int(network.network_address), network.num_addresses


def block_start(pool: str, cidr: str, prefix: int, index: int) -> int:
    """First address (as an integer) of the index-th /prefix block of a pool."""
    start, addresses = _pool_bounds(cidr)
    size = 1 << (32 - prefix)
    capacity = addresses // size
    if index >= capacity:
        raise PoolExhausted(pool, cidr, index + 1, capacity, f"/{prefix} blocks")
    return start + index * size


def block(pool: str, cidr: str, prefix: int, index: int) -> ipaddress.IPv4Network:
    return ipaddress.IPv4Network((block_start(pool, cidr, prefix, index), prefix))


class AddressPlan:
    """Addresses of one site's fabric. Sites share the pools: `offsets` says where each
    site's allocations start in each pool (blocks before it belong to earlier sites)."""

    def __init__(self, pools, topo: SiteTopology, offsets: dict[str, int], tenants: int = 0):
        self.pools = pools
        self.topo = topo
        self.offsets = offsets
        self.tenants = tenants if topo.ethernet else 0  # InfiniBand tenants are PKeys
        self.gpu_prefix = host_subnet_prefix(topo.hosts_per_leaf)
        # A tenant may be given any node of the site: its subnet holds every GPU NIC port.
        self.tenant_prefix = host_subnet_prefix(topo.leaves * topo.hosts_per_leaf)

    def loopback(self, device: Device) -> ipaddress.IPv4Address:
        index = self.offsets["loopback"] + device.index
        return ipaddress.IPv4Address(block_start("loopback", self.pools.loopback, 32, index))

    def p2p(self, link: Link) -> tuple[ipaddress.IPv4Address, ipaddress.IPv4Address]:
        """(upper end, lower end) of a link's /31: the upper tier takes the even address."""
        even = block_start("p2p", self.pools.p2p, 31, self.offsets["p2p"] + link.index)
        return ipaddress.IPv4Address(even), ipaddress.IPv4Address(even + 1)

    def gpu_subnet(self, leaf: Device) -> ipaddress.IPv4Network:
        slot = self.offsets["gpu"] + self.topo.gpu_slot(leaf)
        return block("gpu", self.pools.gpu, self.gpu_prefix, slot)

    def gateway(self, leaf: Device) -> ipaddress.IPv4Address:
        return self.gpu_subnet(leaf).network_address + 1

    def tenant_subnet(self, number: int) -> ipaddress.IPv4Network:
        """Subnet of tenant `number` (from 1) at this site; its first address is the anycast
        gateway every leaf holds in the tenant's VRF (symmetric IRB)."""
        index = self.offsets["tenant"] + number - 1
        return block("tenant", self.pools.tenant, self.tenant_prefix, index)

    def tenant_gateway(self, number: int) -> ipaddress.IPv4Address:
        return self.tenant_subnet(number).network_address + 1

    def usage(self, management_hosts: int, storage_hosts: int) -> list[PoolUse]:
        """How much of each pool this site takes (first/last None when it does not fit)."""
        topo = self.topo
        routed = topo.ethernet  # InfiniBand switches carry no IP: no loopbacks, no /31s
        needs = {
            "loopback": (32, topo.switches if routed else 0),
            "p2p": (31, topo.links if routed else 0),
            "gpu": (self.gpu_prefix, topo.gpu_slots),
            "tenant": (self.tenant_prefix, self.tenants),
            "management": (32, management_hosts),
            "storage": (32, storage_hosts),
        }
        return [self._use(pool, prefix, count) for pool, (prefix, count) in needs.items()]

    def _use(self, pool: str, prefix: int, count: int) -> PoolUse:
        cidr = getattr(self.pools, pool)
        network = ipaddress.IPv4Network(cidr)
        available = network.num_addresses // 2 ** (32 - prefix)
        start = self.offsets[pool]
        fits = start + count <= available
        first = block(pool, cidr, prefix, start) if count and fits else None
        last = block(pool, cidr, prefix, start + count - 1) if count and fits else None
        return PoolUse(
            pool=pool,
            cidr=cidr,
            block_prefix=prefix,
            blocks_needed=count,
            blocks_available=available,
            first=str(first) if first else None,
            last=str(last) if last else None,
        )
