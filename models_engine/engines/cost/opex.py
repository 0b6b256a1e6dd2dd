"""Opex lines, USD per year (one-time items flagged): energy, colocation, staff, maintenance,
licences, WAN/egress, replacement of failed parts. Storage services come from capex.storage_lines.

Energy is utilisation-independent: average IT draw = provisioned IT kW x load factor (Epoch:
75% of server TDP) every hour of the year, busy or idle, times PUE and the site's $/kWh.
Colocation bills the contracted (provisioned) IT kW per month; its energy is billed separately.
"""

from __future__ import annotations

from models_engine.catalog import Catalog

from .assumptions import Assumptions
from .inputs import HOURS_PER_YEAR, CostInputs
from .trace import (
    UNPRICED,
    CostLine,
    Trace,
    assumption_trace,
    catalog_trace,
    derived,
    override_trace,
    total,
)

# Components whose failed parts the maintenance / support contract replaces (vendor RMA).
COVERED_BY_MAINTENANCE = {
    "gpu",
    "hbm",
    "node",
    "host-dram",
    "nic",
    "switch",
    "psu",
    "pcie-switch",
    "pdu",
    "ssd",
    "software",
}
OPTICS_RATE_ID = "optics-transceiver"
HDD_RATE_ID = "hdd-backblaze-2024"


def energy_lines(inputs: CostInputs, *, power_scale: float, pue: float) -> list[CostLine]:
    out = []
    for site in inputs.sites:
        it_kw = inputs.it_power_kw * site.gpu_share
        if it_kw <= 0:
            continue
        kwh = it_kw * inputs.load_factor * pue * HOURS_PER_YEAR
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
                note="IT kW x load factor x PUE x 8,760 h x $/kWh",
                extra={
                    "it_power_kw": it_kw,
                    "load_factor": inputs.load_factor,
                    "pue": pue,
                    "facility_average_kw": it_kw * inputs.load_factor * pue,
                },
            )
        )
    return out


def colocation_lines(inputs: CostInputs) -> list[CostLine]:
    out = []
    for site in inputs.sites:
        it_kw = inputs.it_power_kw * site.gpu_share
        if it_kw <= 0:
            continue
        yearly = site.colocation_usd_per_kw_month * 12.0
        out.append(
            CostLine(
                part="colocation",
                item=f"colocation fee, site {site.id}",
                catalog_id=None,
                quantity=it_kw,
                unit="kW IT contracted (per year)",
                unit_price_usd=yearly,
                total_usd=yearly * it_kw,
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


def staff_lines(inputs: CostInputs, assumptions: Assumptions, owned_model: str) -> list[CostLine]:
    """Cluster operations per 1,000 GPUs (every owned build) and a 24x7 facility team per
    on-prem site (a colocation provider's staff is in its fee)."""
    price, price_trace = staff_price(inputs, assumptions, "staff-usd-per-fte-year")
    cluster_fte = inputs.gpu_count / 1000.0 * assumptions.number("cluster-ops-fte-per-1000-gpus")
    lines = [
        CostLine(
            part="staff",
            item="cluster operations (SRE, network, automation, remote hands)",
            catalog_id=None,
            quantity=cluster_fte,
            unit="FTE",
            unit_price_usd=price,
            total_usd=cluster_fte * price,
            trace=derived(
                assumption_trace(assumptions, "cluster-ops-fte-per-1000-gpus"), price_trace
            ),
        )
    ]
    if owned_model == "on-prem":
        price, price_trace = staff_price(inputs, assumptions, "facility-staff-usd-per-fte-year")
        sites = sum(1 for site in inputs.sites if site.gpu_share > 0)
        facility_fte = sites * assumptions.number("facility-ops-fte-per-site")
        lines.append(
            CostLine(
                part="staff",
                item=f"facility operations, 24x7 ({sites} site(s))",
                catalog_id=None,
                quantity=facility_fte,
                unit="FTE",
                unit_price_usd=price,
                total_usd=facility_fte * price,
                trace=derived(
                    assumption_trace(assumptions, "facility-ops-fte-per-site"), price_trace
                ),
            )
        )
    return lines


def maintenance_line(assumptions: Assumptions, hardware: list[CostLine]) -> CostLine:
    fraction = assumptions.number("maintenance-fraction-of-hardware-capex")
    base = total(hardware)
    return CostLine(
        part="maintenance",
        item="hardware maintenance and support contracts",
        catalog_id=None,
        quantity=base,
        unit="USD of priced hardware capex",
        unit_price_usd=fraction,
        total_usd=fraction * base,
        trace=assumption_trace(assumptions, "maintenance-fraction-of-hardware-capex"),
        note="includes RMA replacement of failed systems, switches and NICs",
    )


def licence_line(inputs: CostInputs, assumptions: Assumptions) -> CostLine:
    price = assumptions.number("software-licence-usd-per-gpu-year")
    return CostLine(
        part="licences",
        item="GPU software licence",
        catalog_id=None,
        quantity=inputs.gpu_count,
        unit="GPUs",
        unit_price_usd=price,
        total_usd=price * inputs.gpu_count,
        trace=assumption_trace(assumptions, "software-licence-usd-per-gpu-year"),
    )


def egress_lines(inputs: CostInputs) -> list[CostLine]:
    lines = []
    if inputs.sources.get("egress_usd_per_month") == "regions engine":
        lines.append(
            CostLine(
                part="wan_egress",
                item="WAN egress (gradients, checkpoints, dataset replication)",
                catalog_id=None,
                quantity=12.0,
                unit="months",
                unit_price_usd=inputs.egress_usd_per_month,
                total_usd=inputs.egress_usd_per_month * 12.0,
                trace=Trace("engine", "regions.egress", "regions engine egress cost per month"),
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
                    "design",
                    "regions.wan_links.*.egress_usd_per_gb",
                    "egress price per GB given in the design",
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
    inputs: CostInputs, catalog: Catalog, network: list[CostLine], storage: list[CostLine]
) -> tuple[list[CostLine], list[dict]]:
    """Parts bought to replace failures that no support contract covers: optics / cables and
    storage drives. Other components are listed as covered by maintenance."""
    lines: list[CostLine] = []
    engine = {failure.component: failure for failure in inputs.failures}
    optics = [line for line in network if line.extra.get("bom_category") == "optics"]
    optics_units = sum(line.quantity or 0.0 for line in optics)
    for line in optics:
        if engine.get("optics") is not None and optics_units:
            per_unit = engine["optics"].failures_per_year / optics_units
            rate_trace = Trace("engine", "reliability.components.optics", "reliability engine rate")
        elif OPTICS_RATE_ID in catalog.failure_rates:
            per_unit, rate_trace = _rate_trace(catalog, OPTICS_RATE_ID)
        else:
            continue
        failures = (line.quantity or 0.0) * per_unit
        unit_price = line.unit_price_usd
        lines.append(
            CostLine(
                part="replacement_parts",
                item=f"replacement: {line.item}",
                catalog_id=line.catalog_id,
                quantity=failures,
                unit="failures/year",
                unit_price_usd=unit_price,
                total_usd=None if unit_price is None else failures * unit_price,
                trace=UNPRICED if unit_price is None else derived(rate_trace, line.trace),
                note=f"{per_unit:.4g} failures per unit-year ({rate_trace.price_source})",
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
