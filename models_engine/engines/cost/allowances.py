"""Per-line price allowances for BOM lines that no catalog entry, design, team quote or fabric
figure prices: one sourced (or labelled) assumption per kind of part, scaled by the line's own
size (switching capacity, port or module speed, cable, appliance). Every line priced here is
marked `allowance` and its note says how the figure is derived, so the headline capex never
silently leaves a line out and never hides how much of it is an allowance.

Compute-fabric switches, optics and NICs keep their per-GPU / per-port category allowances
(capex.py); this module covers everything else (storage and frontend networks, fabric-manager
appliances, WAN / DCI routers, coherent optics and long-haul transport).
"""

from __future__ import annotations

from dataclasses import dataclass

from models_engine.catalog import Catalog

from .assumptions import Assumptions
from .inputs import BomLine
from .trace import Trace, assumption_trace

SWITCH_ALLOWANCE = "switch-allowance-usd-per-tbps"
OPTICS_ALLOWANCE = "optics-allowance-usd-per-gbps"
COHERENT_ALLOWANCE = "coherent-optic-allowance-usd-per-module"
CABLE_ALLOWANCE = "cable-allowance-usd-per-cable"
NIC_ALLOWANCE = "nic-allowance-usd-per-port"
NIC_ALLOWANCE_SPEED_GBPS = 400.0  # the per-port figure is for a 400G InfiniBand NIC
APPLIANCE_ALLOWANCE = "appliance-allowance-usd"
TRANSPORT_ALLOWANCE = "wan-transport-allowance-usd-per-port"


@dataclass(frozen=True)
class Allowance:
    usd: float
    trace: Trace
    note: str


def line_allowance(catalog: Catalog, assumptions: Assumptions, line: BomLine) -> Allowance | None:
    """The allowance unit price of one unpriced BOM line, or None when nothing sizes it."""
    kind = line.fabric_category
    if kind in ("switch", "router"):
        return _switch(catalog, assumptions, line)
    if kind == "transceiver":
        return transceiver_allowance(catalog, assumptions, line.catalog_id, line.speed_gbps)
    if kind == "cable":
        return _fixed(assumptions, CABLE_ALLOWANCE, "per cable (fibre or copper assembly)")
    if kind == "nic":
        return _nic(catalog, assumptions, line)
    if kind == "appliance":
        return _fixed(assumptions, APPLIANCE_ALLOWANCE, "per dual-socket appliance server")
    if kind == "wan-transport":
        return _fixed(assumptions, TRANSPORT_ALLOWANCE, "per 400G wavelength end")
    return None


def _fixed(assumptions: Assumptions, assumption_id: str, what: str) -> Allowance:
    usd = assumptions.number(assumption_id)
    return Allowance(
        usd,
        assumption_trace(assumptions, assumption_id),
        f"allowance: ${usd:,.0f} {what} ({assumption_id}; no catalog, design or team price)",
    )


def _switch(catalog: Catalog, assumptions: Assumptions, line: BomLine) -> Allowance | None:
    switch = catalog.switches.get(line.catalog_id) if line.catalog_id else None
    if switch is None:
        return None
    rate = assumptions.number(SWITCH_ALLOWANCE)
    capacity = switch.switching_capacity_tbit_per_s
    return Allowance(
        rate * capacity,
        assumption_trace(assumptions, SWITCH_ALLOWANCE),
        f"allowance: {capacity:g} Tb/s x the per-Tb/s switch allowance (no catalog, design or "
        "team price)",
    )


def transceiver_allowance(
    catalog: Catalog, assumptions: Assumptions, catalog_id: str | None, speed_gbps: float | None
) -> Allowance | None:
    """A module's allowance: per Gb/s of its speed, or the coherent-module figure."""
    optic = catalog.optics.get(catalog_id) if catalog_id else None
    if optic is not None and optic.coherent:
        return _fixed(assumptions, COHERENT_ALLOWANCE, "per coherent DWDM module")
    speed = optic.speed_gbit_per_s if optic is not None else speed_gbps
    if not speed:
        return None
    rate = assumptions.number(OPTICS_ALLOWANCE)
    return Allowance(
        rate * speed,
        assumption_trace(assumptions, OPTICS_ALLOWANCE),
        f"allowance: {speed:g} Gb/s x ${rate:g} per Gb/s of module speed (no catalog, design "
        "or team price)",
    )


def _nic(catalog: Catalog, assumptions: Assumptions, line: BomLine) -> Allowance | None:
    nic = catalog.nics.get(line.catalog_id) if line.catalog_id else None
    speed = nic.line_rate_gbit_per_s * nic.ports if nic is not None else line.speed_gbps
    if not speed:
        return None
    per_port = assumptions.number(NIC_ALLOWANCE)
    scale = speed / NIC_ALLOWANCE_SPEED_GBPS
    return Allowance(
        per_port * scale,
        assumption_trace(assumptions, NIC_ALLOWANCE),
        f"allowance: the 400G NIC port allowance x {scale:g} ({speed:g} Gb/s; no catalog, "
        "design or team price)",
    )
