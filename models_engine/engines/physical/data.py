"""Figures the physical plan needs that neither the catalog nor another engine holds, each with
its source or marked as an assumption (the results page lists the assumptions used).

References are to ../shared/reference/fabric_power.md [S..] unless a URL is given.
"""

# Rack unit, tray rise and standard cable lengths live in models_engine/cable_runs.py: the length
# model shared with the fabric engine's reach classes.

# --- Power distribution at the rack -----------------------------------------------------------
# Vertical 0U PDUs at the back of the rack. One 415 V three-phase 60 A PDU delivers
# sqrt(3) x 415 V x 60 A x 0.8 continuous derating = 34.5 kW (derived; the 80 % continuous
# loading is the same rule facility uses, [S20]). The 60 A / 415 V rating is an ASSUMPTION
# (a common high-density rack PDU); 2N power gives every rack an A and a B feed.
PDU_KW = 3**0.5 * 415 * 60 * 0.8 / 1000.0
PDU_FEEDS = {"N": 1, "N+1": 2, "2N": 2}

# --- Rack-scale systems (NVL72 class) ---------------------------------------------------------
# Power shelves hold 6 PSUs each (8 shelves x 6 PSUs x 5.5 kW in the GB200 NVL72 reference
# rack, [S8], stated). Compute and NVLink switch trays are 1U each: "18x 1RU compute trays ...
# 9x 1RU NVLink switch trays" (NVIDIA DGX GB Rack Scale Systems User Guide, Hardware, Rack
# Configuration, https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html, 2025, stated).
# Power shelves 1U each (ASSUMPTION: the guide does not give their height).
PSUS_PER_POWER_SHELF = 6
RACK_SYSTEM_TRAY_U = 1
POWER_SHELF_U = 1

# --- Structured cabling -----------------------------------------------------------------------
# A 1U fibre patch panel terminates 48 MPO trunks, one per optical link that leaves the rack
# (ASSUMPTION: a high-density 1U MPO enclosure; copper links stay inside the rack unpatched).
PATCH_PANEL_MPO_PORTS = 48
PATCH_PANEL_U = 1

# Reach of cable types the catalog holds no entry of (ASSUMPTION, vendor data-sheet classes:
# AEC up to 7 m, Credo HiWire; AOC up to 100 m, NVIDIA LinkX AOC; generic SR4 50 m and DR4
# 500 m modules when the fabric chose a module the catalog lacks).
FALLBACK_REACH_M = {
    "dac": 3.0,
    "acc": 5.0,
    "aec": 7.0,
    "aoc": 100.0,
    "fibre-multimode": 50.0,
    "fibre-single-mode": 500.0,
}

# In-row coolant distribution units take one rack position at a row end (ASSUMPTION: an in-row
# CDU in a 600 mm rack footprint); how many there are is the facility engine's.
CDU_FLOOR_POSITIONS = 1

# The fabric engine's medium names -> the schedule's cable type.
MEDIUM_CABLE_TYPE = {
    "dac": "dac",
    "acc": "acc",
    "aec": "aec",
    "aoc": "aoc",
    "multimode": "fibre-multimode",
    "single-mode": "fibre-single-mode",
}
CABLE_TYPE_LABEL = {
    "dac": "DAC (passive copper)",
    "acc": "ACC (active copper)",
    "aec": "AEC (active electrical, retimed)",
    "aoc": "AOC (active optical)",
    "fibre-multimode": "MPO fibre OM4 + SR optics",
    "fibre-single-mode": "MPO fibre OS2 + DR optics",
}
OPTICAL_CABLE_TYPES = frozenset({"aoc", "fibre-multimode", "fibre-single-mode"})
