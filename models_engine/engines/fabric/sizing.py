"""Size one plane of a compute (or auxiliary) fabric: attach the nodes to leaves, then pick the
port split and Clos plan with the fewest switches.

Attachment styles:
- rail: one leaf per rail per scalable unit (SU); a leaf's d downlinks serve d nodes, so an SU is
  d nodes and rails leaves (DGX SuperPOD: R/2 = 32 nodes, 8 leaves; fabric_power.md
  "Rail-optimized sizing").
- tor: whole nodes per leaf (top-of-rack / plain leaf-spine): floor(d / ports per node) nodes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .clos import (
    ClosPlan,
    PortMode,
    pod_leaves_for,
    single_switch_plan,
    three_tier_plan,
    two_tier_plan,
    uplink_candidates,
)


@dataclass(frozen=True)
class Attachment:
    """How the nodes of one plane land on leaves."""

    kind: str  # "rail" or "tor"
    leaf_down: int  # downlink ports per leaf in the design (d)
    leaves: int
    leaves_per_unit: int  # rails (rail) or 1 (tor)
    units: int  # scalable units (rail) or leaves (tor)
    nodes_per_unit: int  # nodes served by one unit (0: a node spans several leaves)
    node_links: int  # node links on the leaves of this plane
    free_slots: int  # node slots left empty in the last unit (full units are built)
    links_per_node_per_leaf: int  # 1 for a rail leaf, ports per node for a tor leaf


def attach_rail(nodes: int, rails: int, leaf_down: int) -> Attachment:
    units = math.ceil(nodes / leaf_down)
    return Attachment(
        kind="rail",
        leaf_down=leaf_down,
        leaves=units * rails,
        leaves_per_unit=rails,
        units=units,
        nodes_per_unit=leaf_down,
        node_links=nodes * rails,
        free_slots=units * leaf_down - nodes,
        links_per_node_per_leaf=1,
    )


def attach_tor(nodes: int, ports_per_node: int, leaf_down: int) -> Attachment:
    per_leaf = leaf_down // ports_per_node
    if per_leaf >= 1:
        leaves = math.ceil(nodes / per_leaf)
        free = leaves * per_leaf - nodes
    else:  # a node has more ports than a leaf has downlinks: spread its ports over leaves
        leaves = math.ceil(nodes * ports_per_node / leaf_down)
        free = 0
    return Attachment(
        kind="tor",
        leaf_down=leaf_down,
        leaves=leaves,
        leaves_per_unit=1,
        units=leaves,
        nodes_per_unit=per_leaf,
        node_links=nodes * ports_per_node,
        free_slots=free,
        links_per_node_per_leaf=ports_per_node,
    )


@dataclass(frozen=True)
class PlaneSizing:
    """The chosen attachment and Clos plan of one plane."""

    mode: PortMode
    attachment: Attachment
    plan: ClosPlan
    leaf_down_gbps: float  # speed of a node link
    requested_leaf_oversubscription: float
    requested_spine_oversubscription: float
    spine_mode: PortMode | None = None  # None: the leaf's switch and port mode
    core_mode: PortMode | None = None  # None: the spine's
    leaf_up_mode: PortMode | None = None  # None: the leaf's uplinks run like its downlinks

    @property
    def up_mode(self) -> PortMode:
        """The port mode of the leaf uplinks (the speed of every link above the leaves)."""
        return self.leaf_up_mode or self.mode

    @property
    def radix(self) -> int:
        return self.mode.ports

    def tier_mode(self, tier: str) -> PortMode:
        """The port mode of a tier's switch ("leaf", "spine" or "core")."""
        spine = self.spine_mode or self.mode
        return {"leaf": self.mode, "spine": spine, "core": self.core_mode or spine}[tier]

    @property
    def leaf_oversubscription(self) -> float:
        """Design downlink / uplink bandwidth of a leaf (1.0 = non-blocking)."""
        if self.plan.leaf_up == 0:
            return 1.0
        down = self.attachment.leaf_down * self.leaf_down_gbps
        return down / (self.plan.leaf_up * self.up_mode.speed_gbps)

    @property
    def spine_oversubscription(self) -> float:
        if self.plan.spine_up == 0:
            return 1.0
        return self.plan.spine_down / self.plan.spine_up


def _attach(kind: str, nodes: int, ports_per_node: int, leaf_down: int) -> Attachment:
    if kind == "rail":
        return attach_rail(nodes, ports_per_node, leaf_down)
    return attach_tor(nodes, ports_per_node, leaf_down)


class TierIntentError(ValueError):
    """The stated tier count cannot hold this plane's nodes (2 tiers) or needs no core (3)."""

    def __init__(self, tiers: int, nodes: int, max_nodes: int, leaves_per_pod: int = 0) -> None:
        self.tiers = tiers
        self.nodes = nodes
        self.max_nodes = max_nodes
        self.leaves_per_pod = leaves_per_pod
        super().__init__(f"{tiers} tiers cannot build {nodes} nodes (limit {max_nodes})")


def two_tier_max_nodes(kind: str, ports_per_node: int, radix: int, leaf_down: int) -> int:
    """Most nodes two tiers hold: at most R leaves (R = the spine's ports), each spine port one
    leaf uplink (clos.two_tier_plan); rail leaves come in whole units of `ports_per_node`."""
    if kind == "rail":
        return (radix // ports_per_node) * leaf_down
    per_leaf = leaf_down // ports_per_node
    if per_leaf == 0:  # a node's ports spread over several leaves
        return radix * leaf_down // ports_per_node
    return radix * per_leaf


def _single_switch(kind: str, nodes: int, ports_per_node: int, radix: int) -> bool:
    fits = nodes * ports_per_node <= radix
    return fits and (kind == "tor" or ports_per_node == 1)


def size_plane(
    *,
    nodes: int,
    ports_per_node: int,
    attachment: str,
    force_three_tier: bool,
    mode: PortMode,
    node_link_gbps: float,
    leaf_oversubscription: float,
    spine_oversubscription: float,
    tiers: str | int = "auto",
    spine_mode: PortMode | None = None,
    core_mode: PortMode | None = None,
    leaf_up_mode: PortMode | None = None,
) -> PlaneSizing:
    """Fewest-switch plan for `nodes` with `ports_per_node` links each on this plane.

    Ties go to fewer uplinks (the oversubscription the user asked for). Two tiers are used while
    the leaves fit under one spine layer, unless `force_three_tier` (fat-tree-3tier). A stated
    `tiers` (2 or 3) is built exactly, even where one switch would do, or TierIntentError says
    why it cannot be. `leaf_up_mode`: the leaf's uplinks run at their own speed (e.g. 400G
    downlinks broken out of 800G ports, 800G uplinks): the split is then made in native ports.
    """
    radix = mode.ports
    up_mode = leaf_up_mode or mode
    spine_mode = spine_mode or mode
    core_mode = core_mode or spine_mode
    spine_radix, core_radix = spine_mode.ports, core_mode.ports
    force_three_tier = force_three_tier or tiers == 3
    if tiers == "auto" and _single_switch(attachment, nodes, ports_per_node, radix):
        attach = Attachment(
            attachment, radix, 1, 1, 1, nodes, nodes * ports_per_node, 0, ports_per_node
        )
        return PlaneSizing(
            mode,
            attach,
            single_switch_plan(),
            node_link_gbps,
            leaf_oversubscription,
            spine_oversubscription,
        )
    spine_ups = uplink_candidates(
        spine_radix,
        spine_oversubscription,
        up_mode.speed_gbps,
        up_mode.speed_gbps,
        spine_mode.links_per_native_port,
    )
    splits = leaf_splits(mode, up_mode, node_link_gbps, leaf_oversubscription)
    best: tuple[tuple[int, int, int], Attachment, ClosPlan] | None = None
    for leaf_up, leaf_down in splits:
        attach = _attach(attachment, nodes, ports_per_node, leaf_down)
        plans: list[ClosPlan] = []
        two = None if force_three_tier else two_tier_plan(attach.leaves, leaf_up, spine_radix)
        if two is not None:
            plans.append(two)
        elif tiers != 2:
            for spine_up in spine_ups:
                spine_down = spine_radix - spine_up
                pod = pod_leaves_for(spine_down, attach.leaves_per_unit)
                plans.append(
                    three_tier_plan(attach.leaves, leaf_up, spine_down, spine_up, core_radix, pod)
                )
        for plan in plans:
            key = (plan.switches, leaf_up, plan.spine_up)
            if best is None or key < best[0]:
                best = (key, attach, plan)
    if best is None:  # only a stated two tiers leaves no plan
        most_down = splits[0][1]
        limit = two_tier_max_nodes(attachment, ports_per_node, spine_radix, most_down)
        raise TierIntentError(2, nodes, limit)
    if tiers == 3 and not best[2].cores:
        raise TierIntentError(3, nodes, 0, best[2].leaves_per_pod)
    return PlaneSizing(
        mode,
        best[1],
        best[2],
        node_link_gbps,
        leaf_oversubscription,
        spine_oversubscription,
        spine_mode,
        core_mode,
        leaf_up_mode,
    )


def leaf_splits(
    mode: PortMode, up_mode: PortMode, node_link_gbps: float, oversubscription: float
) -> list[tuple[int, int]]:
    """(uplinks, downlinks) of a leaf worth trying, fewest uplinks first.

    One port mode: links of one speed out of `mode.ports`. Uplinks at their own speed: native
    ports are split, each down port carrying links_per_native_port node links, each up port
    its own number of uplinks (a 64 x 800G box: 32 ports as 64 x 400G down, 32 x 800G up).
    """
    if up_mode == mode:
        ups = uplink_candidates(
            mode.ports,
            oversubscription,
            node_link_gbps,
            mode.speed_gbps,
            mode.links_per_native_port,
        )
        return [(up, mode.ports - up) for up in ups]
    down_per_port = mode.links_per_native_port
    up_per_port = up_mode.links_per_native_port
    native_ups = uplink_candidates(
        mode.native_ports,
        oversubscription,
        node_link_gbps * down_per_port,
        up_mode.speed_gbps * up_per_port,
    )
    return [(ups * up_per_port, (mode.native_ports - ups) * down_per_port) for ups in native_ups]


def max_nodes(sizing: PlaneSizing, ports_per_node: int) -> dict[str, int]:
    """Largest node count this plane's port split reaches with two and with three tiers."""
    radix = sizing.radix
    spine_radix = sizing.tier_mode("spine").ports
    core_radix = sizing.tier_mode("core").ports
    attach = sizing.attachment
    leaf_down = attach.leaf_down if sizing.plan.leaf_up else radix // 2
    if attach.kind == "rail":
        per_leaf_nodes, per_unit_leaves = leaf_down, ports_per_node
    else:
        per_leaf_nodes, per_unit_leaves = max(leaf_down // ports_per_node, 0), 1
    spine_down = sizing.plan.spine_down if sizing.plan.spine_up else spine_radix // 2
    pod = pod_leaves_for(spine_down, per_unit_leaves)
    two_tier_leaves = (spine_radix // per_unit_leaves) * per_unit_leaves
    three_tier_leaves = core_radix * pod
    if attach.kind == "rail":
        return {
            "two_tier": (two_tier_leaves // per_unit_leaves) * per_leaf_nodes,
            "three_tier": (three_tier_leaves // per_unit_leaves) * per_leaf_nodes,
        }
    if per_leaf_nodes == 0:  # a node's ports spread over several leaves
        return {
            "two_tier": two_tier_leaves * leaf_down // ports_per_node,
            "three_tier": three_tier_leaves * leaf_down // ports_per_node,
        }
    return {
        "two_tier": two_tier_leaves * per_leaf_nodes,
        "three_tier": three_tier_leaves * per_leaf_nodes,
    }
