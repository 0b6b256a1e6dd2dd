"""Folded-Clos sizing of one fabric plane: leaves, spines, cores and the links between them.

Rules (fabric_power.md, "Formulas for the fabric engine"):
- A switch of radix R splits its ports into d down and u up; oversubscription = down bandwidth /
  up bandwidth (RFC 7938 §3.2.2). Non-blocking: u = R/2.
- Two tiers: every leaf lands an equal whole number of links on every spine, so the spine count S
  divides the leaf's u uplinks; S is the smallest such divisor with S x R >= leaves x u. At most R
  leaves (S = u, one link each): R^2/2 endpoints at u = R/2 (Cumulus "m^2/2" [S26]).
- Three tiers: leaves form pods of at most d_spine leaves, each pod with S_pod spines (S_pod
  divides u); spine j of every pod joins core group j of C switches (C divides the spine's
  uplinks, C x R >= pods x u_spine). At most R pods: R^3/4 endpoints when non-blocking (Al-Fares
  k-ary fat tree [S24]; [S27]).
- Partial builds keep the whole unit: a scalable unit's leaves and leaf-spine cables are built in
  full (NVIDIA DGX SuperPOD RAs: "the fabric should be designed to support the full SU"), and so
  are the spines of a pod.

Everything is integer arithmetic on one plane; callers multiply by the number of planes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class PortMode:
    """How a switch's ports run: `ports` at `speed_gbps` (native or broken out)."""

    ports: int
    speed_gbps: float
    native_ports: int
    native_speed_gbps: float

    @property
    def links_per_native_port(self) -> int:
        """2 when an 800G port is broken out into 2 x 400G, else 1."""
        return max(1, self.ports // self.native_ports)


def port_mode_for(switch, link_gbps: float) -> PortMode:
    """The port mode that carries `link_gbps` at full rate with the most ports.

    Native ports, or the catalog's breakout ports (e.g. 64 x 800G -> 128 x 400G). When no mode is
    fast enough the fastest one is returned (the caller reports the mismatch).
    """
    modes = switch.port_modes()
    fitting = [mode for mode in modes if mode[1] >= link_gbps]
    ports, speed = min(fitting, key=lambda m: m[1]) if fitting else max(modes, key=lambda m: m[1])
    return PortMode(ports, speed, switch.radix_ports, float(switch.port_speed_gbit_per_s))


def uplink_candidates(
    radix: int, oversubscription: float, down_gbps: float, up_gbps: float, multiple: int = 1
) -> list[int]:
    """Uplink counts u worth trying on a switch of `radix` ports.

    u ranges from the fewest uplinks that keep down/up bandwidth <= `oversubscription` to the
    non-blocking split. Besides both ends, the round values (multiples of 2, 4, 8, ...) are tried:
    they have the divisors the equal-links-per-spine rule needs. With broken-out ports u is a
    multiple of the links per native port, so uplinks and downlinks never share a port.
    """
    low = math.ceil(radix * down_gbps / (down_gbps + oversubscription * up_gbps) - 1e-9)
    high = math.floor(radix * down_gbps / (down_gbps + up_gbps) + 1e-9)
    low = -(-max(1, low) // multiple) * multiple
    high = max(low, (high // multiple) * multiple)
    low = min(low, radix - multiple)
    high = min(high, radix - multiple)
    candidates = {low, high}
    step = 2 * multiple
    while step <= high:
        rounded = -(-low // step) * step
        if rounded <= high:
            candidates.add(rounded)
        step *= 2
    return sorted(candidates)


def smallest_divisor_at_least(value: int, minimum: int) -> int | None:
    """Smallest divisor of `value` that is >= `minimum` (None when minimum > value)."""
    if minimum > value:
        return None
    for candidate in range(max(1, minimum), value + 1):
        if value % candidate == 0:
            return candidate
    return value


@dataclass(frozen=True)
class ClosPlan:
    """One plane of a folded Clos: switch counts, port splits and links per tier."""

    tiers: int
    leaves: int
    spines: int
    cores: int
    leaf_up: int
    spine_down: int
    spine_up: int
    pods: int
    leaves_per_pod: int
    spines_per_pod: int
    cores_per_group: int
    links_leaf_spine: int
    links_spine_core: int
    within_capacity: bool

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores


def single_switch_plan() -> ClosPlan:
    return ClosPlan(1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, True)


def two_tier_plan(leaves: int, leaf_up: int, radix: int) -> ClosPlan | None:
    """Leaves with `leaf_up` uplinks each on spines of `radix` ports; None past R leaves."""
    spines = smallest_divisor_at_least(leaf_up, math.ceil(leaves * leaf_up / radix))
    if spines is None:
        return None
    return ClosPlan(
        tiers=2,
        leaves=leaves,
        spines=spines,
        cores=0,
        leaf_up=leaf_up,
        spine_down=radix,
        spine_up=0,
        pods=1,
        leaves_per_pod=leaves,
        spines_per_pod=spines,
        cores_per_group=0,
        links_leaf_spine=leaves * leaf_up,
        links_spine_core=0,
        within_capacity=True,
    )


def three_tier_plan(
    leaves: int, leaf_up: int, spine_down: int, spine_up: int, radix: int, pod_leaves: int
) -> ClosPlan:
    """Pods of `pod_leaves` leaves (built whole, spines included) joined by a core tier."""
    pods = math.ceil(leaves / pod_leaves)
    leaves_in_pod = pod_leaves if pods > 1 else leaves
    spines_per_pod = smallest_divisor_at_least(
        leaf_up, math.ceil(leaves_in_pod * leaf_up / spine_down)
    )
    if spines_per_pod is None:  # cannot happen while pod_leaves <= spine_down
        spines_per_pod = leaf_up
    spines = pods * spines_per_pod
    within = True
    if pods == 1:
        cores_per_group, up = 0, 0
    else:
        up = spine_up
        needed = math.ceil(pods * spine_up / radix)
        cores_per_group = smallest_divisor_at_least(spine_up, needed)
        if cores_per_group is None:  # more pods than a core switch has ports: past R^3/4
            cores_per_group, within = needed, False
    cores = spines_per_pod * cores_per_group
    return ClosPlan(
        tiers=3 if cores else 2,
        leaves=leaves,
        spines=spines,
        cores=cores,
        leaf_up=leaf_up,
        spine_down=spine_down,
        spine_up=up,
        pods=pods,
        leaves_per_pod=leaves_in_pod,
        spines_per_pod=spines_per_pod,
        cores_per_group=cores_per_group,
        links_leaf_spine=leaves * leaf_up,
        links_spine_core=spines * up,
        within_capacity=within,
    )


def pod_leaves_for(spine_down: int, leaves_per_unit: int) -> int:
    """Leaves per pod: as many whole scalable units as a spine's downlinks reach."""
    if leaves_per_unit <= spine_down:
        return (spine_down // leaves_per_unit) * leaves_per_unit
    return spine_down
