"""`facility` section: cooling, rack power, redundancy, efficiency."""

from __future__ import annotations

from typing import Literal

from ._base import CATALOG_ID_PATTERN, SpecModel, spec_field

Redundancy = Literal["N", "N+1", "2N"]


class Facility(SpecModel):
    """The data hall the cluster sits in."""

    cooling: str | None = spec_field(
        None,
        unit="catalog id",
        description="Catalog cooling id: air, rear-door-hx, direct-to-chip, immersion; null = "
        "direct-to-chip when the system needs liquid, else the first of air, rear-door-hx, "
        "direct-to-chip that holds the densest rack.",
        pattern=CATALOG_ID_PATTERN,
    )
    rack_power_limit_kw: float = spec_field(
        40.0,
        unit="kW",
        description="Power the facility can deliver and cool per rack (130-140 kW for GB300 "
        "NVL72-class liquid racks).",
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
    climate: Literal["cold", "temperate", "hot-dry", "hot-humid"] | None = spec_field(
        None,
        unit="enum",
        description="Climate of every site (free-cooling hours and water use); null = each "
        "site's own climate, from its catalog region, else temperate.",
    )
    wue_l_per_kwh: float | None = spec_field(
        None,
        unit="L/kWh",
        description="Water usage effectiveness, litres per IT kWh; null = derived later.",
        ge=0,
        le=20,
    )
