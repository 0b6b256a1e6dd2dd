"""`facility` section: cooling, rack power, redundancy, efficiency."""

from __future__ import annotations

from typing import Literal

from ._base import CATALOG_ID_PATTERN, SpecModel, spec_field

Redundancy = Literal["N", "N+1", "2N"]


class Facility(SpecModel):
    """The data hall the cluster sits in."""

    cooling: str = spec_field(
        "air",
        unit="catalog id",
        description="Catalog cooling id: air, rear-door-hx, direct-to-chip, immersion.",
        pattern=CATALOG_ID_PATTERN,
    )
    rack_power_limit_kw: float = spec_field(
        40.0,
        unit="kW",
        description="Power the facility can deliver and cool per rack.",
        gt=0,
        le=1000,
    )
    power_redundancy: Redundancy = spec_field(
        "2N",
        unit="enum",
        description="Power chain redundancy (N, N+1 spare unit, 2N two full paths).",
    )
    cooling_redundancy: Redundancy = spec_field(
        "N+1", unit="enum", description="Cooling plant redundancy."
    )
    pue: float | None = spec_field(
        None,
        unit="ratio",
        description="Power usage effectiveness (facility / IT energy); null = derived later "
        "from cooling and climate.",
        ge=1.0,
        le=5.0,
    )
    climate: Literal["cold", "temperate", "hot-dry", "hot-humid"] = spec_field(
        "temperate",
        unit="enum",
        description="Site climate (drives free-cooling hours and water use).",
    )
    wue_l_per_kwh: float | None = spec_field(
        None,
        unit="L/kWh",
        description="Water usage effectiveness, litres per IT kWh; null = derived later.",
        ge=0,
        le=20,
    )
