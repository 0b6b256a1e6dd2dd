"""Cooling: which cooling types hold the design's rack density (thresholds are configurable
because published thresholds disagree; defaults are the catalog's max_rack_kw with its sources),
the heat that goes to liquid, water use, and findings when the design exceeds its cooling."""

from __future__ import annotations

import math

from models_engine.spec.errors import error

from .data import (
    AUTO_COOLING_ORDER,
    CDU_CAPACITY_KW,
    CHIP_LIQUID_COOLING_IDS,
    CLOSED_LOOP_WUE_L_PER_KWH,
    FACILITY_WATER_DELTA_T_K,
    HOURS_PER_YEAR,
    LIQUID_COOLING_IDS,
    LIQUID_DEFAULT_COOLING,
    LIQUID_HEAT_FRACTION_FALLBACK,
    WATER_AT_RACK_IDS,
    WATER_HEAT_CAPACITY_KJ_PER_KG_K,
)

SECONDS_PER_MINUTE = 60.0


def _finding(finding_id: str, severity: str, message: str, path: str) -> dict:
    return {"id": finding_id, "severity": severity, "message": message, "path": path}


def thresholds_kw(catalog, overrides: dict | None) -> dict[str, dict]:
    out = {}
    for cooling in catalog.cooling.values():
        source = cooling.sources[0]
        out[cooling.id] = {
            "max_rack_kw": cooling.max_rack_kw,
            "source": f"{source.title} ({source.ref})",
        }
    for cooling_id, value in (overrides or {}).items():
        out[cooling_id] = {"max_rack_kw": float(value), "source": "design override"}
    return out


def liquid_fraction(cooling) -> tuple[float, str]:
    if cooling.liquid_heat_fraction is not None:
        return cooling.liquid_heat_fraction, "catalog"
    if cooling.id in LIQUID_HEAT_FRACTION_FALLBACK:
        return LIQUID_HEAT_FRACTION_FALLBACK[cooling.id], "engine default (see facility data)"
    return 0.0, "assumed air"


def liquid_cooling_error(system, cooling_id: str | None):
    """One error naming facility.cooling when the design asks for a cooling type that cannot
    serve a system that needs liquid at the chip; None otherwise."""
    if not system.liquid_cooling_required or cooling_id is None:
        return None
    if cooling_id in CHIP_LIQUID_COOLING_IDS:
        return None
    return error(
        "facility.cooling",
        f"{system.name} needs liquid cooling at the chip; '{cooling_id}' cannot cool it "
        "(leave facility.cooling empty to get direct-to-chip)",
        {"one_of": sorted(CHIP_LIQUID_COOLING_IDS)},
    )


def choose_cooling(spec, catalog, system, densest_kw: float):
    """The design's cooling, else direct-to-chip for a system that needs liquid, else the
    first of AUTO_COOLING_ORDER that holds the densest rack (direct-to-chip if none does)."""
    chosen = spec.facility.cooling
    if chosen is not None:
        return catalog.get("cooling", chosen), "design"
    if system.liquid_cooling_required:
        return catalog.get("cooling", LIQUID_DEFAULT_COOLING), "system needs liquid at the chip"
    for cooling_id in AUTO_COOLING_ORDER:
        cooling = catalog.cooling.get(cooling_id)
        if cooling is not None and densest_kw <= cooling.max_rack_kw:
            return cooling, f"first cooling that holds the densest rack ({densest_kw:.1f} kW)"
    return catalog.get("cooling", LIQUID_DEFAULT_COOLING), "no cooling holds the densest rack"


def liquid_loop(cooling, liquid_kw: float, redundancy: str) -> dict | None:
    """Facility water to the racks and the CDUs that serve a liquid-cooled hall: flow from the
    heat it carries (Q = m c_p dT) and CDUs of CDU_CAPACITY_KW counted like the cooling plant."""
    if cooling.id not in WATER_AT_RACK_IDS or liquid_kw <= 0:
        return None
    kg_per_s = liquid_kw / (WATER_HEAT_CAPACITY_KJ_PER_KG_K * FACILITY_WATER_DELTA_T_K)
    needed = max(1, math.ceil(liquid_kw / CDU_CAPACITY_KW))
    spares = {"N": 0, "N+1": 1, "2N": needed}[redundancy]
    uses_cdus = cooling.id != "rear-door-hx"  # doors take facility water directly
    return {
        "heat_to_water_kw": liquid_kw,
        "facility_water_l_per_min": kg_per_s * SECONDS_PER_MINUTE,
        "delta_t_k": FACILITY_WATER_DELTA_T_K,
        "cdus": needed + spares if uses_cdus else 0,
        "cdu_capacity_kw": CDU_CAPACITY_KW if uses_cdus else None,
        "cdu_redundancy": redundancy if uses_cdus else None,
        "note": "flow = heat / (4.186 kJ/kg/K x delta-T); delta-T and CDU size are assumptions",
    }


def wue_for(facility, cooling, climate: str) -> tuple[float | None, str]:
    if facility.wue_l_per_kwh is not None:
        return facility.wue_l_per_kwh, "given"
    if cooling.wue_l_per_kwh is not None:
        return cooling.wue_l_per_kwh, "catalog"
    if cooling.id in LIQUID_COOLING_IDS and climate in ("cold", "temperate"):
        return CLOSED_LOOP_WUE_L_PER_KWH, "closed-loop liquid with dry coolers (~0, [S47])"
    return None, "unknown"


def cooling_block(
    spec,
    catalog,
    *,
    system,
    cooling,
    cooling_source: str,
    climate: str,
    racks: list[dict],
    it: dict,
    overrides: dict | None,
) -> dict:
    facility = spec.facility
    limits = thresholds_kw(catalog, overrides)
    densest = max((rack["kw"] for rack in racks), default=0.0)
    compute_kw = sum(rack["kw"] * rack["count"] for rack in racks if rack["kind"] == "compute")
    chosen_limit = limits[cooling.id]["max_rack_kw"]
    feasibility = [
        {
            "cooling": cooling_id,
            "max_rack_kw": row["max_rack_kw"],
            "holds_design": densest <= row["max_rack_kw"]
            and (not system.liquid_cooling_required or cooling_id in CHIP_LIQUID_COOLING_IDS),
            "source": row["source"],
        }
        for cooling_id, row in sorted(limits.items(), key=lambda kv: kv[1]["max_rack_kw"])
    ]
    fraction, fraction_source = liquid_fraction(cooling)
    liquid_kw = compute_kw * fraction
    wue, wue_source = wue_for(facility, cooling, climate)
    annual_it_kwh = it["energy_basis_total"] * HOURS_PER_YEAR
    water_m3 = None if wue is None else wue * annual_it_kwh / 1000.0
    block = {
        "cooling": cooling.id,
        "cooling_source": cooling_source,
        "climate": climate,
        "liquid_loop": liquid_loop(cooling, liquid_kw, facility.cooling_redundancy),
        "max_rack_kw_design": densest,
        "cooling_max_rack_kw": chosen_limit,
        "feasible": densest <= chosen_limit,
        "feasibility": feasibility,
        "liquid_heat_fraction": fraction,
        "liquid_heat_fraction_source": fraction_source,
        "liquid_heat_kw": liquid_kw,
        "air_heat_kw": it["total"] - liquid_kw,
        "wue_l_per_kwh": wue,
        "wue_source": wue_source,
        "water_m3_per_year": water_m3,
    }
    return {"block": block, "findings": _findings(spec, cooling, system, block, feasibility)}


def _findings(spec, cooling, system, block: dict, feasibility: list[dict]) -> list[dict]:
    facility = spec.facility
    out = []
    if not block["feasible"]:
        able = [row["cooling"] for row in feasibility if row["holds_design"]]
        out.append(
            _finding(
                "facility-cooling-exceeded",
                "error",
                f"the densest rack draws {block['max_rack_kw_design']:.1f} kW; {cooling.name} "
                f"removes at most {block['cooling_max_rack_kw']:g} kW per rack"
                + (f" (cooling that can: {', '.join(able)})" if able else ""),
                "facility.cooling",
            )
        )
    if facility.rack_power_limit_kw > block["cooling_max_rack_kw"]:
        out.append(
            _finding(
                "facility-rack-limit-above-cooling",
                "warning",
                f"rack_power_limit_kw {facility.rack_power_limit_kw:g} exceeds what "
                f"{cooling.name} removes ({block['cooling_max_rack_kw']:g} kW): racks may be "
                "filled beyond their cooling",
                "facility.rack_power_limit_kw",
            )
        )
    if block["wue_l_per_kwh"] is None:
        out.append(
            _finding(
                "facility-wue-unknown",
                "info",
                f"no water figure for {cooling.name} in this climate: give facility.wue_l_per_kwh",
                "facility.wue_l_per_kwh",
            )
        )
    return out
