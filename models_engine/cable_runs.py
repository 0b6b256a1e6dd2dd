"""The cable length model shared by the fabric engine (the reach class it picks each link
class's medium for) and the physical plan (the length of each run it schedules), so the two
always measure a floor the same way.

A run inside a rack is the vertical distance between its two devices plus the drop to and from
the tray; a run between racks rises from each device to the overhead tray, runs along the row
(rack width per position) and across rows (row pitch); a run between halls goes from each rack
to its hall's entrance and `hall_to_hall_m` between entrances. Each run gets
`cable_slack_fraction` and is rounded up to a standard length. The floor figures are the spec's
`physical` section (`models_engine/spec/physical.py`).
"""

from __future__ import annotations

import math

# One rack unit: 1.75 in = 44.45 mm (EIA-310-E, stated).
RACK_UNIT_M = 0.04445

# Rise from the top of a rack to the overhead cable tray, m (ASSUMPTION: tray 0.3 m above the
# rack, a common ladder-rack clearance).
TRAY_RISE_M = 0.3

# Standard lengths cables are ordered in, m (ASSUMPTION: the usual DAC/AOC/MPO trunk steps).
STANDARD_CABLE_LENGTHS_M = (1, 1.5, 2, 2.5, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300)


def standard_length(metres: float) -> float:
    """The shortest standard length that covers `metres` (50 m steps beyond the list)."""
    for length in STANDARD_CABLE_LENGTHS_M:
        if metres <= length:
            return float(length)
    return float(math.ceil(metres / 50.0) * 50)


def longest_run_m(physical, positions: int) -> float:
    """Longest run between two racks of a floor of `positions` rack positions laid out as the
    spec's `physical` section states (rows of `racks_per_row`, halls of `rows_per_hall`): both
    ends at the bottom of their racks, at opposite corners of the hall, or of the two halls
    furthest apart. The ordered (standard) length, slack included."""
    per_row = physical.racks_per_row
    rows = max(1, math.ceil(positions / per_row))
    halls = math.ceil(rows / physical.rows_per_hall)
    rise = physical.rack_height_u * RACK_UNIT_M + TRAY_RISE_M
    if halls == 1:
        along = (min(positions, per_row) - 1) * physical.rack_width_m
        raw = 2 * rise + along + (rows - 1) * physical.row_pitch_m
    else:
        to_entrance = (per_row - 1) * physical.rack_width_m + (
            physical.rows_per_hall - 1
        ) * physical.row_pitch_m
        raw = 2 * rise + 2 * to_entrance + (halls - 1) * physical.hall_to_hall_m
    return standard_length(raw * (1 + physical.cable_slack_fraction))
