"""Everything the cost model reads, resolved once: the spec, the catalog and the typed results
of the engines that own each quantity. Every result is required; the cost engine prices
quantities, it never re-derives them.

Read per site (sites matched by `site_id`; prices from the spec's `regions.sites`):
- fabric: `bom` (every site's lines and the WAN / DCI equipment, each line tagged with its
  site), `sites[i].scale_out.tiers` and `.nodes`;
- facility: `sites[i].rack_summary.systems`, `.power.it_kw.total` (provisioned IT kW),
  `.power.annual_mwh` (facility energy, IT x PUE), `.power.annual_it_mwh`, `.power.pue`,
  `.cooling.wue_l_per_kwh` / `.water_m3_per_year`;
- storage: `sites[i].durability.tiers` (usable and raw TB of each shared tier);
Read for the cluster:
- performance: `tokens_per_s` (inference fleet throughput);
- reliability: `time_to_train.with_failures_days`, `goodput`, `hot_spare_nodes`, `components`;
- regions: `egress` (`total_usd_per_month`, `dataset_replication_one_time_usd`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models_engine.catalog import Catalog, GpuSku, SystemSku
from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.facility.result import FacilityResult, SiteFacility
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.storage.result import SiteStorage, StorageResult
from models_engine.hardware import GpuFigures, resolve_gpu
from models_engine.spec import DesignSpec

from .assumptions import Assumptions
from .trace import Trace, assumption_trace, catalog_trace, override_trace

HOURS_PER_YEAR = 8760.0
KWH_PER_MWH = 1000.0
# The fabric engine's BOM categories, in the cost engine's vocabulary (allowance groups:
# switches; optics and cables; NICs). Any other category (an appliance, WAN equipment) is
# priced from the catalog or the fabric line and never covered by an allowance.
BOM_CATEGORIES = {
    "switch": "switch",
    "transceiver": "optics",
    "cable": "optics",
    "nic": "nic",
}

# Where each engine-owned input comes from (shown in the result's `inputs.sources`).
SOURCES = {
    "bom": "fabric.bom (every site and the WAN / DCI equipment)",
    "fabric_tiers": "fabric.sites[].scale_out.tiers",
    "systems": "facility.sites[].rack_summary.systems",
    "it_power_kw": "facility.sites[].power.it_kw.total",
    "energy": "facility.sites[].power.annual_mwh",
    "pue": "facility.sites[].power.pue",
    "gpu_energy": "facility.sites[].power.annual_gpu_mwh",
    "cooling": "facility.sites[].cooling.cooling",
    "uptime_tier": "facility.sites[].redundancy.uptime_tier_indicative.tier",
    "racks": "facility.sites[].rack_summary.total_racks",
    "water": "facility.sites[].cooling.water_m3_per_year",
    "storage_tiers": "storage.sites[].durability.tiers",
    "time_to_train_days": "reliability.time_to_train.with_failures_days",
    "goodput": "reliability.goodput",
    "hot_spare_nodes": "reliability.hot_spare_nodes",
    "failure_rates": "reliability.components",
    "egress": "regions.egress",
    "tokens_per_s": "performance.tokens_per_s",
}


@dataclass(frozen=True)
class BomLine:
    """One fabric BOM line as the cost engine prices it."""

    item: str
    catalog_id: str | None
    category: str  # switch | nic | optics | scale-up | other (cost vocabulary)
    fabric_category: str  # the fabric engine's category (transceiver, cable, ...)
    quantity: float
    unit_price_usd: float | None
    unit_power_w: float | None
    network: str | None
    site: str | None
    speed_gbps: float | None = None


@dataclass(frozen=True)
class TierInputs:
    index: int
    kind: str
    usable_tb: float  # at this site (local NVMe: per node x the site's nodes)
    raw_tb: float
    sku: str | None
    overhead: float  # raw / usable
    site: str


@dataclass(frozen=True)
class SiteInputs:
    """One site that hosts GPUs: its engine figures and its prices."""

    id: str
    name: str
    gpus: int
    nodes: int
    systems: int
    fabric_tiers: int
    it_power_kw: float  # provisioned (maximum) IT kW
    energy_kwh: float  # facility energy per year (IT x PUE, the facility's load profile)
    it_energy_kwh: float
    pue: float
    cooling_id: str  # the cooling the facility engine built with
    uptime_tier: str  # the facility engine's indicative Uptime tier (I-IV)
    racks: int  # every rack of the site (facility engine)
    gpu_energy_kwh: float  # GPU boundary, per year (facility engine)
    wue_l_per_kwh: float | None
    wue_source: str
    water_m3_per_year: float | None
    power_usd_per_kwh: float
    power_trace: Trace
    carbon_g_per_kwh: float
    carbon_marginal_g_per_kwh: float | None
    renewable_contract_share: float
    renewable_contract_instrument: str
    colocation_usd_per_kw_month: float
    colocation_trace: Trace
    tiers: tuple[TierInputs, ...]


@dataclass(frozen=True)
class FailureInput:
    component: str
    failures_per_year: float  # whole job
    failures_per_unit_year: float | None


@dataclass(frozen=True)
class CostInputs:
    spec: DesignSpec
    gpu: GpuFigures
    gpu_sku: GpuSku | None
    system: SystemSku | None
    gpu_count: int
    nodes: int
    systems: int
    it_power_kw: float
    pue: float  # cluster: facility energy / IT energy over every site
    water_m3_per_year: float | None
    sites: tuple[SiteInputs, ...]
    bom: tuple[BomLine, ...]
    time_to_train_days: float | None  # with failures (reliability; the headline's figure)
    failure_free_days: float | None
    tokens_per_s: float | None
    goodput: float
    failures: tuple[FailureInput, ...]
    egress_usd_per_month: float
    one_time_egress_usd: float
    hot_spare_nodes: int
    derived: tuple[dict[str, str], ...]
    sources: Mapping[str, str]

    @property
    def ownership(self) -> str:
        return self.spec.economics.ownership

    @property
    def tiers(self) -> tuple[TierInputs, ...]:
        """Every site's storage tiers."""
        return tuple(tier for site in self.sites for tier in site.tiers)

    def site(self, site_id: str | None) -> SiteInputs | None:
        return next((site for site in self.sites if site.id == site_id), None)


def _system(spec: DesignSpec, catalog: Catalog) -> SystemSku | None:
    sku = spec.compute.system_sku
    return catalog.systems.get(sku) if sku else None


def _bom(fabric: FabricResult, catalog: Catalog) -> tuple[BomLine, ...]:
    out = []
    for line in fabric.bom:
        category = BOM_CATEGORIES.get(line.category, "other")
        switch = catalog.switches.get(line.catalog_id) if line.catalog_id else None
        if switch is not None and switch.fabric == "nvlink":
            category = "scale-up"
        out.append(
            BomLine(
                item=line.item,
                catalog_id=line.catalog_id,
                category=category,
                fabric_category=line.category,
                quantity=float(line.quantity),
                unit_price_usd=line.unit_price_usd,
                unit_power_w=line.unit_power_w,
                network=line.network,
                site=line.site,
                speed_gbps=line.speed_gbps,
            )
        )
    return tuple(out)


class _Derived:
    """Inputs the cost engine fills from its own assumptions (listed in `derived_inputs`)."""

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, name: str, how: str) -> None:
        self.items.append({"input": name, "how": how})


def _filled_power(regions: RegionsResult) -> dict[str, dict]:
    """Where the regions engine says each site's electricity price came from, with its date."""
    key = "power_price_usd_per_kwh"
    return {
        site["id"]: {
            "source": (site.get("figure_sources") or {}).get(key, "design"),
            "date": (site.get("figure_dates") or {}).get(key),
        }
        for site in regions.sites
    }


def _site_prices(
    spec: DesignSpec,
    catalog: Catalog,
    assumptions: Assumptions,
    derived: _Derived,
    filled: dict[str, dict],
):
    """Per-site prices by site id. A site figure equal to its catalog region's traces to the
    catalog entry (with its date); one the regions engine filled (a default) to that engine's
    stated source; any other is the design's own figure."""
    overrides = spec.economics.price_overrides
    out = {}
    for index, site in enumerate(spec.regions.sites):
        region = catalog.regions.get(site.catalog_region_id) if site.catalog_region_id else None
        if overrides.power_usd_per_kwh is not None:
            power = overrides.power_usd_per_kwh
            power_trace = override_trace("economics.price_overrides.power_usd_per_kwh")
        else:
            power = site.power_price_usd_per_kwh
            origin = filled.get(site.id, {})
            if region is not None and math.isclose(power, region.power_price_usd_per_kwh):
                power_trace = catalog_trace("regions", region)
            elif origin.get("source", "design") != "design":
                # The regions engine filled it (US default): its source and date.
                power_trace = Trace(
                    kind="engine",
                    ref=f"regions.sites.{index}.figure_sources",
                    title=origin["source"],
                    date=origin.get("date"),
                )
            else:
                power_trace = Trace(
                    kind="design",
                    ref=f"regions.sites.{index}.power_price_usd_per_kwh",
                    title=f"site {site.id} electricity price given in the design",
                )
        site_colo = site.colocation_usd_per_kw_month
        region_colo = region.colocation_usd_per_kw_month if region is not None else None
        if (
            site_colo is not None
            and region_colo is not None
            and math.isclose(site_colo, region_colo)
        ):
            colo = site_colo
            colo_trace = catalog_trace("regions", region, date=region.colocation_price_date)
        elif site_colo is not None:
            colo = site_colo
            colo_trace = Trace(
                kind="design",
                ref=f"regions.sites.{index}.colocation_usd_per_kw_month",
                title=f"site {site.id} colocation price given in the design",
            )
        elif overrides.colocation_usd_per_kw_month is not None:
            colo = overrides.colocation_usd_per_kw_month
            colo_trace = override_trace("economics.price_overrides.colocation_usd_per_kw_month")
        elif region is not None and region.colocation_usd_per_kw_month is not None:
            colo = region.colocation_usd_per_kw_month
            colo_trace = catalog_trace("regions", region, date=region.colocation_price_date)
        else:
            colo = assumptions.number("colocation-usd-per-kw-month")
            colo_trace = assumption_trace(assumptions, "colocation-usd-per-kw-month")
            if spec.economics.ownership == "colocation" and site.gpu_share > 0:
                derived.add(
                    f"regions.sites.{index}.colocation_usd_per_kw_month",
                    "no site, override or catalog-region price: assumption "
                    "colocation-usd-per-kw-month",
                )
        out[site.id] = (site, power, power_trace, colo, colo_trace)
    return out


def _tiers(spec: DesignSpec, storage: SiteStorage, nodes: int) -> tuple[TierInputs, ...]:
    """The spec's tiers at one site: shared tiers as the storage engine sized them (usable and
    raw TB after durability); local NVMe is the spec's per-node capacity in every node."""
    sized = {tier.tier: tier for tier in storage.durability.tiers}
    out = []
    for index, tier in enumerate(spec.storage.tiers):
        if tier.kind == "local-nvme":
            per_site = tier.capacity_tb * nodes
            out.append(
                TierInputs(index, tier.kind, per_site, per_site, tier.sku, 1.0, storage.site_id)
            )
            continue
        durable = sized[index]
        overhead = durable.raw_tb / durable.usable_tb if durable.usable_tb else 1.0
        out.append(
            TierInputs(
                index,
                tier.kind,
                durable.usable_tb,
                durable.raw_tb,
                tier.sku,
                overhead,
                storage.site_id,
            )
        )
    return tuple(out)


def _site(
    spec: DesignSpec,
    facility: SiteFacility,
    fabric: FabricResult,
    storage: SiteStorage,
    prices: tuple,
) -> SiteInputs:
    site, power, power_trace, colo, colo_trace = prices
    scale_out = fabric.site(facility.site_id).scale_out
    power_block = facility.power
    return SiteInputs(
        id=facility.site_id,
        name=facility.site_name,
        gpus=facility.gpus,
        nodes=scale_out.nodes,
        systems=facility.rack_summary.systems,
        fabric_tiers=scale_out.tiers,
        it_power_kw=power_block.it_kw.total,
        energy_kwh=power_block.annual_mwh * KWH_PER_MWH,
        it_energy_kwh=power_block.annual_it_mwh * KWH_PER_MWH,
        pue=power_block.pue,
        cooling_id=facility.cooling.cooling,
        uptime_tier=str(facility.redundancy["uptime_tier_indicative"]["tier"]),
        racks=facility.rack_summary.total_racks,
        gpu_energy_kwh=power_block.annual_gpu_mwh * KWH_PER_MWH,
        wue_l_per_kwh=facility.cooling.wue_l_per_kwh,
        wue_source=facility.cooling.wue_source,
        water_m3_per_year=facility.cooling.water_m3_per_year,
        power_usd_per_kwh=power,
        power_trace=power_trace,
        carbon_g_per_kwh=site.carbon_gco2e_per_kwh,
        carbon_marginal_g_per_kwh=site.carbon_marginal_gco2e_per_kwh,
        renewable_contract_share=site.renewable_contract_share,
        renewable_contract_instrument=site.renewable_contract_instrument,
        colocation_usd_per_kw_month=colo,
        colocation_trace=colo_trace,
        tiers=_tiers(spec, storage, scale_out.nodes),
    )


def _failures(reliability: ReliabilityResult) -> tuple[FailureInput, ...]:
    """Failure rates of the job's components (the reliability engine's `components` rows)."""
    return tuple(
        FailureInput(
            component=str(row["component"]).replace("_", "-"),
            failures_per_year=float(row["failures_per_year"]),
            failures_per_unit_year=row["failures_per_unit_year"],
        )
        for row in reliability.components
    )


def _tokens_per_s(spec: DesignSpec, performance: PerformanceResult) -> float | None:
    """Served tokens/s of an inference fleet (cost per million tokens); None for training."""
    if spec.workload.kind != "inference":
        return None
    return performance.tokens_per_s


def resolve_inputs(
    spec: DesignSpec,
    catalog: Catalog,
    assumptions: Assumptions,
    *,
    fabric: FabricResult,
    facility: FacilityResult,
    storage: StorageResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    reliability: ReliabilityResult,
) -> CostInputs:
    derived = _Derived()
    compute = spec.compute
    prices = _site_prices(spec, catalog, assumptions, derived, _filled_power(regions))
    storage_by_site = {site.site_id: site for site in storage.sites}
    sites = tuple(
        _site(spec, site, fabric, storage_by_site[site.site_id], prices[site.site_id])
        for site in facility.sites
    )
    energy = sum(site.energy_kwh for site in sites)
    it_energy = sum(site.it_energy_kwh for site in sites)
    time_to_train = reliability.time_to_train
    egress: dict[str, Any] = regions.egress
    return CostInputs(
        spec=spec,
        gpu=resolve_gpu(compute, catalog),
        gpu_sku=catalog.gpus.get(compute.gpu_sku) if compute.gpu_sku else None,
        system=_system(spec, catalog),
        gpu_count=compute.gpu_count,
        nodes=fabric.totals.nodes,
        systems=facility.totals.systems,
        it_power_kw=facility.totals.it_kw,
        # Cluster PUE on energy: sum of facility energy / sum of IT energy over the sites.
        pue=energy / it_energy if it_energy else 1.0,
        water_m3_per_year=facility.totals.water_m3_per_year,
        sites=sites,
        bom=_bom(fabric, catalog),
        time_to_train_days=time_to_train.with_failures_days if time_to_train else None,
        failure_free_days=time_to_train.failure_free_days if time_to_train else None,
        tokens_per_s=_tokens_per_s(spec, performance),
        goodput=reliability.goodput,
        failures=_failures(reliability),
        egress_usd_per_month=float(egress["total_usd_per_month"]),
        one_time_egress_usd=float(egress["dataset_replication_one_time_usd"]),
        hot_spare_nodes=reliability.hot_spare_nodes,
        derived=tuple(derived.items),
        sources=dict(SOURCES),
    )
