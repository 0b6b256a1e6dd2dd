"""`physical` section: the stated assumptions of the physical plan (rack height, rows, halls,
floor pitches, cable slack) and, per link class, the cable type when the architect states one.

Every field has a default; the physical plan labels each default it used as an assumption.
"""

from __future__ import annotations

from typing import Literal

from ._base import SpecModel, section_field, spec_field, whole_number_choice

# Cable types of the schedule: passive copper (DAC), active copper with a linear redriver (ACC),
# active electrical cable with a retimer (AEC), active optical cable (AOC), and structured fibre
# with pluggable optics (multimode SR, single-mode DR/FR). "auto" = the medium the fabric engine
# chose for that link class (it owns cables and optics).
CableType = Literal["auto", "dac", "acc", "aec", "aoc", "fibre-multimode", "fibre-single-mode"]
CABLE_LINK_CLASSES = ("node_leaf", "leaf_spine", "spine_core")
# Standard rack heights in rack units.
RackHeightU = whole_number_choice(42, 45, 47, 48, 52)


class CableTypes(SpecModel):
    """Cable type per link class of the compute fabric; auto = the fabric engine's choice."""

    node_leaf: CableType = spec_field(
        "auto", unit="enum", description="Node NIC to leaf switch links."
    )
    leaf_spine: CableType = spec_field("auto", unit="enum", description="Leaf to spine links.")
    spine_core: CableType = spec_field("auto", unit="enum", description="Spine to core links.")


class Physical(SpecModel):
    """Halls, rows and racks the cluster is laid out in (the facility engine packs the racks;
    these fields say how tall they are and how the floor is arranged)."""

    rack_height_u: RackHeightU = spec_field(
        42,
        unit="U",
        description="Rack height in rack units (EIA-310; 48U for NVL72-class MGX racks).",
    )
    racks_per_row: int = spec_field(
        20,
        unit="racks",
        description="Racks in one row (a hot-aisle pod of 2 x 10 racks is common).",
        ge=2,
        le=60,
    )
    rows_per_hall: int = spec_field(
        20, unit="rows", description="Rows in one data hall.", ge=1, le=100
    )
    rack_width_m: float = spec_field(
        0.6, unit="m", description="Width of one rack along the row (600 or 800 mm).", gt=0, le=2
    )
    row_pitch_m: float = spec_field(
        2.4,
        unit="m",
        description="Distance between the fronts of adjacent rows (rack depth plus one aisle).",
        gt=0,
        le=10,
    )
    hall_to_hall_m: float = spec_field(
        60.0,
        unit="m",
        description="Cable path between the entrances of two halls (via the meet-me room).",
        ge=0,
        le=2000,
    )
    cable_slack_fraction: float = spec_field(
        0.1,
        unit="ratio",
        description="Extra length on each run for service loops and routing.",
        ge=0,
        le=1,
    )
    cable_types: CableTypes = section_field(
        CableTypes(), description="Cable type per link class (auto = the fabric's choice)."
    )
