"""The cable classes of a site counted without building a link: each link class's ends as
index arrays into the placed devices (the same port-assignment rules as `SiteCabling`, which
names every port for the full schedule), every run measured at once with the shared length
model (numpy over the links), then counted by length class. A test checks that this count
equals the summary of the full schedule, class by class."""

from __future__ import annotations

import math

import numpy as np

from models_engine.cable_runs import RACK_UNIT_M, STANDARD_CABLE_LENGTHS_M, TRAY_RISE_M
from models_engine.engines.fabric.result import SiteFabric
from models_engine.engines.network.topology import SiteTopology

from .cabling import FloorGeometry

WHERE = ("same rack", "same row", "cross-row", "cross-hall")
_STANDARD = np.array(STANDARD_CABLE_LENGTHS_M, dtype=float)


class _Places:
    """hall, row, slot, U and rack code of each device of one group, as arrays."""

    def __init__(self, devices, rack_codes: dict[str, int]):
        self.hall = np.array([d.position.hall for d in devices], dtype=np.int64)
        self.row = np.array([d.position.row for d in devices], dtype=np.int64)
        self.slot = np.array([d.position.slot for d in devices], dtype=np.int64)
        self.u = np.array([d.u for d in devices], dtype=np.int64)
        self.rack = np.array(
            [rack_codes.setdefault(d.rack, len(rack_codes)) for d in devices], dtype=np.int64
        )


def _standard_lengths(metres: np.ndarray) -> np.ndarray:
    index = np.searchsorted(_STANDARD, metres, side="left")
    beyond = np.ceil(metres / 50.0) * 50
    inside = _STANDARD[np.minimum(index, len(_STANDARD) - 1)]
    return np.where(index < len(_STANDARD), inside, beyond)


def measure(g: FloorGeometry, a: _Places, ia, b: _Places, ib) -> tuple[np.ndarray, np.ndarray]:
    """(ordered lengths, length-class codes into WHERE) of the runs a[ia] -> b[ib], the same
    arithmetic in the same order as `FloorGeometry._measure`."""
    ua, ub = a.u[ia], b.u[ib]
    same_rack = a.rack[ia] == b.rack[ib]
    rise_a = (g.rack_height_u - ua) * RACK_UNIT_M + TRAY_RISE_M
    rise_b = (g.rack_height_u - ub) * RACK_UNIT_M + TRAY_RISE_M
    ha, hb, ra, rb, sa, sb = a.hall[ia], b.hall[ib], a.row[ia], b.row[ib], a.slot[ia], b.slot[ib]
    in_hall = rise_a + rise_b
    in_hall = in_hall + np.abs(sa - sb) * g.rack_width_m
    in_hall = in_hall + np.abs(ra - rb) * g.row_pitch_m
    to_entrance_a = (sa - 1) * g.rack_width_m + ((ra - 1) % g.rows_per_hall) * g.row_pitch_m
    to_entrance_b = (sb - 1) * g.rack_width_m + ((rb - 1) % g.rows_per_hall) * g.row_pitch_m
    across = rise_a + rise_b
    across = across + to_entrance_a + to_entrance_b
    across = across + np.abs(ha - hb) * g.hall_to_hall_m
    in_rack = np.abs(ua - ub) * RACK_UNIT_M + 2 * TRAY_RISE_M
    raw = np.where(same_rack, in_rack, np.where(ha == hb, in_hall, across))
    where = np.where(same_rack, 0, np.where(ha == hb, np.where(ra == rb, 1, 2), 3))
    return _standard_lengths(raw * (1 + g.slack_fraction)), where


class RunCounter:
    """Counts one site's runs by (network, class, cable type, length class)."""

    def __init__(self, fabric: SiteFabric, network, devices, geometry: FloorGeometry, types):
        self.fabric, self.network, self.geometry, self.types = fabric, network, geometry, types
        self.devices = devices
        self._codes: dict[str, int] = {}
        self._places: dict[str, _Places] = {}
        self.tally: dict[tuple, list] = {}

    def count(self) -> dict[tuple, list]:
        """(network, class, cable type, length class) -> [links, longest run in m]."""
        self._node_leaf()
        self._switch_links()
        for name in ("frontend", "storage"):
            self._aux(name)
        return self.tally

    def _at(self, group: str) -> _Places:
        if group not in self._places:
            self._places[group] = _Places(self.devices.get(group, []), self._codes)
        return self._places[group]

    def _add(self, network, cls, group_a, ia, group_b, ib) -> None:
        ia, ib = np.asarray(ia, dtype=np.int64), np.asarray(ib, dtype=np.int64)
        if not len(ia):
            return
        lengths, where = measure(self.geometry, self._at(group_a), ia, self._at(group_b), ib)
        cable_type = self.types[(network, cls)][0]
        for code in np.unique(where):
            chosen = lengths[where == code]
            key = (network, cls, cable_type, WHERE[code])
            entry = self.tally.setdefault(key, [0, 0.0])
            entry[0] += len(chosen)
            entry[1] = max(entry[1], float(chosen.max()))

    def _node_leaf(self) -> None:
        out = self.fabric.scale_out
        group = out.links.get("node_leaf")
        nodes, leaves = self.devices.get("node", []), self.devices.get("compute/leaf", [])
        if not group or not nodes or not leaves:
            return
        per_node = max(1, group.links // max(out.nodes, 1))
        n = np.repeat(np.arange(min(len(nodes), out.nodes)), per_node)
        p = np.tile(np.arange(per_node), len(n) // per_node)
        if out.nodes_per_su and out.leaves_per_su:
            su, lps = n // out.nodes_per_su, out.leaves_per_su
            if per_node >= lps:
                leaf = su * lps + p // (per_node // lps)
            else:
                leaf = su * lps + p * (lps // per_node)
        else:
            leaf = (n * per_node + p) // math.ceil(group.links / len(leaves))
        keep = leaf < len(leaves)
        self._add("compute", "node_leaf", "node", n[keep], "compute/leaf", leaf[keep])

    def _switch_links(self) -> None:
        """Uplink targets depend on the pod (leaves) and the position in the pod (spines)
        only, so each is asked of the network engine's topology once."""
        net = self.network
        if net is None:
            return
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
            nodes=self.fabric.scale_out.nodes,
            link_speed_gbps=self.fabric.scale_out.link_speed_gbps,
        )
        for role, upper_role, cls in (
            ("leaf", "spine", "leaf_spine"),
            ("spine", "core", "spine_core"),
        ):
            lower = self.devices.get(f"compute/{role}", [])
            upper = len(self.devices.get(f"compute/{upper_role}", []))
            count = topo.leaves if role == "leaf" else topo.spines
            targets: dict[int, list[int]] = {}
            ia: list[int] = []
            ib: list[int] = []
            for i in range(min(count, len(lower))):
                device = topo.leaf(i) if role == "leaf" else topo.spine(i)
                key = device.pod if role == "leaf" else i % max(topo.spines_per_pod, 1)
                if key not in targets:
                    targets[key] = [
                        t
                        for t in (link.upper.role_index for link in topo.uplinks_of(device))
                        if t < upper
                    ]
                ib.extend(targets[key])
                ia.extend([i] * len(targets[key]))
            self._add("compute", cls, f"compute/{role}", ia, f"compute/{upper_role}", ib)

    def _aux(self, name: str) -> None:
        aux = getattr(self.fabric, f"{name}_network")
        if aux.mode != "separate" or not aux.nic_ports:
            return
        nodes = self.devices.get("node", [])
        leaves = self.devices.get(f"{name}/leaf", [])
        spines = self.devices.get(f"{name}/spine", [])
        node_links = aux.links.get("node_leaf")
        if nodes and leaves and node_links:
            per_node = max(1, aux.nic_ports // max(self.fabric.scale_out.nodes, 1))
            per_leaf = math.ceil(node_links["links"] / len(leaves))
            n = np.repeat(np.arange(min(len(nodes), self.fabric.scale_out.nodes)), per_node)
            p = np.tile(np.arange(per_node), len(n) // per_node)
            leaf = (n * per_node + p) // per_leaf
            keep = leaf < len(leaves)
            self._add(name, "node_leaf", "node", n[keep], f"{name}/leaf", leaf[keep])
        if name == "storage" and leaves and node_links:
            per_node = max(1, aux.nic_ports // max(self.fabric.scale_out.nodes, 1))
            first = min(len(nodes), self.fabric.scale_out.nodes) * per_node
            per_leaf = math.ceil(node_links["links"] / len(leaves))
            self._storage_targets(aux, len(leaves), per_leaf, first)
        uplinks = aux.links.get("leaf_spine")
        if leaves and spines and uplinks:
            per_leaf_up = max(1, uplinks["links"] // len(leaves))
            links = np.arange(len(leaves) * per_leaf_up)
            self._add(
                name,
                "leaf_spine",
                f"{name}/leaf",
                links // per_leaf_up,
                f"{name}/spine",
                links % len(spines),
            )

    def _storage_targets(self, aux, leaves: int, per_leaf: int, first: int) -> None:
        """Target ports round robin over the appliances, on the leaf ports after the nodes'."""
        appliances = len(self.devices.get("storage-system", []))
        targets = aux.storage_target_ports or 0
        if not appliances or not targets:
            return
        t = np.arange(targets)
        leaf = (first + t) // per_leaf
        keep = leaf < leaves
        self._add(
            "storage",
            "node_leaf",
            "storage-system",
            t[keep] % appliances,
            "storage/leaf",
            leaf[keep],
        )
