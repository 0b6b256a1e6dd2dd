"""Facility figures the catalog does not hold, each with its source or marked as an assumption.

References are to ../shared/reference/fabric_power.md [S..] and cost.md unless a URL is given.
"""

# --- Systems and racks ---------------------------------------------------------------------
# Host overhead, rack height per GPU and usable rack units live with the system resolution in
# models_engine/systems.py (shared with the fabric engine).
# Racks per row on the floor plan (assumption: a common hot-aisle pod of 2 x 10 racks).
RACKS_PER_ROW = 20
# Height of a shared-storage appliance whose catalog entry gives power and capacity but no
# height (ASSUMPTION: 2U, as the DDN AI400X2-Turbo entry).
STORAGE_DEFAULT_RACK_UNITS = 2

# Climate when neither the site, the design nor the site's catalog region gives one.
DEFAULT_CLIMATE = "temperate"

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

# Cooling chosen when the design leaves facility.cooling null: the first of these that holds the
# densest rack (catalog max_rack_kw), cheapest-to-build first (engine policy); a system that
# needs liquid at the chip gets direct-to-chip.
AUTO_COOLING_ORDER = ("air", "rear-door-hx", "direct-to-chip")
LIQUID_DEFAULT_COOLING = "direct-to-chip"
# Cooling types that bring facility water to the rack (a door coil or a CDU-fed loop).
WATER_AT_RACK_IDS = frozenset({"rear-door-hx", "direct-to-chip", "immersion"})

# --- Liquid loop ---------------------------------------------------------------------------------
# Facility-water flow = heat / (c_p x delta-T): c_p of water 4.186 kJ/(kg K), 1 kg ~ 1 L.
# Supply/return delta-T of 10 K is an ASSUMPTION (a common design point for warm-water loops;
# the references give none): flow = 1.43 L/min per kW at 10 K.
WATER_HEAT_CAPACITY_KJ_PER_KG_K = 4.186
FACILITY_WATER_DELTA_T_K = 10.0
# Capacity of one in-row coolant distribution unit (CDU), kW: ASSUMPTION (MW-class in-row CDUs,
# no rated figure in the references); CDUs are counted with the cooling redundancy (N+1 adds one).
CDU_CAPACITY_KW = 1500.0

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
