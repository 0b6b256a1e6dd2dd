"""`economics` section: ownership model, horizon, and price overrides."""

from __future__ import annotations

from typing import Literal

from ._base import CATALOG_ID_PATTERN, SpecModel, section_field, spec_field


class CatalogPriceOverride(SpecModel):
    """A negotiated unit price for one catalog entry (any priced kind)."""

    catalog_id: str = spec_field(
        ...,
        unit="catalog id",
        description="Id of a priced catalog entry: GPU, system, switch, NIC, optic or storage.",
        pattern=CATALOG_ID_PATTERN,
    )
    unit_price_usd: float = spec_field(
        ..., unit="USD", description="Price of one unit, replacing the catalog's.", ge=0, le=1e9
    )


class CostAssumptionOverride(SpecModel):
    """The design's own figure for one cost assumption (or one key of a table-valued one)."""

    id: str = spec_field(
        ...,
        unit="assumption id",
        description="Id of a cost assumption, e.g. installation-hours-per-rack.",
        pattern=CATALOG_ID_PATTERN,
    )
    key: str | None = spec_field(
        None,
        unit="key",
        description="Key of a table-valued assumption (e.g. III of construction-tier-usd-per-kw); "
        "null for a single figure.",
        min_length=1,
        max_length=80,
    )
    value: float = spec_field(
        ..., unit="the assumption's unit", description="The design's figure.", ge=0, le=1e12
    )


class PriceOverrides(SpecModel):
    """Prices that replace the catalog / regional figures. null = use the catalog."""

    gpu_price_usd: float | None = spec_field(
        None, unit="USD", description="Price of one GPU.", ge=0, le=1e8
    )
    system_price_usd: float | None = spec_field(
        None, unit="USD", description="Price of one node / system.", ge=0, le=1e9
    )
    power_usd_per_kwh: float | None = spec_field(
        None, unit="USD/kWh", description="Electricity price for every site.", ge=0, le=10
    )
    colocation_usd_per_kw_month: float | None = spec_field(
        None,
        unit="USD/kW-month",
        description="Colocation price per kW of IT load.",
        ge=0,
        le=100_000,
    )
    staff_usd_per_fte_year: float | None = spec_field(
        None,
        unit="USD/FTE-year",
        description="Fully loaded cost of one operations FTE.",
        ge=0,
        le=1e8,
    )
    cloud_usd_per_gpu_hour: float | None = spec_field(
        None, unit="USD/GPU-hour", description="Cloud price per GPU-hour.", ge=0, le=10_000
    )
    catalog_prices: list[CatalogPriceOverride] = section_field(
        [],
        description="Unit prices that replace catalog prices for this design (any catalog id).",
        max_length=500,
    )


class Economics(SpecModel):
    """How the cluster is paid for and over what horizon."""

    ownership: Literal["on-prem", "colocation", "cloud-reserved", "cloud-on-demand"] = spec_field(
        "on-prem", unit="enum", description="Ownership / procurement model."
    )
    utilisation: float = spec_field(
        0.75,
        unit="fraction (0-1)",
        description="Share of GPU-hours doing useful work.",
        gt=0,
        le=1,
    )
    horizon_years: float = spec_field(
        5.0, unit="years", description="Period the TCO covers.", gt=0, le=30
    )
    depreciation_years: float = spec_field(
        5.0,
        unit="years",
        description="Straight-line depreciation life of hardware.",
        gt=0,
        le=30,
    )
    discount_rate: float = spec_field(
        0.08, unit="fraction per year", description="Discount rate for NPV.", ge=0, le=1
    )
    currency: Literal["USD"] = spec_field("USD", unit="ISO 4217", description="Currency.")
    gpu_software_licence: Literal["none", "nvidia-ai-enterprise"] = spec_field(
        "none",
        unit="enum",
        description="Per-GPU software subscription bought for the stack: none (drivers, CUDA / "
        "ROCm and the collective libraries are free) or nvidia-ai-enterprise (NVIDIA GPUs only).",
    )
    cost_assumptions: list[CostAssumptionOverride] = section_field(
        [],
        description="This design's own figures for cost assumptions (the results list every "
        "assumption id with its published source and date).",
        max_length=100,
    )
    price_overrides: PriceOverrides = section_field(
        PriceOverrides(), description="Prices that replace catalog figures."
    )
