"""Cables and transceivers of a sized fabric, by link class, medium and reach.

Counting rules (fabric_power.md "Cables" and "Transceivers"; DGX SuperPOD RAs):
- One cable per switch port in use at the switch's native speed: a 400G QM9700 port carries one
  400G link; an 800G SN5600 port broken out into 2 x 400G carries two links on one cable
  (B300 Spectrum-4 RA: 1,024 400G plane links per SU = 512 cables).
- Optical links: the switch side counts populated cages (a twin-port OSFP cage holds two 400G
  ports): transceivers = switches x populated cages (1,536 = 48 x 32 for the 4-SU H100 build).
  DAC/ACC links have no transceivers.
- Node side: one module per NIC port, or one per two ports on systems with twin-port cages
  (DGX H100: 4 per node, 508 for 127 nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .data import (
    DAC_MAX_REACH_M,
    FALLBACK_OPTIC_W_PER_GBPS,
    GENERIC_MODULE_REACH_M,
    MULTIMODE_MAX_REACH_M,
)


def medium_for(distance_m: float) -> str:
    """dac (passive copper), multimode or single-mode optics, by the link class's reach class
    (the longest run the floor can need, `models_engine/cable_runs.py`)."""
    if distance_m <= DAC_MAX_REACH_M:
        return "dac"
    if distance_m <= MULTIMODE_MAX_REACH_M:
        return "multimode"
    return "single-mode"


@dataclass(frozen=True)
class ModuleChoice:
    """A transceiver picked for a cage: catalog entry when one fits, else a generic estimate."""

    catalog_id: str | None
    name: str
    speed_gbps: float
    power_w: float | None
    power_max_w: float | None
    price_usd: float | None
    reach_m: float
    # True where the power is the fiber class's estimate, not the module's published figure
    power_estimated: bool = False


def _estimated_power_w(speed_gbps: float, fiber: str) -> float:
    """FALLBACK_OPTIC_W_PER_GBPS of the fiber class x the module's speed."""
    watts = FALLBACK_OPTIC_W_PER_GBPS["multimode" if fiber == "multimode" else "single-mode"]
    return watts * speed_gbps


def pick_module(
    catalog, speed_gbps: float, fiber: str, twin: bool, reach_m: float = 0.0
) -> ModuleChoice:
    """The catalog transceiver of this speed and fiber that reaches `reach_m`: the shortest
    reach that does (DR4 100 m before DR4 500 m before 2xFR4 2 km), twin-port preferred when
    asked, DSP modules before linear (LPO) ones, which need a host that drives them. None
    reaches: a generic module of the IEEE reach class that does, priced by allowance. A catalog
    module without a published power draws the fiber class's estimate (an allowance), so no
    module's power is left out of the facility's IT load."""
    matches = [
        optic
        for optic in catalog.optics.values()
        if optic.media == "transceiver"
        and not optic.coherent
        and optic.fiber == fiber
        and optic.speed_gbit_per_s == speed_gbps
        and optic.reach_m >= reach_m
    ]
    matches.sort(
        key=lambda optic: (
            optic.twin_port != twin,
            optic.reach_m,
            "-lpo-" in optic.id,
            optic.id,
        )
    )
    if matches:
        optic = matches[0]
        if optic.power_w is None:
            estimate = _estimated_power_w(speed_gbps, fiber)
            return ModuleChoice(
                optic.id,
                optic.name,
                speed_gbps,
                estimate,
                estimate,
                optic.price_usd,
                optic.reach_m,
                power_estimated=True,
            )
        return ModuleChoice(
            optic.id,
            optic.name,
            speed_gbps,
            optic.power_w,
            optic.power_max_w if optic.power_max_w is not None else optic.power_w,
            optic.price_usd,
            optic.reach_m,
        )
    estimate = _estimated_power_w(speed_gbps, fiber)
    classes = GENERIC_MODULE_REACH_M[fiber]
    label, reach = next(((lbl, m) for lbl, m in classes if m >= reach_m), classes[-1])
    return ModuleChoice(
        None,
        f"{speed_gbps:g}G {label} {fiber} module (generic)",
        speed_gbps,
        estimate,
        estimate,
        None,
        reach,
    )


@dataclass
class LinkGroup:
    """Links of one class (node-leaf, leaf-spine, spine-core), all planes together."""

    name: str
    links: int
    link_gbps: float
    cables: int
    medium: str
    distance_m: float  # the reach class the medium was chosen for
    switch_cages: int = 0  # populated optical cages on the switches at both ends
    node_modules: int = 0  # optical modules on the node (or appliance) side
    modules: dict[str, int] = field(default_factory=dict)  # module key -> count
    reach_m: float = 0.0  # what the chosen medium reaches (shortest module or cable of the group)

    def as_dict(self) -> dict:
        return {
            "links": self.links,
            "link_speed_gbps": self.link_gbps,
            "cables": self.cables,
            "medium": self.medium,
            "reach_class_m": self.distance_m,
            "reach_m": self.reach_m,
            "transceivers_switch_side": self.switch_cages,
            "transceivers_node_side": self.node_modules,
        }


def native_ports(links: int, links_per_native_port: int) -> int:
    return -(-links // links_per_native_port)


def cages(native: int, ports_per_cage: int) -> int:
    return -(-native // ports_per_cage)


@dataclass(frozen=True)
class SwitchPorts:
    """Native port usage of one switch class, summed: what cabling needs from a tier."""

    native_down: int = 0
    native_up: int = 0
    cages_down: int = 0
    cages_up: int = 0


def leaf_down_usage(attach, lpnp: int, ppc: int, extra_links: int) -> SwitchPorts:
    """Native downlink ports and populated cages on the leaves of one plane.

    Full units are cabled port by port; the partial last unit has `free_slots` empty node
    slots; `extra_links` (fabric manager) land one per leaf on the partial unit's leaves, or on
    ports of their own when no slot is free.
    """
    if not attach.nodes_per_unit:  # ports spread over leaves: count in aggregate
        native = native_ports(attach.node_links + extra_links, lpnp)
        return SwitchPorts(native_down=native, cages_down=cages(native, ppc))
    per_node = attach.links_per_node_per_leaf
    partial = 1 if attach.free_slots else 0
    full_leaves = (attach.units - partial) * attach.leaves_per_unit
    per_leaf_native = native_ports(attach.nodes_per_unit * per_node, lpnp)
    native = full_leaves * per_leaf_native
    cage_count = full_leaves * cages(per_leaf_native, ppc)
    if partial:
        links_last = (attach.nodes_per_unit - attach.free_slots) * per_node
        leaves = attach.leaves_per_unit
        placed = min(extra_links, attach.free_slots * per_node * leaves)
        base, rest = divmod(placed, leaves)  # spread over the unit's leaves (UFM: 1 per rail)
        for extra, count in ((base + 1, rest), (base, leaves - rest)):
            leaf_native = native_ports(links_last + extra, lpnp)
            native += count * leaf_native
            cage_count += count * cages(leaf_native, ppc)
        extra_links -= placed
    if extra_links > 0:
        own = native_ports(extra_links, lpnp)
        native += own
        cage_count += cages(own, ppc)
    return SwitchPorts(native_down=native, cages_down=cage_count)


def upper_tier_usage(plan, packing: dict[str, tuple[int, int]]) -> dict[str, SwitchPorts]:
    """Native ports and populated cages on the leaf uplinks, spines and cores of one plane.

    Each leaf lands leaf_up / spines_per_pod links on every spine of its pod, each spine
    spine_up / cores_per_group on every core of its group; a switch's links are packed into
    native ports (two 400G links per 800G port when broken out). `packing` gives each tier's
    (links per native port, ports per cage), as each tier may be its own switch.
    """
    lpnp, ppc = packing["leaf"]
    leaf_up_native = native_ports(plan.leaf_up, lpnp)
    usage = {
        "leaf": SwitchPorts(
            native_up=plan.leaves * leaf_up_native,
            cages_up=plan.leaves * cages(leaf_up_native, ppc),
        ),
        "spine": SwitchPorts(),
        "core": SwitchPorts(),
    }
    if plan.spines == 0:
        return usage
    per_pod_leaves = [plan.leaves_per_pod] * (plan.pods - 1) + [
        plan.leaves - (plan.pods - 1) * plan.leaves_per_pod
    ]
    down_native = down_cages = 0
    lpnp, ppc = packing["spine"]
    for leaves in per_pod_leaves:
        per_spine = native_ports(leaves * plan.leaf_up // plan.spines_per_pod, lpnp)
        down_native += plan.spines_per_pod * per_spine
        down_cages += plan.spines_per_pod * cages(per_spine, ppc)
    up_native = native_ports(plan.spine_up, lpnp) if plan.spine_up else 0
    usage["spine"] = SwitchPorts(
        native_down=down_native,
        native_up=plan.spines * up_native,
        cages_down=down_cages,
        cages_up=plan.spines * cages(up_native, ppc),
    )
    if plan.cores:
        lpnp, ppc = packing["core"]
        per_core = native_ports(plan.pods * plan.spine_up // plan.cores_per_group, lpnp)
        usage["core"] = SwitchPorts(
            native_down=plan.cores * per_core, cages_down=plan.cores * cages(per_core, ppc)
        )
    return usage


def fiber_of(medium: str) -> str:
    return "multimode" if medium == "multimode" else "single-mode"


def switch_cage_speed(mode, ports_per_cage: int) -> float:
    """Speed of the module in one switch cage: native port speed x ports per cage."""
    return mode.native_speed_gbps * ports_per_cage


def ports_per_cage(switch) -> int:
    if switch.osfp_cages:
        return max(1, switch.radix_ports // switch.osfp_cages)
    return 1
