"""Typed result of the physical-plan engine.

The physical engine owns where things are: halls, rows, rack positions, devices at U positions
in each rack, and the cable schedule's length classes. It reads racks and their contents from
the facility engine, switches and links from the fabric engine and the logical topology from
the network engine. The result stays small for any size: one template per distinct rack (with
how many racks use it), the floor as runs of identical racks, and the cable schedule summarised
by link class, cable type and length class; the full port-to-port list is generated on demand
(`cable_schedule`) for downloads and DCIM exports.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, ResultPart


class DeviceSlot(ResultPart):
    """One device in a rack template: its lowest U, its height and what it is."""

    u: int  # lowest rack unit it occupies (1 = bottom)
    height_u: int
    group: str  # "node", "compute/leaf", "frontend/spine", "patch-panel", "power-shelf", ...
    ordinal: int  # its place among the rack's devices of the same group
    label: str
    catalog_id: str | None
    model: str


class RackTemplate(ResultPart):
    """A distinct rack: every rack built from it has the same devices at the same U."""

    template: str
    kind: str  # "compute", "network" or "storage"
    racks: int  # how many racks use this template
    first_rack: str
    last_rack: str
    height_u: int
    units_used: int
    units_free: int
    kw: float
    pdus: int
    pdu_kw: float
    liquid_cooled: bool
    devices: list[DeviceSlot]


class FloorRun(ResultPart):
    """Consecutive positions of one row holding racks of one template (or in-row CDUs)."""

    hall: int
    row: int  # row number across the site (1-based)
    first_slot: int
    count: int
    template: str | None  # None for a CDU run
    kind: str  # "compute", "network" or "cdu"
    first_rack: str | None  # the run's racks are numbered consecutively from this one


class CableClass(ResultPart):
    """Links of one network and link class, with one cable type, in one length class."""

    network: str
    link_class: str
    cable_type: str
    cable_label: str
    type_source: str  # "fabric" (the fabric engine's medium) or "design" (physical.cable_types)
    length_class: str  # "same rack", "same row", "cross-row", "cross-hall"
    links: int
    max_length_m: float
    reach_m: float
    within_reach: bool


class SitePhysical(ResultPart):
    site_id: str
    site_name: str
    rack_height_u: int
    halls: int
    rows: int
    racks: int
    racks_by_kind: dict[str, int]
    cdus: int
    templates: list[RackTemplate]
    floor: list[FloorRun]
    cables: list[CableClass]
    cable_links: int
    findings: list[dict]


class Assumption(ResultPart):
    name: str
    value: str
    source: str  # "design" when the spec states it, else where the default comes from


class PhysicalResult(EngineResult):
    sites: list[SitePhysical]
    assumptions: list[Assumption]
    findings: list[dict]
    breakdown: dict

    def site(self, site_id: str) -> SitePhysical:
        return next(s for s in self.sites if s.site_id == site_id)
