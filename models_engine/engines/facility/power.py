"""IT power (GPUs, hosts, switches, optics, storage), facility power with PUE, annual energy,
and the installed capacity each redundancy level needs.

- Provisioning basis: system max power and switch/optics max (fabric_power.md: "max for
  provisioning, typical for energy").
- Energy basis: servers at the average training draw (75% of max, Epoch via cost.md), network
  gear at typical power.
- facility kW = IT kW x PUE (ISO/IEC 30134-2, [S44]).
- Redundancy: N = the load; N+1 = one spare module of the load split into n modules of at most
  POWER_MODULE_KW; 2N = two full systems, each carrying the whole load ([S48][S49] conventions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from models_engine.engines.fabric.result import BomLine

from .data import (
    CLIMATE_COOLING_MULTIPLIER,
    COOLING_MODULE_KW,
    COOLING_PUE_SHARE,
    FALLBACK_PUE,
    HOURS_PER_YEAR,
    LIQUID_COOLING_IDS,
    POWER_MODULE_KW,
    REDUNDANCY_TIER_LEVEL,
    TRAINING_DRAW_FRACTION,
    UPTIME_TIERS,
)

# BOM categories counted as network devices ("switches" in the IT power split) and as optics.
NETWORK_DEVICE_CATEGORIES = ("switch", "appliance", "router")


def _network_w(bom: Sequence[BomLine], field: str, categories: tuple[str, ...]) -> float:
    return sum(getattr(line, field) or 0.0 for line in bom if line.category in categories)


def it_power_kw(system, systems: int, bom: Sequence[BomLine], storage_kw: float) -> dict:
    """IT kW of one site: its systems, every network device and optic of its BOM (WAN routers
    and coherent optics included), and its storage."""
    gpus = system.gpu_power_kw * systems
    hosts = (system.power_max_kw - system.gpu_power_kw) * systems
    devices, optics = NETWORK_DEVICE_CATEGORIES, ("transceiver",)
    switches = _network_w(bom, "total_power_max_w", devices) / 1000.0
    optics_kw = _network_w(bom, "total_power_max_w", optics) / 1000.0
    total = gpus + hosts + switches + optics_kw + storage_kw
    energy = (
        (gpus + hosts) * TRAINING_DRAW_FRACTION
        + _network_w(bom, "total_power_w", devices) / 1000.0
        + _network_w(bom, "total_power_w", optics) / 1000.0
        + storage_kw
    )
    return {
        "gpus": gpus,
        "hosts": hosts,
        "switches": switches,
        "optics": optics_kw,
        "storage": storage_kw,
        "total": total,
        "energy_basis_total": energy,
    }


def cooling_class(cooling_id: str) -> str:
    return "liquid" if cooling_id in LIQUID_COOLING_IDS else "air"


def pue_for(facility, cooling, climate: str) -> tuple[float, str]:
    """The design's PUE, or one derived from the cooling type and the site's climate."""
    if facility.pue is not None:
        return facility.pue, "given"
    kind = cooling_class(cooling.id)
    if cooling.pue_typical is None:
        return FALLBACK_PUE[kind], f"fallback for {kind} cooling (catalog has no PUE)"
    share = COOLING_PUE_SHARE[kind]
    multiplier = CLIMATE_COOLING_MULTIPLIER[climate]
    pue = cooling.pue_typical + share * (multiplier - 1.0)
    low = cooling.pue_min if cooling.pue_min is not None else 1.0
    high = cooling.pue_max if cooling.pue_max is not None else pue
    pue = min(max(pue, low), high)
    return pue, (
        f"{cooling.id} typical {cooling.pue_typical:g}, cooling share {share:g} x climate "
        f"{climate} {multiplier:g}, clamped to [{low:g}, {high:g}]"
    )


def energy_block(it: dict, pue: float, pue_source: str) -> dict:
    facility_kw = it["total"] * pue
    energy_kw = it["energy_basis_total"] * pue
    return {
        "pue": pue,
        "pue_source": pue_source,
        "facility_kw": facility_kw,
        "facility_overhead_kw": facility_kw - it["total"],
        "facility_kw_energy_basis": energy_kw,
        "annual_mwh": energy_kw * HOURS_PER_YEAR / 1000.0,
        "annual_mwh_at_peak": facility_kw * HOURS_PER_YEAR / 1000.0,
        "annual_it_mwh": it["energy_basis_total"] * HOURS_PER_YEAR / 1000.0,
        # Three reporting boundaries: GPU (model cards' "GPU energy"), IT, facility (x PUE).
        "annual_gpu_mwh": it["gpus"] * TRAINING_DRAW_FRACTION * HOURS_PER_YEAR / 1000.0,
        "training_draw_fraction": TRAINING_DRAW_FRACTION,
    }


def installed_kw(load_kw: float, redundancy: str, module_kw: float) -> dict:
    modules = max(1, math.ceil(load_kw / module_kw))
    if redundancy == "2N":
        factor, label = 2.0, "two full systems, each carrying the whole load"
    elif redundancy == "N+1":
        factor, label = (modules + 1) / modules, f"{modules} modules + 1 spare"
    else:
        factor, label = 1.0, "no spare"
    return {
        "redundancy": redundancy,
        "load_kw": load_kw,
        "modules_needed": modules,
        "module_kw": load_kw / modules,
        "installed_kw": load_kw * factor,
        "factor": factor,
        "meaning": label,
    }


def redundancy_block(facility, it_kw: float) -> dict:
    power = installed_kw(it_kw, facility.power_redundancy, POWER_MODULE_KW)
    cooling = installed_kw(it_kw, facility.cooling_redundancy, COOLING_MODULE_KW)
    level = min(
        REDUNDANCY_TIER_LEVEL[facility.power_redundancy],
        REDUNDANCY_TIER_LEVEL[facility.cooling_redundancy],
    )
    tier = UPTIME_TIERS[level]
    return {
        "power": power,
        "cooling": {**cooling, "load_kw_thermal": it_kw},
        "uptime_tier_indicative": {
            "tier": tier[0],
            "availability_percent": tier[1],
            "note": "indicative: Uptime rates topology, the percentages are the older TIA-942 "
            "usage (fabric_power.md [S49]); N+1 counts as Tier III only with an alternate path",
        },
    }
