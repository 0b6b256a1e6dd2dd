"""Opex lines, USD per year (one-time items flagged), per site where the cost belongs to a
site: energy, colocation, staff, maintenance, licences; cluster-wide: WAN egress (regions
engine). Storage services come from capex.storage_lines; replacement of failed parts follows
the line it replaces.

Energy: each site's facility energy (facility engine: IT energy on its load profile x the
site's PUE) x that site's $/kWh. Colocation bills the site's contracted (provisioned) IT kW
per month; its energy is billed separately.
"""

from __future__ import annotations

from models_engine.catalog import Catalog
from models_engine.spec.errors import error

from .allowances import transceiver_allowance
from .assumptions import Assumptions
from .capex import fraction_of_hardware_lines
from .inputs import HOURS_PER_YEAR, CostInputs, SiteInputs
from .trace import (
    UNPRICED,
    CostLine,
    Trace,
    assumption_trace,
    catalog_trace,
    derived,
    override_trace,
)

# Components whose failed parts the maintenance / support contract replaces (vendor RMA).
COVERED_BY_MAINTENANCE = {
    "gpu",
    "hbm",
    "node",
    "host",
    "host-dram",
    "nic",
    "switch",
    "psu",
    "pcie-switch",
    "pdu",
    "ssd",
    "software",
}
HDD_RATE_ID = "hdd-backblaze-2024"


def site_pue(inputs: CostInputs, site: SiteInputs, cluster_pue: float) -> float:
    """The site's PUE moved by the sensitivity lever (the cluster PUE, scaled at every site
    by the same ratio), never below 1.0 (a physical bound)."""
    return max(1.0, site.pue * cluster_pue / inputs.pue)


def energy_lines(inputs: CostInputs, *, power_scale: float, pue: float) -> list[CostLine]:
    out = []
    for site in inputs.sites:
        effective_pue = site_pue(inputs, site, pue)
        kwh = site.energy_kwh * (effective_pue / site.pue)
        price = site.power_usd_per_kwh * power_scale
        out.append(
            CostLine(
                part="energy",
                item=f"electricity, site {site.id}",
                catalog_id=None,
                quantity=kwh,
                unit="kWh/year",
                unit_price_usd=price,
                total_usd=kwh * price,
                trace=site.power_trace,
                site=site.id,
                note="facility energy of the site (facility engine) x the site's $/kWh",
                extra={
                    "it_power_kw": site.it_power_kw,
                    "it_energy_kwh": site.it_energy_kwh,
                    "pue": effective_pue,
                    "facility_average_kw": kwh / HOURS_PER_YEAR,
                },
            )
        )
    return out


def colocation_lines(inputs: CostInputs) -> list[CostLine]:
    out = []
    for site in inputs.sites:
        yearly = site.colocation_usd_per_kw_month * 12.0
        out.append(
            CostLine(
                part="colocation",
                item=f"colocation fee, site {site.id}",
                catalog_id=None,
                quantity=site.it_power_kw,
                unit="kW IT contracted (per year)",
                unit_price_usd=yearly,
                total_usd=yearly * site.it_power_kw,
                trace=site.colocation_trace,
                site=site.id,
                note="$/kW-month x 12 on the provisioned IT load; energy billed separately",
            )
        )
    return out


def staff_price(
    inputs: CostInputs, assumptions: Assumptions, assumption_id: str
) -> tuple[float, Trace]:
    """Fully loaded $/FTE-year: the design's override, else the role's assumption."""
    override = inputs.spec.economics.price_overrides.staff_usd_per_fte_year
    if override is not None:
        return override, override_trace("economics.price_overrides.staff_usd_per_fte_year")
    return assumptions.number(assumption_id), assumption_trace(assumptions, assumption_id)


def core_team_fte(assumptions: Assumptions, gpus: int) -> float:
    """The cluster's core operations team: the large-system team, scaled down with the GPUs
    below the reference size, never below one 24x7 position."""
    large = assumptions.number("cluster-ops-core-fte", "large-cluster")
    floor = assumptions.number("cluster-ops-core-fte", "minimum")
    full_from = assumptions.number("cluster-ops-core-fte", "full-core-from-gpus")
    return max(floor, large * min(1.0, gpus / full_from))


def staff_lines(inputs: CostInputs, assumptions: Assumptions, owned_model: str) -> list[CostLine]:
    """Cluster operations: a core team for the cluster (split over the sites by GPUs) plus
    staff per 1,000 GPUs at each site (every owned build); and a 24x7 facility team per on-prem
    site (a colocation provider's staff is in its fee)."""
    price, price_trace = staff_price(inputs, assumptions, "staff-usd-per-fte-year")
    per_1000 = assumptions.number("cluster-ops-fte-per-1000-gpus")
    ops_trace = derived(
        assumption_trace(assumptions, "cluster-ops-core-fte"),
        assumption_trace(assumptions, "cluster-ops-fte-per-1000-gpus"),
        price_trace,
    )
    total_gpus = sum(site.gpus for site in inputs.sites) or 1
    core = core_team_fte(assumptions, total_gpus)
    lines = [
        _staff_line(
            f"cluster operations (core team share, SRE, network, remote hands), site {site.id}",
            core * site.gpus / total_gpus + site.gpus / 1000.0 * per_1000,
            price,
            ops_trace,
            site.id,
        )
        for site in inputs.sites
    ]
    if owned_model == "on-prem":
        price, price_trace = staff_price(inputs, assumptions, "facility-staff-usd-per-fte-year")
        fte = assumptions.number("facility-ops-fte-per-site")
        trace = derived(assumption_trace(assumptions, "facility-ops-fte-per-site"), price_trace)
        lines += [
            _staff_line(f"facility operations, 24x7, site {site.id}", fte, price, trace, site.id)
            for site in inputs.sites
        ]
    return lines


def _staff_line(item: str, fte: float, price: float, trace: Trace, site_id: str) -> CostLine:
    return CostLine(
        part="staff",
        item=item,
        catalog_id=None,
        quantity=fte,
        unit="FTE",
        unit_price_usd=price,
        total_usd=fte * price,
        trace=trace,
        site=site_id,
    )


def maintenance_lines(
    inputs: CostInputs, assumptions: Assumptions, hardware: list[CostLine]
) -> list[CostLine]:
    """Maintenance and support of each site's priced hardware (and the cluster's spares)."""
    return fraction_of_hardware_lines(
        inputs,
        assumptions,
        hardware,
        assumption_id="maintenance-fraction-of-hardware-capex",
        part="maintenance",
        item="hardware maintenance and support contracts",
        cluster_item=", hot spares",
        note="includes RMA replacement of failed systems, switches and NICs",
    )


def gpu_vendor(inputs: CostInputs) -> str | None:
    """The GPU's vendor from its catalog entry; None for a custom GPU (vendor not known)."""
    return inputs.gpu_sku.vendor if inputs.gpu_sku is not None else None


def licence_applies(stack: str, vendor: str | None, assumptions: Assumptions) -> bool:
    """A licensed stack is charged only on its own vendor's GPUs (a custom GPU, whose vendor is
    not known, is charged when the design chooses the stack)."""
    if stack == "none":
        return False
    stack_vendor = assumptions.value("software-licence-vendor")[stack]
    return vendor is None or vendor.upper() == str(stack_vendor).upper()


def licence_errors(spec, catalog: Catalog, assumptions: Assumptions) -> list[dict]:
    """[one error naming economics.gpu_software_licence] when the chosen stack is another
    vendor's than the design's catalog GPU (NVIDIA AI Enterprise on an AMD GPU), else []."""
    stack = spec.economics.gpu_software_licence
    sku = catalog.gpus.get(spec.compute.gpu_sku) if spec.compute.gpu_sku else None
    if sku is None or licence_applies(stack, sku.vendor, assumptions) or stack == "none":
        return []
    return [
        error(
            "economics.gpu_software_licence",
            f"{stack} runs on {assumptions.value('software-licence-vendor')[stack]} GPUs; "
            f"{sku.name} is a {sku.vendor} GPU",
            {"one_of": ["none"]},
        )
    ]


def licence_lines(inputs: CostInputs, assumptions: Assumptions) -> list[CostLine]:
    """The design's per-GPU software subscription at each site; none by default."""
    stack = inputs.spec.economics.gpu_software_licence
    if not licence_applies(stack, gpu_vendor(inputs), assumptions):
        return []
    price = assumptions.number("software-licence-usd-per-gpu-year")
    trace = assumption_trace(assumptions, "software-licence-usd-per-gpu-year")
    return [
        CostLine(
            part="licences",
            item=f"GPU software licence ({stack}), site {site.id}",
            catalog_id=None,
            quantity=site.gpus,
            unit="GPUs",
            unit_price_usd=price,
            total_usd=price * site.gpus,
            trace=trace,
            site=site.id,
        )
        for site in inputs.sites
    ]


def egress_lines(inputs: CostInputs) -> list[CostLine]:
    """WAN egress the regions engine prices (cluster-wide: it crosses between sites)."""
    lines = []
    if inputs.egress_usd_per_month > 0:
        lines.append(
            CostLine(
                part="wan_egress",
                item="WAN egress (gradients, checkpoints, dataset streaming)",
                catalog_id=None,
                quantity=12.0,
                unit="months",
                unit_price_usd=inputs.egress_usd_per_month,
                total_usd=inputs.egress_usd_per_month * 12.0,
                trace=Trace(
                    "engine",
                    "regions.egress.total_usd_per_month",
                    "regions engine egress cost per month",
                ),
            )
        )
    if inputs.one_time_egress_usd > 0:
        lines.append(
            CostLine(
                part="wan_egress",
                item="one-time dataset replication to extra sites",
                catalog_id=None,
                quantity=1.0,
                unit="once",
                unit_price_usd=inputs.one_time_egress_usd,
                total_usd=inputs.one_time_egress_usd,
                trace=Trace(
                    "engine",
                    "regions.egress.dataset_replication_one_time_usd",
                    "regions engine one-time dataset replication cost",
                ),
                one_time=True,
            )
        )
    return lines


def _rate_trace(catalog: Catalog, rate_id: str) -> tuple[float, Trace]:
    entry = catalog.failure_rates[rate_id]
    trace = Trace(
        "catalog",
        f"failure_rates/{rate_id}",
        entry.sources[0].title,
        entry.sources[0].date,
    )
    return entry.failures_per_unit_year(), trace


def replacement_lines(
    inputs: CostInputs,
    catalog: Catalog,
    assumptions: Assumptions,
    network: list[CostLine],
    storage: list[CostLine],
) -> tuple[list[CostLine], list[dict]]:
    """Parts bought to replace failures that no support contract covers: transceivers (at the
    reliability engine's optics rate per unit-year, a module with no price at the per-Gb/s
    optics allowance) and storage drives. Other components are listed as covered by
    maintenance."""
    lines: list[CostLine] = []
    engine = {failure.component: failure for failure in inputs.failures}
    optics_rate = engine.get("optics")
    optics = [line for line in network if line.extra.get("fabric_category") == "transceiver"]
    rate_trace = Trace(
        "engine",
        "reliability.components.optics.failures_per_unit_year",
        "reliability engine rate",
    )
    per_unit = optics_rate.failures_per_unit_year if optics_rate is not None else None
    for line in optics if per_unit is not None else []:
        failures = (line.quantity or 0.0) * per_unit
        unit_price, price_trace = line.unit_price_usd, line.trace
        note = f"{per_unit:.4g} failures per unit-year ({rate_trace.price_source})"
        extra = {}
        if unit_price is None:
            allowance = transceiver_allowance(
                catalog, assumptions, line.catalog_id, line.extra.get("speed_gbps")
            )
            if allowance is not None:
                unit_price, price_trace = allowance.usd, allowance.trace
                note = f"{allowance.note}; {note}"
                extra = {"allowance": True}
        lines.append(
            CostLine(
                part="replacement_parts",
                item=f"replacement: {line.item}",
                catalog_id=line.catalog_id,
                quantity=failures,
                unit="failures/year",
                unit_price_usd=unit_price,
                total_usd=None if unit_price is None else failures * unit_price,
                trace=UNPRICED if unit_price is None else derived(rate_trace, price_trace),
                site=line.site,
                note=note,
                extra=extra,
            )
        )
    if HDD_RATE_ID in catalog.failure_rates:
        afr, rate_trace = _rate_trace(catalog, HDD_RATE_ID)
        for line in storage:
            sku = catalog.storage.get(line.catalog_id) if line.catalog_id else None
            if sku is None or sku.kind != "media-hdd" or line.total_usd is None:
                continue
            lines.append(
                CostLine(
                    part="replacement_parts",
                    item=f"replacement drives: {line.item}",
                    catalog_id=sku.id,
                    quantity=(line.quantity or 0.0) * afr,
                    unit="TB/year",
                    unit_price_usd=line.unit_price_usd,
                    total_usd=line.total_usd * afr,
                    trace=derived(rate_trace, catalog_trace("storage", sku)),
                    site=line.site,
                    note="annual failure rate x raw TB x $/TB (drive size cancels)",
                )
            )
    covered = [
        {
            "component": failure.component,
            "failures_per_year": failure.failures_per_year,
            "covered_by": "maintenance",
        }
        for failure in inputs.failures
        if failure.component in COVERED_BY_MAINTENANCE
    ]
    return lines, covered
