"""The switches and links of one site's compute fabric, read from the fabric engine's result
(never re-derived): how many leaves, spines and cores, how the uplinks spread, how many host
ports each leaf serves. Devices and links are generated on demand, so a 100k-GPU fabric is
never held as one row per port."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from models_engine.engines.fabric.result import SiteFabric


@dataclass(frozen=True)
class Device:
    name: str
    role: str  # "leaf", "spine" or "core"
    index: int  # position among all switches (loopback order)
    role_index: int  # position within its role
    pod: int


@dataclass(frozen=True)
class Link:
    index: int  # position among all switch-to-switch links (/31 order)
    lower: Device  # leaf (or spine towards a core)
    upper: Device
    lower_port: int  # port on the lower switch (after its host or downlink ports)
    upper_port: int  # port on the upper switch


@dataclass(frozen=True)
class SiteTopology:
    """Counts the plan needs. Uplinks spread round robin over the upper tier of the pod:
    uplink j of a leaf goes to spine j mod spines_per_pod (every leaf reaches every spine of
    its pod once the leaf has at least as many uplinks as there are spines)."""

    site_id: str
    technology: str
    leaves: int
    spines: int
    cores: int
    pods: int
    leaf_uplinks: int  # per leaf
    spine_uplinks: int  # per spine, towards the cores
    hosts_per_leaf: int  # GPU NIC ports each leaf serves
    rails: int | None
    nodes: int
    link_speed_gbps: float

    @property
    def ethernet(self) -> bool:
        return self.technology.startswith("roce")

    @property
    def leaves_per_pod(self) -> int:
        return max(1, -(-self.leaves // self.pods))  # the last pod may hold fewer

    @property
    def spines_per_pod(self) -> int:
        return max(1, -(-self.spines // self.pods)) if self.spines else 0

    @property
    def spine_downlinks(self) -> int:
        """Ports of a spine facing its pod's leaves (numbered before its uplinks)."""
        return self.leaves_per_pod * -(-self.leaf_uplinks // max(self.spines_per_pod, 1))

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores

    @property
    def links(self) -> int:
        return self.leaves * self.leaf_uplinks + self.spines * self.spine_uplinks

    def leaf(self, i: int) -> Device:
        return Device(f"leaf{i + 1}", "leaf", i, i, i // self.leaves_per_pod)

    def spine(self, i: int) -> Device:
        return Device(f"spine{i + 1}", "spine", self.leaves + i, i, i // self.spines_per_pod)

    def core(self, i: int) -> Device:
        return Device(f"core{i + 1}", "core", self.leaves + self.spines + i, i, 0)

    def devices(self) -> Iterator[Device]:
        yield from (self.leaf(i) for i in range(self.leaves))
        yield from (self.spine(i) for i in range(self.spines))
        yield from (self.core(i) for i in range(self.cores))

    def uplinks_of(self, device: Device) -> Iterator[Link]:
        """The links from `device` to the tier above (leaf->spine or spine->core)."""
        if device.role == "leaf" and self.spines:
            yield from (self.leaf_uplink(device, j) for j in range(self.leaf_uplinks))
        elif device.role == "spine" and self.cores:
            yield from (self.spine_uplink(device, j) for j in range(self.spine_uplinks))

    def leaf_uplink(self, leaf: Device, j: int) -> Link:
        """Uplink j of a leaf: to spine j mod spines_per_pod of its pod."""
        per_pod = self.spines_per_pod
        spine = self.spine(min(leaf.pod * per_pod + j % per_pod, self.spines - 1))
        per_spine = -(-self.leaf_uplinks // per_pod)
        port = (leaf.role_index % self.leaves_per_pod) * per_spine + j // per_pod
        index = leaf.index * self.leaf_uplinks + j
        return Link(index, leaf, spine, self.hosts_per_leaf + j, port)

    def spine_uplink(self, spine: Device, j: int) -> Link:
        """Uplink j of a spine: to core (k x uplinks + j) mod cores, k its place in the pod
        (the spines of a pod spread over all cores)."""
        start = (spine.role_index % self.spines_per_pod) * self.spine_uplinks
        per_core = -(-self.spine_uplinks // self.cores) + 1
        core = self.core((start + j) % self.cores)
        port = spine.role_index * per_core + (start + j) // self.cores - start // self.cores
        index = self.leaves * self.leaf_uplinks + spine.role_index * self.spine_uplinks + j
        return Link(index, spine, core, self.spine_downlinks + j, port)

    def links_of(self, device: Device) -> Iterator[Link]:
        """Every switch-to-switch link of `device` (uplinks, and downlinks of a spine/core),
        computed directly: only the uplinks that land on `device` are built."""
        yield from self.uplinks_of(device)
        if device.role == "spine":
            in_pod = device.role_index % self.spines_per_pod
            first = device.pod * self.leaves_per_pod
            for i in range(first, min(first + self.leaves_per_pod, self.leaves)):
                leaf = self.leaf(i)
                for j in range(in_pod, self.leaf_uplinks, self.spines_per_pod):
                    yield self.leaf_uplink(leaf, j)
        elif device.role == "core":
            for s in range(self.spines):
                spine = self.spine(s)
                start = (s % self.spines_per_pod) * self.spine_uplinks
                for j in range(
                    (device.role_index - start) % self.cores, self.spine_uplinks, self.cores
                ):
                    yield self.spine_uplink(spine, j)

    def all_links(self) -> Iterator[Link]:
        for i in range(self.leaves):
            yield from self.uplinks_of(self.leaf(i))
        for i in range(self.spines):
            yield from self.uplinks_of(self.spine(i))

    @property
    def pod_stride(self) -> int:
        """GPU-subnet slots per pod: a power of two, so each pod's subnets form one aggregate."""
        return 1 << (self.leaves_per_pod - 1).bit_length()

    def gpu_slot(self, leaf: Device) -> int:
        return leaf.pod * self.pod_stride + leaf.role_index % self.leaves_per_pod

    @property
    def gpu_slots(self) -> int:
        return self.gpu_slot(self.leaf(self.leaves - 1)) + 1 if self.leaves else 0

    def rail_of(self, leaf: Device) -> int | None:
        """Rail a leaf serves on a rail-optimized fabric (one leaf per rail per unit)."""
        return leaf.role_index % self.rails if self.rails else None


def topology_of(site: SiteFabric) -> SiteTopology:
    """The site's compute fabric as the fabric engine sized it."""
    out = site.scale_out
    counts = out.switches
    links = out.links
    leaf_spine = links["leaf_spine"].links if "leaf_spine" in links else 0
    spine_core = links["spine_core"].links if "spine_core" in links else 0
    node_leaf = links["node_leaf"].links if "node_leaf" in links else 0
    leaves = max(counts.leaf, 1)
    return SiteTopology(
        site_id=site.site_id,
        technology=out.technology,
        leaves=counts.leaf,
        spines=counts.spine,
        cores=counts.core,
        pods=max(out.pods, 1),
        leaf_uplinks=-(-leaf_spine // leaves),
        spine_uplinks=-(-spine_core // counts.spine) if counts.spine else 0,
        hosts_per_leaf=-(-node_leaf // leaves),
        rails=out.rails,
        nodes=out.nodes,
        link_speed_gbps=out.link_speed_gbps,
    )
