"""Cooling: which cooling types hold the design's rack density (thresholds are configurable
because published thresholds disagree; defaults are the catalog's max_rack_kw with its sources),
the heat that goes to liquid, water use, and findings when the design exceeds its cooling."""

from __future__ import annotations

from .data import (
    CHIP_LIQUID_COOLING_IDS,
    CLOSED_LOOP_WUE_L_PER_KWH,
    HOURS_PER_YEAR,
    LIQUID_COOLING_IDS,
    LIQUID_HEAT_FRACTION_FALLBACK,
)


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


def wue_for(facility, cooling) -> tuple[float | None, str]:
    if facility.wue_l_per_kwh is not None:
        return facility.wue_l_per_kwh, "given"
    if cooling.wue_l_per_kwh is not None:
        return cooling.wue_l_per_kwh, "catalog"
    if cooling.id in LIQUID_COOLING_IDS and facility.climate in ("cold", "temperate"):
        return CLOSED_LOOP_WUE_L_PER_KWH, "closed-loop liquid with dry coolers (~0, [S47])"
    return None, "unknown"


def cooling_block(
    spec, catalog, *, system, racks: list[dict], it: dict, overrides: dict | None
) -> dict:
    facility = spec.facility
    cooling = catalog.get("cooling", facility.cooling)
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
    wue, wue_source = wue_for(facility, cooling)
    annual_it_kwh = it["energy_basis_total"] * HOURS_PER_YEAR
    water_m3 = None if wue is None else wue * annual_it_kwh / 1000.0
    block = {
        "cooling": cooling.id,
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
    if system.liquid_cooling_required and cooling.id not in CHIP_LIQUID_COOLING_IDS:
        out.append(
            _finding(
                "facility-liquid-required",
                "error",
                f"{system.name} needs liquid cooling at the chip; {cooling.name} is not",
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
