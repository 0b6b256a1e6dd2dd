"""Facility entries: storage, cooling types, regions and component failure rates."""

from typing import Literal

from pydantic import Field, field_validator, model_validator

from models_engine.catalog.base import DATE_PATTERN, CatalogEntry, coerce_date_text

HOURS_PER_YEAR = 8760.0

# WRI Aqueduct 4.0 baseline water stress categories (withdrawals / available supply).
WaterStress = Literal["low", "low-medium", "medium-high", "high", "extremely-high"]

StorageKind = Literal["media-ssd", "media-hdd", "pfs-appliance", "managed-pfs", "object-store"]


class StorageSku(CatalogEntry):
    """Storage media, a storage system, or a storage service."""

    vendor: str = Field(min_length=1, description="Vendor, provider or 'generic'.")
    kind: StorageKind = Field(
        description="Raw media, parallel-FS appliance, managed parallel FS, object store."
    )
    capacity_tb_per_unit: float | None = Field(
        default=None, gt=0, description="Capacity of one unit, TB (decimal)."
    )
    read_gb_per_s_per_unit: float | None = Field(
        default=None, gt=0, description="Read throughput of one unit, GB/s."
    )
    write_gb_per_s_per_unit: float | None = Field(
        default=None, gt=0, description="Write throughput of one unit, GB/s."
    )
    price_basis: Literal["raw", "usable"] | None = Field(
        default=None, description="Whether per-TB prices are per raw or per usable TB."
    )
    price_usd_per_tb: float | None = Field(
        default=None, gt=0, description="Purchase price per TB (capex), USD."
    )
    price_usd_per_tb_month: float | None = Field(
        default=None, gt=0, description="Service price per TB-month (opex), USD."
    )
    rack_units: int | None = Field(default=None, ge=1, description="Height of one unit, U.")
    power_w: float | None = Field(default=None, gt=0, description="Power of one unit, W.")


class CoolingType(CatalogEntry):
    """A cooling approach and what it supports."""

    max_rack_kw: float = Field(
        gt=0, description="Practical upper rack density, kW per rack (configurable threshold)."
    )
    typical_rack_kw_min: float | None = Field(
        default=None, gt=0, description="Lower end of the density range it is used for, kW."
    )
    pue_typical: float | None = Field(default=None, ge=1, description="Typical facility PUE.")
    pue_min: float | None = Field(default=None, ge=1, description="Best-case PUE.")
    pue_max: float | None = Field(default=None, ge=1, description="Worst-case PUE.")
    wue_l_per_kwh: float | None = Field(
        default=None, ge=0, description="Water usage effectiveness, litres per IT kWh."
    )
    liquid_heat_fraction: float | None = Field(
        default=None, ge=0, le=1, description="Fraction of IT heat removed by liquid at the rack."
    )
    capex_usd_per_kw: float | None = Field(
        default=None, gt=0, description="Cooling capex per kW of IT load, USD."
    )

    @model_validator(mode="after")
    def _pue_order(self) -> "CoolingType":
        values = [v for v in (self.pue_min, self.pue_typical, self.pue_max) if v is not None]
        if values != sorted(values):
            raise ValueError("PUE must satisfy pue_min <= pue_typical <= pue_max")
        return self


class Region(CatalogEntry):
    """A site or region where GPUs can be placed."""

    country: str = Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2 code.")
    jurisdiction: str = Field(
        pattern=r"^[A-Z]{2,8}$", description="Legal/data-residency area, e.g. US, EU."
    )
    site: str | None = Field(default=None, description="City or campus.")
    climate: Literal["hot-humid", "hot-dry", "temperate", "cold"] = Field(
        description="Coarse climate class (free-cooling potential)."
    )
    power_price_usd_per_kwh: float = Field(gt=0, description="Electricity price, USD per kWh.")
    grid_carbon_g_co2e_per_kwh: float = Field(
        ge=0, description="Grid carbon intensity (annual average), gCO2e per kWh."
    )
    grid_carbon_marginal_g_co2e_per_kwh: float | None = Field(
        default=None,
        ge=0,
        description="Marginal (non-baseload) grid carbon intensity, gCO2e per kWh.",
    )
    water_stress: WaterStress | None = Field(
        default=None, description="WRI Aqueduct baseline water stress category."
    )
    colocation_usd_per_kw_month: float | None = Field(
        default=None, gt=0, description="Wholesale colocation, USD per kW-month."
    )
    colocation_price_date: str | None = Field(
        default=None, pattern=DATE_PATTERN, description="Date of the colocation figure."
    )

    @field_validator("colocation_price_date", mode="before")
    @classmethod
    def _colo_date_as_text(cls, value: object) -> object:
        return coerce_date_text(value)

    @model_validator(mode="after")
    def _colocation_dated(self) -> "Region":
        if self.colocation_usd_per_kw_month is not None and self.colocation_price_date is None:
            raise ValueError("colocation_usd_per_kw_month set without colocation_price_date")
        return self


FailureComponent = Literal[
    "gpu",
    "hbm",
    "node",
    "host-dram",
    "nic",
    "optics",
    "switch",
    "psu",
    "pcie-switch",
    "hdd",
    "ssd",
    "pdu",
    "software",
    "host",
]


class FailureRate(CatalogEntry):
    """A published failure rate of one component class."""

    component: FailureComponent = Field(description="Component class.")
    scope: str = Field(min_length=1, description="What one unit is, e.g. 'per GPU', 'per node'.")
    afr_fraction_per_year: float | None = Field(
        default=None, gt=0, le=1, description="Annualised failure rate, fraction per unit-year."
    )
    mtbf_hours: float | None = Field(
        default=None, gt=0, description="Mean time between (or to) failures per unit, hours."
    )
    mtbe_hours: float | None = Field(
        default=None, gt=0, description="Mean time between errors per unit, hours (HBM)."
    )
    failures_per_1000_node_days: float | None = Field(
        default=None, gt=0, description="Failures per 1000 node-days."
    )

    @model_validator(mode="after")
    def _has_a_rate(self) -> "FailureRate":
        rates = (
            self.afr_fraction_per_year,
            self.mtbf_hours,
            self.mtbe_hours,
            self.failures_per_1000_node_days,
        )
        if all(rate is None for rate in rates):
            raise ValueError(
                "give at least one of afr_fraction_per_year, mtbf_hours, mtbe_hours,"
                " failures_per_1000_node_days"
            )
        return self

    def failures_per_unit_year(self) -> float:
        """Events per unit-year from the first rate given (AFR taken as a rate when small)."""
        if self.failures_per_1000_node_days is not None:
            return self.failures_per_1000_node_days * 365.0 / 1000.0
        if self.mtbf_hours is not None:
            return HOURS_PER_YEAR / self.mtbf_hours
        if self.mtbe_hours is not None:
            return HOURS_PER_YEAR / self.mtbe_hours
        return float(self.afr_fraction_per_year or 0.0)
