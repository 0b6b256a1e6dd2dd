"""The cable schedule: every link from device:port to device:port with its cable type and a
length computed from where the two ends stand.

Links come from the fabric engine's result (node links per leaf, rails, the aux networks) and
the network engine's topology (which leaf uplink lands on which spine port), generated one at a
time so a 100k-GPU fabric is never held as a list. Length model (assumptions, the spec's
`physical` fields): inside a rack the vertical distance between the two devices; otherwise each
end rises to the overhead tray, runs along the row (rack width per position) and across rows
(row pitch), and between halls through each hall's entrance plus `hall_to_hall_m`; plus
`cable_slack_fraction`, rounded up to a standard length.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from models_engine.cable_runs import RACK_UNIT_M, TRAY_RISE_M, standard_length
from models_engine.engines.fabric.result import SiteFabric
from models_engine.engines.network.result import SiteNetwork
from models_engine.engines.network.topology import SiteTopology

from .data import FALLBACK_REACH_M, MEDIUM_CABLE_TYPE
from .devices import PlacedDevice

COMPUTE_CLASSES = ("node_leaf", "leaf_spine", "spine_core")


class Cable(NamedTuple):
    """One link of the schedule (a tuple: a 16k-GPU schedule builds ~44k of them)."""

    network: str
    link_class: str
    a_device: str
    a_port: str
    b_device: str
    b_port: str
    speed_gbps: float
    cable_type: str
    length_m: float
    length_class: str
    a_rack: str
    b_rack: str


@dataclass(frozen=True)
class FloorGeometry:
    rack_height_u: int
    rack_width_m: float
    row_pitch_m: float
    rows_per_hall: int
    hall_to_hall_m: float
    slack_fraction: float
    _runs: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, physical) -> FloorGeometry:
        return cls(
            physical.rack_height_u,
            physical.rack_width_m,
            physical.row_pitch_m,
            physical.rows_per_hall,
            physical.hall_to_hall_m,
            physical.cable_slack_fraction,
        )

    def run(self, a: PlacedDevice, b: PlacedDevice) -> tuple[float, str]:
        """(ordered length in m, length class) of a cable between two placed devices (memoised
        by rack and U: many links share both ends' places)."""
        key = (a.rack, a.u, b.rack, b.u)
        found = self._runs.get(key)
        if found is None:
            found = self._runs[key] = self._measure(a, b)
        return found

    def _measure(self, a: PlacedDevice, b: PlacedDevice) -> tuple[float, str]:
        pa, pb = a.position, b.position
        if a.rack == b.rack:
            raw, where = abs(a.u - b.u) * RACK_UNIT_M + 2 * TRAY_RISE_M, "same rack"
        else:
            raw = self._rise(a) + self._rise(b)
            if pa.hall == pb.hall:
                raw += abs(pa.slot - pb.slot) * self.rack_width_m
                raw += abs(pa.row - pb.row) * self.row_pitch_m
                where = "same row" if pa.row == pb.row else "cross-row"
            else:
                raw += self._to_entrance(pa) + self._to_entrance(pb)
                raw += abs(pa.hall - pb.hall) * self.hall_to_hall_m
                where = "cross-hall"
        return standard_length(raw * (1 + self.slack_fraction)), where

    def _rise(self, d: PlacedDevice) -> float:
        return (self.rack_height_u - d.u) * RACK_UNIT_M + TRAY_RISE_M

    def _to_entrance(self, p) -> float:
        row_in_hall = (p.row - 1) % self.rows_per_hall
        return (p.slot - 1) * self.rack_width_m + row_in_hall * self.row_pitch_m


def cable_type_reach_m(catalog, cable_type: str, fabric: SiteFabric) -> tuple[float, str]:
    """(reach, where it comes from): copper and AOC from the catalog's longest cable of that
    media; fibre from the module the fabric engine chose for that fibre."""
    if cable_type.startswith("fibre-"):
        fiber = cable_type.removeprefix("fibre-")
        ids = {m["catalog_id"] for m in fabric.scale_out.transceivers.by_module if m["catalog_id"]}
        reaches = [
            o.reach_m
            for o in catalog.optics.values()
            if o.id in ids and o.fiber == fiber and not o.coherent
        ]
    else:
        reaches = [o.reach_m for o in catalog.optics.values() if o.media == cable_type]
    if reaches:
        return min(reaches) if cable_type.startswith("fibre-") else max(reaches), "catalog"
    return FALLBACK_REACH_M[cable_type], "assumption"


def chosen_types(fabric: SiteFabric, physical) -> dict[tuple[str, str], tuple[str, str]]:
    """(network, link class) -> (cable type, "design" or "fabric")."""
    out = {}
    for cls, group in fabric.scale_out.links.items():
        stated = getattr(physical.cable_types, cls, "auto") if cls in COMPUTE_CLASSES else "auto"
        if stated != "auto":
            out[("compute", cls)] = (stated, "design")
        else:
            out[("compute", cls)] = (
                MEDIUM_CABLE_TYPE.get(group.medium, "fibre-single-mode"),
                "fabric",
            )
    for name in ("frontend", "storage"):
        aux = getattr(fabric, f"{name}_network")
        for cls, group in aux.links.items():
            out[(name, cls)] = (
                MEDIUM_CABLE_TYPE.get(group["medium"], "fibre-single-mode"),
                "fabric",
            )
    return out


def _port(ethernet: bool, number: int) -> str:
    return f"Ethernet{number}" if ethernet else f"IB{number}"


def tally_runs(cables) -> dict[tuple, list]:
    """(network, link class, cable type, length class) -> [links, longest run in m]."""
    tally: dict[tuple, list] = {}
    for cable in cables:
        _tally(
            tally,
            cable.network,
            cable.link_class,
            cable.cable_type,
            cable.length_m,
            cable.length_class,
        )
    return tally


def _tally(tally: dict, network, cls, cable_type, length: float, where: str, links=1) -> None:
    entry = tally.get((network, cls, cable_type, where))
    if entry is None:
        tally[(network, cls, cable_type, where)] = [links, length]
        return
    entry[0] += links
    if length > entry[1]:
        entry[1] = length


class SiteCabling:
    """Generates one site's links from the fabric and network results and the placed devices.

    The evaluate step counts runs without building links (`runs.RunCounter`, same rules);
    a test checks both count alike."""

    def __init__(
        self,
        fabric: SiteFabric,
        network: SiteNetwork | None,
        devices,
        geometry,
        types,
    ):
        self.fabric = fabric
        self.network = network
        self.devices = devices
        self.geometry = geometry
        self.types = types
        self.ethernet = fabric.scale_out.technology.startswith("roce")

    def cables(self) -> Iterator[Cable]:
        yield from self._node_leaf()
        yield from self._switch_links()
        for name in ("frontend", "storage"):
            yield from self._aux(name)

    def _cable(self, network, cls, a: PlacedDevice, a_port, b: PlacedDevice, b_port, speed):
        cable_type, _ = self.types[(network, cls)]
        length, where = self.geometry.run(a, b)
        return Cable(
            network,
            cls,
            a.name,
            a_port,
            b.name,
            b_port,
            speed,
            cable_type,
            length,
            where,
            a.rack,
            b.rack,
        )

    def _node_leaf(self) -> Iterator[Cable]:
        out = self.fabric.scale_out
        group = out.links.get("node_leaf")
        nodes = self.devices.get("node", [])
        leaves = self.devices.get("compute/leaf", [])
        if not group or not nodes or not leaves:
            return
        per_node = max(1, group.links // max(out.nodes, 1))
        per_leaf = math.ceil(group.links / len(leaves))
        rail = out.nodes_per_su and out.leaves_per_su
        for n, node in enumerate(nodes[: out.nodes]):
            for p in range(per_node):
                if rail:
                    leaf_i, port = self._rail_leaf(n, p, per_node)
                else:
                    leaf_i, port = divmod(n * per_node + p, per_leaf)
                if leaf_i >= len(leaves):
                    continue
                yield self._cable(
                    "compute",
                    "node_leaf",
                    node,
                    f"nic{p + 1}",
                    leaves[leaf_i],
                    _port(self.ethernet, port),
                    group.link_speed_gbps,
                )

    def _rail_leaf(self, n: int, p: int, per_node: int) -> tuple[int, int]:
        """Rail-optimized: port p of node n goes to the leaf of its rail in the node's unit."""
        out = self.fabric.scale_out
        su, in_su = divmod(n, out.nodes_per_su)
        lps = out.leaves_per_su
        if per_node >= lps:
            per_leaf = per_node // lps
            return su * lps + p // per_leaf, in_su * per_leaf + p % per_leaf
        return su * lps + p * (lps // per_node), in_su

    def _switch_links(self) -> Iterator[Cable]:
        net = self.network
        if net is None:
            return
        out = self.fabric.scale_out
        topo = SiteTopology(
            site_id=net.site_id,
            technology=net.technology,
            leaves=net.leaves,
            spines=net.spines,
            cores=net.cores,
            pods=max(net.pods, 1),
            leaf_uplinks=net.leaf_uplinks,
            spine_uplinks=net.spine_uplinks,
            hosts_per_leaf=net.hosts_per_leaf,
            rails=net.rails,
            nodes=out.nodes,
            link_speed_gbps=out.link_speed_gbps,
        )
        by_role = {
            "leaf": self.devices.get("compute/leaf", []),
            "spine": self.devices.get("compute/spine", []),
            "core": self.devices.get("compute/core", []),
        }
        for link in topo.all_links():
            lower = by_role[link.lower.role]
            upper = by_role[link.upper.role]
            if link.lower.role_index >= len(lower) or link.upper.role_index >= len(upper):
                continue
            cls = "leaf_spine" if link.lower.role == "leaf" else "spine_core"
            speed = out.links[cls].link_speed_gbps if cls in out.links else out.link_speed_gbps
            yield self._cable(
                "compute",
                cls,
                lower[link.lower.role_index],
                _port(self.ethernet, link.lower_port),
                upper[link.upper.role_index],
                _port(self.ethernet, link.upper_port),
                speed,
            )

    def _aux(self, name: str) -> Iterator[Cable]:
        aux = getattr(self.fabric, f"{name}_network")
        if aux.mode != "separate" or not aux.nic_ports:
            return
        nodes = self.devices.get("node", [])
        leaves = self.devices.get(f"{name}/leaf", [])
        spines = self.devices.get(f"{name}/spine", [])
        ethernet = self.fabric.scale_out.technology.startswith("roce") or (
            aux.switch_sku or ""
        ).startswith("nvidia-sn")
        node_links = aux.links.get("node_leaf")
        if nodes and leaves and node_links:
            per_node = max(1, aux.nic_ports // max(self.fabric.scale_out.nodes, 1))
            per_leaf = math.ceil(node_links["links"] / len(leaves))
            for n, node in enumerate(nodes[: self.fabric.scale_out.nodes]):
                for p in range(per_node):
                    leaf_i, port = divmod(n * per_node + p, per_leaf)
                    if leaf_i < len(leaves):
                        yield self._cable(
                            name,
                            "node_leaf",
                            node,
                            f"{name[:2]}{p + 1}",
                            leaves[leaf_i],
                            _port(ethernet, port),
                            node_links["link_speed_gbps"],
                        )
        if name == "storage" and leaves and node_links:
            yield from self._storage_targets(aux, leaves, node_links, ethernet)
        uplinks = aux.links.get("leaf_spine")
        if leaves and spines and uplinks:
            per_leaf_up = max(1, uplinks["links"] // len(leaves))
            down = math.ceil(node_links["links"] / len(leaves)) if node_links else 0
            used = [0] * len(spines)
            for i, leaf in enumerate(leaves):
                for j in range(per_leaf_up):
                    s = (i * per_leaf_up + j) % len(spines)
                    yield self._cable(
                        name,
                        "leaf_spine",
                        leaf,
                        _port(ethernet, down + j),
                        spines[s],
                        _port(ethernet, used[s]),
                        uplinks["link_speed_gbps"],
                    )
                    used[s] += 1

    def _storage_targets(self, aux, leaves, node_links, ethernet: bool) -> Iterator[Cable]:
        """The storage systems' target ports (the fabric's `storage_target_ports`), spread
        over the placed appliances, on the leaf ports after the nodes' ports."""
        appliances = self.devices.get("storage-system", [])
        targets = aux.storage_target_ports or 0
        if not appliances or not targets:
            return
        per_node = max(1, aux.nic_ports // max(self.fabric.scale_out.nodes, 1))
        first = min(len(self.devices.get("node", [])), self.fabric.scale_out.nodes) * per_node
        per_leaf = math.ceil(node_links["links"] / len(leaves))
        for t in range(targets):  # round robin: every appliance gets a port before any two
            port, appliance = divmod(t, len(appliances))
            leaf_i, leaf_port = divmod(first + t, per_leaf)
            if leaf_i < len(leaves):
                yield self._cable(
                    "storage",
                    "node_leaf",
                    appliances[appliance],
                    f"st{port + 1}",
                    leaves[leaf_i],
                    _port(ethernet, leaf_port),
                    node_links["link_speed_gbps"],
                )
