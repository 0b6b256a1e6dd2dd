"""Facility figures the catalog does not hold, each with its source or marked as an assumption.

References are to ../shared/reference/fabric_power.md [S..] and cost.md unless a URL is given.
"""

# --- Systems and racks ---------------------------------------------------------------------
# Host overhead, rack height per GPU and usable rack units live with the system resolution in
# models_engine/systems.py (shared with the fabric engine).
# Racks per row on the floor plan (assumption: a common hot-aisle pod of 2 x 10 racks).
RACKS_PER_ROW = 20

# --- Energy -------------------------------------------------------------------------------
HOURS_PER_YEAR = 8760.0
# Average training draw as a fraction of server max power: 0.75 (Epoch cost model "training
# draw 75% of server TDP", cost.md Facility).
TRAINING_DRAW_FRACTION = 0.75

# --- PUE when the design does not give one --------------------------------------------------
# Start from the cooling type's pue_typical (catalog, temperate reference), then scale its
# cooling overhead by climate. Cooling's share of PUE in a temperate climate: air +0.25,
# liquid +0.07 ([S37], secondary, rough). Climate multipliers are an ASSUMPTION standing for
# free-cooling hours (dry/cold sites get more; [S39][S37] qualitative only).
COOLING_PUE_SHARE = {"air": 0.25, "liquid": 0.07}
CLIMATE_COOLING_MULTIPLIER = {"cold": 0.6, "temperate": 1.0, "hot-dry": 1.2, "hot-humid": 1.4}
# A cooling type with no PUE in the catalog: industry average 1.58 for air ([S43], 2023) and
# 1.2 for liquid (top of the hyperscale 1.1-1.2 band [S40]; liquid +0.07 [S37]).
FALLBACK_PUE = {"air": 1.58, "liquid": 1.2}

# --- Heat to liquid at the rack -----------------------------------------------------------------
# Used when the catalog's liquid_heat_fraction is null. Direct-to-chip 0.8 is UNCERTAIN (the
# references say "DLC plus residual air" for GB200 NVL72 without a fraction, [S5]); a rear door
# takes all rack heat into water (catalog rear-door-hx notes).
LIQUID_HEAT_FRACTION_FALLBACK = {"direct-to-chip": 0.8, "rear-door-hx": 1.0}
# Cooling types whose heat goes to liquid at the rack (PUE class "liquid").
LIQUID_COOLING_IDS = frozenset({"direct-to-chip", "immersion"})
# Cooling types that can serve a system marked liquid_cooling_required.
CHIP_LIQUID_COOLING_IDS = frozenset({"direct-to-chip", "immersion"})

# --- Water --------------------------------------------------------------------------------------
# Closed-loop liquid or refrigerant designs ~0 L/kWh ([S47], secondary): used for liquid cooling
# when neither design nor catalog gives a WUE and the climate is not hot (dry coolers suffice).
CLOSED_LOOP_WUE_L_PER_KWH = 0.0

# --- Redundancy ---------------------------------------------------------------------------------
# Module size used to count N+1 spares: a 1 MW UPS module / cooling unit (ASSUMPTION; N+1 adds
# one module of this size, so small loads pay proportionally more).
POWER_MODULE_KW = 1000.0
COOLING_MODULE_KW = 1000.0
# Uptime Institute tiers by topology, availability "indicative" ([S48][S49]). The site is as
# strong as its weaker system: N -> Tier I, N+1 -> Tier III (assuming the alternate path that
# makes N+1 concurrently maintainable; single-path N+1 is Tier II), 2N -> Tier IV.
REDUNDANCY_TIER_LEVEL = {"N": 1, "N+1": 3, "2N": 4}
UPTIME_TIERS = {
    1: ("I", 99.671),
    2: ("II", 99.741),
    3: ("III", 99.982),
    4: ("IV", 99.995),
}
# Breakers are loaded to 80% continuous ([S20] NVIDIA B200 rack provisioning).
BREAKER_CONTINUOUS_DERATING = 0.8
