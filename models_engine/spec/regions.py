"""`regions` section: sites, WAN links, cross-region training, datasets and residency.

Residency conflicts (an EU-only dataset stored at a US site) are NOT validation errors: the
regions engine reports them as findings. Only references that cannot be resolved are."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ._base import (
    CATALOG_ID_PATTERN,
    LOCAL_ID_PATTERN,
    RuleViolations,
    SpecModel,
    literal_or,
    section_field,
    spec_field,
)

SHARE_SUM_TOLERANCE = 1e-6
Climate = Literal["cold", "temperate", "hot-dry", "hot-humid"]
# WRI Aqueduct baseline water stress categories (as the catalog's regions).
WaterStress = Literal["low", "low-medium", "medium-high", "high", "extremely-high"]
# Legal regime codes: ISO 3166 alpha-2 country codes plus blocs such as "EU".
JURISDICTION_PATTERN = r"^[A-Z]{2,3}$"

JurisdictionCode = Annotated[str, Field(pattern=JURISDICTION_PATTERN)]
SiteId = Annotated[str, Field(pattern=LOCAL_ID_PATTERN)]


class Site(SpecModel):
    """A data-centre site that hosts part of the cluster (or only data)."""

    id: str = spec_field(
        ...,
        unit="id",
        description="Site id used by wan_links and datasets.",
        pattern=LOCAL_ID_PATTERN,
    )
    name: str = spec_field(
        ..., unit="text", description="Display name.", min_length=1, max_length=200
    )
    gpu_share: float = spec_field(
        ...,
        unit="fraction (0-1)",
        description="Share of compute.gpu_count at this site; shares sum to 1.",
        ge=0,
        le=1,
    )
    power_price_usd_per_kwh: float | None = spec_field(
        None,
        unit="USD/kWh",
        description="Electricity price; null = the catalog region's figure (else the US "
        "industrial average).",
        ge=0,
        le=10,
    )
    carbon_gco2e_per_kwh: float | None = spec_field(
        None,
        unit="gCO2e/kWh",
        description="Grid carbon intensity, annual average (location-based); null = the "
        "catalog region's figure (else the US average).",
        ge=0,
        le=2000,
    )
    carbon_marginal_gco2e_per_kwh: float | None = spec_field(
        None,
        unit="gCO2e/kWh",
        description="Marginal grid carbon intensity; null = the catalog region's figure, if any.",
        ge=0,
        le=2000,
    )
    climate: Climate | None = spec_field(
        None,
        unit="enum",
        description="Site climate for PUE and water; null = facility.climate, else the catalog "
        "region's, else temperate.",
    )
    water_stress: WaterStress | None = spec_field(
        None,
        unit="enum",
        description="WRI Aqueduct baseline water stress; null = the catalog region's, if any.",
    )
    renewable_contract_share: float = spec_field(
        0.0,
        unit="fraction (0-1)",
        description="Share of the site's electricity covered by a zero-carbon contract "
        "instrument (GHG Protocol Scope 2 market-based method).",
        ge=0,
        le=1,
    )
    renewable_contract_instrument: Literal[
        "not-stated", "ppa", "unbundled-recs", "green-tariff"
    ] = spec_field(
        "not-stated",
        unit="enum",
        description="Contract instrument behind renewable_contract_share: power purchase "
        "agreement, unbundled certificates (RECs / GOs) or a utility green tariff (reported "
        "with the market-based figure).",
    )
    jurisdiction: str = spec_field(
        ...,
        unit="code",
        description="Legal regime for residency: ISO country code or bloc (US, EU, UK, SG...).",
        pattern=JURISDICTION_PATTERN,
    )
    catalog_region_id: str | None = spec_field(
        None,
        unit="catalog id",
        description="Catalog region this site corresponds to (for reference figures).",
        pattern=CATALOG_ID_PATTERN,
    )
    colocation_usd_per_kw_month: float | None = spec_field(
        None,
        unit="USD/kW-month",
        description="Colocation price at this site; null = catalog / override.",
        ge=0,
        le=100_000,
    )


class WanLink(SpecModel):
    """A wide-area link between two sites (both directions)."""

    from_site: str = spec_field(
        ..., unit="site id", description="One end (a site id).", pattern=LOCAL_ID_PATTERN
    )
    to_site: str = spec_field(
        ..., unit="site id", description="Other end (a site id).", pattern=LOCAL_ID_PATTERN
    )
    bandwidth_gbps: float = spec_field(
        ..., unit="Gb/s", description="Usable bandwidth, gigabits per second.", gt=0, le=1e7
    )
    rtt_ms: float = spec_field(
        ..., unit="ms", description="Round-trip time, milliseconds.", ge=0, le=10_000
    )
    egress_usd_per_gb: float = spec_field(
        0.02, unit="USD/GB", description="Transfer price per decimal gigabyte.", ge=0, le=100
    )


Residency = literal_or(
    "any",
    Annotated[list[JurisdictionCode], Field(min_length=1, max_length=64)],
    'a list of jurisdiction codes such as ["EU"]',
)


class Dataset(SpecModel):
    """A dataset, where it is stored and where it may be processed."""

    name: str = spec_field(
        ..., unit="text", description="Dataset name (unique).", min_length=1, max_length=200
    )
    size_tb: float = spec_field(
        ..., unit="TB", description="Size, decimal terabytes.", gt=0, le=1e7
    )
    residency: Residency = spec_field(  # type: ignore[valid-type]
        "any",
        unit="jurisdiction codes",
        description="Jurisdictions the data must stay in, or 'any'.",
    )
    stored_at: list[SiteId] = spec_field(
        ...,
        unit="site ids",
        description="Sites holding a copy.",
        min_length=1,
        max_length=64,
    )


def _default_sites() -> list[Site]:
    # Price and carbon left null: filled from a catalog region when one is chosen, else from
    # the US defaults (engines/regions/site_fill.py).
    return [Site(id="site-1", name="Primary site", gpu_share=1.0, jurisdiction="US")]


class Regions(SpecModel):
    """Where the cluster runs and how training spans sites."""

    sites: list[Site] = section_field(
        _default_sites(),
        description="Sites; gpu_share over all sites sums to 1.",
        min_length=1,
        max_length=64,
    )
    wan_links: list[WanLink] = section_field(
        [], description="WAN links between sites.", max_length=1024
    )
    cross_region_strategy: Literal[
        "none", "synchronous", "hierarchical", "async-averaging", "federated"
    ] = spec_field(
        "none",
        unit="enum",
        description=(
            "How one training job spans sites: none (single site), synchronous all-reduce over "
            "the WAN, hierarchical (sync inside a site, periodic averaging across), "
            "async-averaging, or federated."
        ),
    )
    averaging_interval_steps: int = spec_field(
        100,
        unit="steps",
        description="Optimizer steps between cross-site averaging (hierarchical / async / "
        "federated).",
        ge=1,
        le=1_000_000,
    )
    datasets: list[Dataset] = section_field(
        [], description="Datasets with residency constraints.", max_length=1024
    )

    @model_validator(mode="after")
    def _check_references(self) -> Regions:
        issues = RuleViolations()
        known: set[str] = set()
        for index, site in enumerate(self.sites):
            if site.id in known:
                issues.add(f"sites.{index}.id", f"duplicate site id '{site.id}'")
            known.add(site.id)
        total = sum(site.gpu_share for site in self.sites)
        if abs(total - 1.0) > SHARE_SUM_TOLERANCE:
            issues.add(
                "sites",
                f"gpu_share over all sites must sum to 1 (got {total:.6g})",
                {"sum": 1.0},
            )
        allowed_sites = sorted(known)
        for index, link in enumerate(self.wan_links):
            for end in ("from_site", "to_site"):
                site_id = getattr(link, end)
                if site_id not in known:
                    issues.add(
                        f"wan_links.{index}.{end}",
                        f"unknown site '{site_id}'",
                        {"one_of": allowed_sites},
                    )
            if link.from_site == link.to_site:
                issues.add(f"wan_links.{index}.to_site", "a WAN link joins two different sites")
        names: set[str] = set()
        for index, dataset in enumerate(self.datasets):
            if dataset.name in names:
                issues.add(f"datasets.{index}.name", f"duplicate dataset name '{dataset.name}'")
            names.add(dataset.name)
            for position, site_id in enumerate(dataset.stored_at):
                if site_id not in known:
                    issues.add(
                        f"datasets.{index}.stored_at.{position}",
                        f"unknown site '{site_id}'",
                        {"one_of": allowed_sites},
                    )
        gpu_sites = [site for site in self.sites if site.gpu_share > 0]
        if self.cross_region_strategy != "none" and len(gpu_sites) < 2:
            issues.add(
                "cross_region_strategy",
                f"'{self.cross_region_strategy}' needs GPUs at two or more sites "
                "(gpu_share > 0); use 'none' for a single site",
                {"one_of": ["none"]},
            )
        issues.raise_if_any()
        return self
