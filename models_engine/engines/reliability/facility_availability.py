"""Site availability from the power and cooling redundancy, Uptime-tier style, and storage
durability from the protection scheme (the storage engine's typed `Durability`: scheme,
tolerated failures, rebuild time of a failed unit)."""

from __future__ import annotations

import math

from models_engine.engines.storage.result import Durability

# Legacy Uptime Institute tier availabilities (reliability.md "Site availability", [S]:
# datacenters.com, j2sw; Uptime no longer publishes them in the Tier Standard).
TIER_AVAILABILITY = {"I": 0.99671, "II": 0.99741, "III": 0.99982, "IV": 0.99995}
TIER_SOURCE = (
    "legacy Uptime Institute tier availabilities (reliability.md Site availability; "
    "datacenters.com, j2sw) [S]"
)

HOURS_PER_YEAR = 8760.0


def uptime_tier(power: str, cooling: str) -> tuple[str, str]:
    """(tier, reason). N anywhere: Tier I (no redundant capacity). 2N power with 2N cooling:
    Tier IV (fault tolerant). 2N power with N+1 cooling: Tier III (concurrently maintainable:
    two power paths, redundant cooling units). Otherwise N+1 components on one path: Tier II."""
    if "N" in (power, cooling):
        return "I", "a non-redundant (N) power or cooling chain: any unit failure is an outage"
    if power == "2N" and cooling == "2N":
        return "IV", "2N power and 2N cooling: fault tolerant, every path doubled"
    if power == "2N":
        return "III", "2N power paths with N+1 cooling: concurrently maintainable"
    return "II", "N+1 units on a single distribution path: a path failure is an outage"


def facility_availability(spec) -> dict:
    facility = spec.facility
    tier, reason = uptime_tier(facility.power_redundancy, facility.cooling_redundancy)
    availability = TIER_AVAILABILITY[tier]
    return {
        "power_redundancy": facility.power_redundancy,
        "cooling_redundancy": facility.cooling_redundancy,
        "uptime_tier": tier,
        "reason": reason,
        "availability": availability,
        "downtime_h_per_year": (1.0 - availability) * HOURS_PER_YEAR,
        "source": TIER_SOURCE,
    }


def _mttdl_hours(drives: int, tolerated: int, rate_per_h: float, rebuild_h: float) -> float:
    """Mean time to data loss of a group of `drives` that survives `tolerated` concurrent
    failures (Markov approximation, repair rate 1/rebuild_h >> failure rate)."""
    repair = 1.0 / rebuild_h
    falling = math.prod(drives - i for i in range(tolerated + 1))
    return repair**tolerated / (rate_per_h ** (tolerated + 1) * falling)


def storage_durability(spec, catalog, durability: Durability) -> dict:
    """Annual probability of losing a protection group (one replica set / stripe) of the first
    shared tier, from the storage engine's scheme and rebuild time; None figures when the
    design has no shared tier (node-local NVMe is scratch, not protected)."""
    scheme = spec.storage.durability
    drive = catalog.get("failure_rates", "hdd-backblaze-2024")
    rate = drive.failures_per_unit_year() / HOURS_PER_YEAR
    tolerated = durability.tolerated_failures
    # Drives in one group: r replicas, or k data + m parity fragments.
    drives = scheme.replicas if scheme.scheme == "replication" else scheme.ec_data_k + tolerated
    common = {
        "source": "storage engine (scheme, rebuild time); Markov MTTDL",
        "scheme": durability.label,
        "drive_afr_fraction_per_year": drive.failures_per_unit_year(),
        "drive_rate_source": f"{drive.id}: {drive.sources[0].title}",
        "tolerated_failures": tolerated,
    }
    if not durability.tiers:
        return {
            **common,
            "rebuild_hours": None,
            "mttdl_years_per_group": None,
            "annual_loss_probability_per_group": None,
            "nines": None,
            "note": durability.local_nvme,
        }
    rebuild_h = durability.tiers[0].rebuild_h
    mttdl = _mttdl_hours(drives, tolerated, rate, rebuild_h)
    loss = min(1.0, HOURS_PER_YEAR / mttdl)
    return {
        **common,
        "rebuild_hours": rebuild_h,
        "mttdl_years_per_group": mttdl / HOURS_PER_YEAR,
        "annual_loss_probability_per_group": loss,
        "nines": -math.log10(loss) if loss > 0 else None,
        "note": "per protection group (one replica set / stripe) of the "
        f"{durability.tiers[0].kind} tier; drive AFR of HDDs used for every medium (no SSD "
        "rate in the references)",
    }
