"""Capex lines of an owned build, per site: compute, scale-up, network (the fabric BOM of every
site and the WAN / DCI equipment), storage, facility, installation; plus the cluster's hot
spares. Each line carries its trace and its site; a line nobody can price keeps
`total_usd = None`.

Compute: the site's systems (facility engine) x system price, or the site's GPUs x GPU price
plus host content at Epoch's server overhead (1.64 x the GPU price). Network: every BOM line at
its catalog price; a part that a system's price includes is priced at zero with an `included`
trace; when every compute-fabric line of a category (switches, optics) at a site is unpriced,
one allowance line per GPU of that site (Cheah's spreadsheet, at the site fabric's tiers)
stands in for them and the lines are marked as covered. Storage: each site's tiers, on raw TB
after the durability overhead (storage engine). Facility: construction $/MW of the site's IT
load by redundancy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from models_engine.catalog import KINDS, Catalog

from .allowances import line_allowance
from .assumptions import Assumptions
from .inputs import BomLine, CostInputs, SiteInputs
from .trace import (
    UNPRICED,
    CostLine,
    Trace,
    assumption_trace,
    catalog_trace,
    derived,
    override_trace,
    storage_service_line,
    total,
)

HARDWARE = "hardware"
FACILITY = "facility"
# Media that price a shared tier when the design names no storage SKU.
DEFAULT_MEDIA = {
    "local-nvme": "nvme-ssd-raw",
    "parallel-fs": "nvme-ssd-raw",
    "object-store": "hdd-sas-raw",
}
# BOM categories a per-GPU allowance may stand in for (NICs have a per-port allowance).
ALLOWANCE_KEYS = {"switch": "switches", "optics": "optics-cables"}


@dataclass(frozen=True)
class Price:
    usd: float | None
    trace: Trace


def gpu_price(inputs: CostInputs) -> Price:
    overrides = inputs.spec.economics.price_overrides
    if overrides.gpu_price_usd is not None:
        return Price(
            overrides.gpu_price_usd, override_trace("economics.price_overrides.gpu_price_usd")
        )
    custom = inputs.spec.compute.custom_gpu
    if custom is not None:
        return Price(
            custom.price_usd,
            Trace("design", "compute.custom_gpu.price_usd", "custom GPU price given in the design"),
        )
    sku = inputs.gpu_sku
    if sku is not None and sku.price_usd is not None:
        return Price(sku.price_usd, catalog_trace("gpus", sku))
    return Price(None, UNPRICED)


def system_price(inputs: CostInputs) -> Price:
    overrides = inputs.spec.economics.price_overrides
    if overrides.system_price_usd is not None:
        return Price(
            overrides.system_price_usd, override_trace("economics.price_overrides.system_price_usd")
        )
    system = inputs.system
    if system is not None and system.price_usd is not None:
        return Price(system.price_usd, catalog_trace("systems", system))
    return Price(None, UNPRICED)


def _overhead_key(inputs: CostInputs) -> str:
    return "a100" if inputs.gpu.id.startswith("a100") else "default"


def compute_lines(inputs: CostInputs, assumptions: Assumptions, gpu_scale: float) -> list[CostLine]:
    """Each site's systems (or GPUs + hosts); `gpu_scale` multiplies the GPU content
    (sensitivity)."""
    return [
        line
        for site in inputs.sites
        for line in _site_compute_lines(inputs, site, assumptions, gpu_scale)
    ]


def _site_compute_lines(
    inputs: CostInputs, site: SiteInputs, assumptions: Assumptions, gpu_scale: float
) -> list[CostLine]:
    gpu, system_p = gpu_price(inputs), system_price(inputs)
    overhead = assumptions.number("server-price-overhead", _overhead_key(inputs))
    overhead_trace = assumption_trace(assumptions, "server-price-overhead")
    system = inputs.system
    gpu_overridden = gpu.trace.kind == "override"
    if system is not None and system_p.usd is not None:
        per_system = system.gpus_per_system
        unit, trace = system_p.usd, system_p.trace
        if gpu.usd is not None and (not gpu_overridden or system_p.trace.kind == "override"):
            content = min(unit, per_system * gpu.usd)
        elif gpu_overridden:
            # The design prices the GPU: swap the catalog GPU content for the override.
            catalog_gpu = inputs.gpu_sku.price_usd if inputs.gpu_sku else None
            old = per_system * catalog_gpu if catalog_gpu else unit / overhead
            content = per_system * gpu.usd
            unit = unit - old + content
            trace = (
                derived(system_p.trace, gpu.trace)
                if catalog_gpu
                else derived(system_p.trace, gpu.trace, overhead_trace)
            )
        else:
            content = unit / overhead
        unit_scaled = unit + content * (gpu_scale - 1.0)
        return [
            CostLine(
                part="compute",
                item=f"{system.name}, site {site.id}",
                catalog_id=system.id,
                quantity=site.systems,
                unit="systems",
                unit_price_usd=unit_scaled,
                total_usd=unit_scaled * site.systems,
                trace=trace,
                depreciation=HARDWARE,
                site=site.id,
                gpu_content_usd=content * gpu_scale * site.systems,
                extra={"gpus_per_system": per_system},
            )
        ]
    if gpu.usd is None:
        item = system.name if system is not None else inputs.gpu.name
        return [
            CostLine(
                part="compute",
                item=f"{item}, site {site.id}",
                catalog_id=system.id if system is not None else inputs.gpu.id,
                quantity=site.systems if system is not None else site.gpus,
                unit="systems" if system is not None else "GPUs",
                unit_price_usd=None,
                total_usd=None,
                trace=UNPRICED,
                depreciation=HARDWARE,
                site=site.id,
                note="no system or GPU price in the catalog; set an override",
            )
        ]
    note = (
        f"system {system.id} has no price: GPUs plus host content at the server overhead"
        if system is not None
        else None
    )
    unit = gpu.usd * gpu_scale
    host_unit = gpu.usd * (overhead - 1.0)
    gpu_id = None if inputs.gpu.id == "custom" else inputs.gpu.id
    return [
        CostLine(
            part="compute",
            item=f"GPU {inputs.gpu.name}, site {site.id}",
            catalog_id=gpu_id,
            quantity=site.gpus,
            unit="GPUs",
            unit_price_usd=unit,
            total_usd=unit * site.gpus,
            trace=gpu.trace,
            depreciation=HARDWARE,
            site=site.id,
            note=note,
            gpu_content_usd=unit * site.gpus,
        ),
        CostLine(
            part="compute",
            item="host content per GPU (CPUs, DRAM, NVSwitch board, NICs, SSD, PSU), "
            f"site {site.id}",
            catalog_id=None,
            quantity=site.gpus,
            unit="GPUs",
            unit_price_usd=host_unit,
            total_usd=host_unit * site.gpus,
            trace=derived(gpu.trace, overhead_trace),
            depreciation=HARDWARE,
            site=site.id,
            note=f"GPU price x (server overhead {overhead:g} - 1)",
        ),
    ]


def _priced_by_system(inputs: CostInputs) -> bool:
    """True when compute is priced as whole systems; otherwise as GPUs plus host content."""
    return inputs.system is not None and system_price(inputs).usd is not None


def _bundled(inputs: CostInputs, assumptions: Assumptions) -> set[str]:
    """Parts the compute price already includes: the system's list (scale-up always), or,
    for GPUs plus host content, what Epoch's server overhead covers (NVSwitch board, NICs,
    SSD) for a scale-up domain inside the node."""
    if _priced_by_system(inputs):
        table = assumptions.value("system-bundled-content")
        return {"scale-up", *table.get(inputs.system.id, [])}
    compute = inputs.spec.compute
    host = {"nics", "local-nvme"}
    if compute.nvlink_domain.gpus <= compute.gpus_per_node:
        host.add("scale-up")
    return host


def _included_nic_ports(inputs: CostInputs, site: SiteInputs | None, bundled: set[str]) -> float:
    """NIC ports of a site that its compute price includes."""
    if "nics" not in bundled or site is None:
        return 0.0
    if _priced_by_system(inputs):
        system = inputs.system
        per_system = (system.scale_out_nics_per_system or 0) + (system.storage_nics_per_system or 0)
        return float(per_system * site.systems)
    fabric = inputs.spec.fabric
    storage = fabric.storage_network
    per_node = fabric.nics_per_node + (storage.nics_per_node if storage.mode == "separate" else 0)
    return float(per_node * site.nodes)


def _included_trace(inputs: CostInputs) -> Trace:
    if not _priced_by_system(inputs):
        return Trace("included", "compute host content", "part of the derived host content")
    system = inputs.system
    return Trace("included", f"systems/{system.id}", f"included in the {system.name} price")


def _catalog_unit_price(catalog: Catalog, line: BomLine) -> Price | None:
    """The catalog price of a BOM line's part, whatever kind of entry it is (an entry whose
    price is an allowance says so in `price_allowance`)."""
    if not line.catalog_id:
        return None
    for kind in KINDS:
        entry = getattr(catalog, kind).get(line.catalog_id)
        price = getattr(entry, "price_usd", None) if entry is not None else None
        if price is not None:
            return Price(price, catalog_trace(kind, entry))
    return None


def _catalog_allowance_note(catalog: Catalog, line: BomLine) -> str | None:
    for kind in KINDS:
        entry = getattr(catalog, kind).get(line.catalog_id) if line.catalog_id else None
        if entry is not None and entry.price_allowance:
            return f"allowance: {entry.price_allowance}"
    return None


def _category_allowance_applies(line: BomLine) -> bool:
    """Compute-fabric switches, optics and NICs fall back on the per-GPU / per-port category
    allowances (Cheah's spreadsheet); other lines get a per-line allowance."""
    return line.network in (None, "compute") and line.category in ("optics", "nic")


def _bom_line(line: BomLine, part: str, price: Price, note: str | None = None) -> CostLine:
    unit = price.usd
    return CostLine(
        part=part,
        item=line.item,
        catalog_id=line.catalog_id,
        quantity=line.quantity,
        unit="units",
        unit_price_usd=unit,
        total_usd=None if unit is None else unit * line.quantity,
        trace=price.trace,
        depreciation=HARDWARE,
        site=line.site,
        note=note,
        extra={
            "bom_category": line.category,
            "fabric_category": line.fabric_category,
            "network": line.network,
            "unit_power_w": line.unit_power_w,
            "speed_gbps": line.speed_gbps,
        },
    )


def _allocate_included_nics(bom: list[BomLine], ports: float) -> dict[int, float]:
    """NIC ports the compute price includes, given to compute-fabric lines first, then the
    storage network (a DGX carries both), then any other network."""
    order = {"compute": 0, None: 0, "storage": 1}
    nic_lines = sorted(
        (i for i, line in enumerate(bom) if line.category == "nic"),
        key=lambda i: (order.get(bom[i].network, 2), i),
    )
    out = {}
    for index in nic_lines:
        if ports <= 0:
            break
        out[index] = min(ports, bom[index].quantity)
        ports -= out[index]
    return out


def _by_site(lines: Iterable, site_ids: list[str | None]) -> dict[str | None, list]:
    """Lines grouped by their `site`, in the order of `site_ids`, then any other site."""
    groups: dict[str | None, list] = {site_id: [] for site_id in site_ids}
    for line in lines:
        groups.setdefault(line.site, []).append(line)
    return groups


def bom_lines(inputs: CostInputs, catalog: Catalog, assumptions: Assumptions) -> list[CostLine]:
    """Scale-up and network lines from the cluster BOM, site by site (every line listed,
    priced or not, including the WAN / DCI equipment each site holds)."""
    bundled = _bundled(inputs, assumptions)
    out: list[CostLine] = []
    groups = _by_site(inputs.bom, [site.id for site in inputs.sites])
    for site_id, bom in groups.items():
        site = inputs.site(site_id)
        included_nics = _allocate_included_nics(bom, _included_nic_ports(inputs, site, bundled))
        lines: list[CostLine] = []
        for index, line in enumerate(bom):
            part = "scale_up" if line.category == "scale-up" else "network"
            if line.category == "scale-up" and "scale-up" in bundled:
                lines.append(_bom_line(line, part, Price(0.0, _included_trace(inputs))))
                continue
            included = included_nics.get(index, 0.0)
            if included > 0:
                lines.append(
                    _bom_line(
                        replace(line, quantity=included),
                        part,
                        Price(0.0, _included_trace(inputs)),
                    )
                )
                if included >= line.quantity:
                    continue
                line = replace(line, quantity=line.quantity - included)
            lines.append(_priced_bom_line(catalog, assumptions, line, part))
        if site is not None:
            lines += _default_scale_up(inputs, site, lines)
            lines = _with_allowances(inputs, site, assumptions, lines)
        out += lines
    return out


def _priced_bom_line(
    catalog: Catalog, assumptions: Assumptions, line: BomLine, part: str
) -> CostLine:
    """A BOM line at its catalog price, else the fabric engine's figure, else a per-line
    allowance (marked), else unpriced (left to the compute-fabric category allowance)."""
    price = _catalog_unit_price(catalog, line)
    note = _catalog_allowance_note(catalog, line) if price is not None else None
    if price is None and line.unit_price_usd is not None:
        price = Price(
            line.unit_price_usd,
            Trace(
                "engine", "fabric.bom", "unit price given by the fabric engine (not in the catalog)"
            ),
        )
    if price is None and not _category_allowance_applies(line):
        allowance = line_allowance(catalog, assumptions, line)
        if allowance is not None:
            price, note = Price(allowance.usd, allowance.trace), allowance.note
    cost_line = _bom_line(line, part, price or Price(None, UNPRICED), note)
    if note is not None:
        cost_line.extra["allowance"] = True
    return cost_line


def _default_scale_up(
    inputs: CostInputs, site: SiteInputs, lines: list[CostLine]
) -> list[CostLine]:
    """Scale-up switching of a site when the BOM has none: inside the system, or unpriced for
    a custom multi-node domain."""
    if any(line.part == "scale_up" for line in lines):
        return []
    domain = inputs.spec.compute.nvlink_domain
    system = inputs.system
    if domain.kind == "pcie":
        return []
    if domain.gpus > inputs.spec.compute.gpus_per_node and (
        system is None or system.form != "rack"
    ):
        return [
            CostLine(
                part="scale_up",
                item=f"scale-up switching for a {domain.gpus}-GPU custom NVLink domain, "
                f"site {site.id}",
                catalog_id=None,
                quantity=site.gpus / domain.gpus,
                unit="domains",
                unit_price_usd=None,
                total_usd=None,
                trace=UNPRICED,
                depreciation=HARDWARE,
                site=site.id,
            )
        ]
    if system is not None and system.nvlink_switch_trays:
        item, catalog_id = "NVLink switch trays", "nvlink5-switch-tray"
        quantity = float(system.nvlink_switch_trays * site.systems)
        unit = "trays"
    else:
        item, catalog_id, quantity, unit = (
            "NVSwitch baseboard",
            None,
            float(site.systems),
            "boards",
        )
    return [
        CostLine(
            part="scale_up",
            item=f"{item}, site {site.id}",
            catalog_id=catalog_id,
            quantity=quantity,
            unit=unit,
            unit_price_usd=0.0,
            total_usd=0.0,
            trace=_included_trace(inputs),
            depreciation=HARDWARE,
            site=site.id,
        )
    ]


def _allowance(
    assumptions: Assumptions,
    category: str,
    site: SiteInputs,
    uncovered: list[CostLine],
    priced_usd: float,
) -> CostLine:
    """The allowance for a category's unpriced compute-fabric lines at a site.

    NICs: the per-port allowance x the unpriced ports. Switches and optics: the spreadsheet's
    per-GPU cost of the whole category at the site's tiers, less what the category's priced
    lines already cost (never below zero), so a priced line added to the category can only
    replace allowance, never drop the total below what it was.
    """
    if category == "nic":
        quantity = sum(line.quantity or 0.0 for line in uncovered)
        unit_price = assumptions.number("nic-allowance-usd-per-port")
        assumption_id, unit, label = "nic-allowance-usd-per-port", "NIC ports", "NICs"
        total_usd = unit_price * quantity
        note = "stands in for the unpriced lines marked covered_by_allowance"
    else:
        key = ALLOWANCE_KEYS[category]
        tiers = min(3, max(1, site.fabric_tiers))  # the spreadsheet has 1 to 3 tiers
        quantity = float(site.gpus)
        unit_price = assumptions.number("network-allowance-usd-per-gpu", f"{key}-{tiers}-tier")
        assumption_id, unit = "network-allowance-usd-per-gpu", "GPUs"
        label = f"{key.replace('-', ' and ')} ({tiers}-tier)"
        whole = unit_price * quantity
        total_usd = max(0.0, whole - priced_usd)
        note = "stands in for the unpriced lines marked covered_by_allowance"
        if priced_usd > 0:
            note += (
                f" (category allowance {whole:,.0f} USD less {priced_usd:,.0f} USD of priced lines)"
            )
    return CostLine(
        part="network",
        item=f"allowance for unpriced compute-fabric {label}, site {site.id}",
        catalog_id=None,
        quantity=quantity,
        unit=unit,
        unit_price_usd=unit_price,
        total_usd=total_usd,
        trace=assumption_trace(assumptions, assumption_id),
        depreciation=HARDWARE,
        site=site.id,
        note=note,
        extra={"allowance": True},
    )


def _with_allowances(
    inputs: CostInputs, site: SiteInputs, assumptions: Assumptions, lines: list[CostLine]
) -> list[CostLine]:
    """One allowance line per category with unpriced compute-fabric lines at the site."""
    out = list(lines)
    for category in (*ALLOWANCE_KEYS, "nic"):
        compute = [
            i
            for i, line in enumerate(out)
            if line.part == "network"
            and line.extra.get("bom_category") == category
            and line.extra.get("network") in (None, "compute")
            and line.trace.kind != "included"
        ]
        unpriced_lines = [i for i in compute if not out[i].priced]
        if not unpriced_lines:
            continue
        priced_usd = sum(out[i].total_usd or 0.0 for i in compute if out[i].priced)
        allowance = _allowance(
            assumptions, category, site, [out[i] for i in unpriced_lines], priced_usd
        )
        if allowance.total_usd:  # an exhausted allowance covers nothing: lines stay unpriced
            for i in unpriced_lines:
                out[i] = replace(out[i], covered_by_allowance=True)
        out.append(allowance)
    return out


def capex_completeness(lines: list[CostLine]) -> dict:
    """How much of a capex total rests on prices (catalog, override, design, sourced
    assumption) and how much on allowances, and which lines have neither.

    `priced_share_by_value` = (total - allowance lines) / total; lines with no price and no
    allowance have no value to count, so they are listed and counted, never hidden.
    """
    total_usd = sum(line.total_usd or 0.0 for line in lines)
    allowances = [line for line in lines if line.extra.get("allowance")]
    allowance_usd = sum(line.total_usd or 0.0 for line in allowances)
    uncovered = [line for line in lines if not line.priced and not line.covered_by_allowance]
    return {
        "total_usd": total_usd,
        "allowance_usd": allowance_usd,
        "priced_share_by_value": (total_usd - allowance_usd) / total_usd if total_usd else None,
        "allowance_lines": [
            {
                "item": line.item,
                "site": line.site,
                "total_usd": line.total_usd,
                "price_source": line.trace.price_source,
            }
            for line in allowances
        ],
        "covered_by_allowance_count": sum(1 for line in lines if line.covered_by_allowance),
        "unpriced_not_covered": [
            {"item": line.item, "part": line.part, "site": line.site} for line in uncovered
        ],
        "complete": not uncovered,
        "basis": (
            "share of capex priced from the catalog, a design or team price, or a sourced "
            "assumption; the rest is allowances, each listed with its source"
        ),
    }


def storage_lines(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> tuple[list[CostLine], list[CostLine]]:
    """(capex lines, service lines in USD per year) for every storage tier of every site."""
    bundled = _bundled(inputs, assumptions)
    capex: list[CostLine] = []
    services: list[CostLine] = []
    for tier in inputs.tiers:
        label = f"storage tier {tier.index} ({tier.kind}), site {tier.site}"
        extra = {
            "usable_tb": tier.usable_tb,
            "raw_tb": tier.raw_tb,
            "durability_overhead": tier.overhead,
        }
        if tier.kind == "local-nvme" and "local-nvme" in bundled:
            capex.append(
                CostLine(
                    part="storage",
                    item=label,
                    catalog_id=None,
                    quantity=tier.raw_tb,
                    unit="TB raw",
                    unit_price_usd=0.0,
                    total_usd=0.0,
                    trace=_included_trace(inputs),
                    depreciation=HARDWARE,
                    site=tier.site,
                    extra=extra,
                )
            )
            continue
        sku = catalog.storage.get(tier.sku) if tier.sku else None
        note = None
        if sku is None:
            sku = catalog.storage[DEFAULT_MEDIA[tier.kind]]
            note = "raw media only (servers, controllers and software not priced)"
        if sku.price_usd_per_tb_month is not None and sku.price_usd_per_tb is None:
            services.append(
                storage_service_line(
                    f"{label}: {sku.name}",
                    sku,
                    tier.usable_tb,
                    site=tier.site,
                    note="service price per usable TB-month x 12 (durability included)",
                    extra=extra,
                )
            )
            continue
        quantity = tier.raw_tb if (sku.price_basis or "raw") == "raw" else tier.usable_tb
        unit_price = sku.price_usd_per_tb
        if unit_price is not None and tier.usable_tb:
            extra = {**extra, "usd_per_usable_tb": unit_price * quantity / tier.usable_tb}
        if unit_price is not None and sku.price_allowance:
            extra = {**extra, "allowance": True}
            note = f"allowance: {sku.price_allowance}"
        capex.append(
            CostLine(
                part="storage",
                item=f"{label}: {sku.name}",
                catalog_id=sku.id,
                quantity=quantity,
                unit=f"TB {sku.price_basis or 'raw'}",
                unit_price_usd=unit_price,
                total_usd=None if unit_price is None else unit_price * quantity,
                trace=UNPRICED if unit_price is None else catalog_trace("storage", sku),
                depreciation=HARDWARE,
                site=tier.site,
                note=note if unit_price is not None else "no price per TB in the catalog",
                extra=extra,
            )
        )
    return capex, services


# Paid hours in one FTE-year (40 h x 52 weeks): the loaded yearly cost as an hourly rate.
PAID_HOURS_PER_FTE_YEAR = 2080.0


def construction_usd_per_mw(assumptions: Assumptions, tier: str) -> tuple[float, Trace]:
    """Construction cost per MW of critical load at an Uptime tier: the current C&W figure at
    its baseline tier, scaled by the Uptime cost model's ratio between tiers (one basis)."""
    base = assumptions.number("construction-usd-per-mw-it")
    by_tier = assumptions.value("construction-tier-usd-per-kw")
    baseline = assumptions.value("construction-baseline-tier")
    ratio = float(by_tier[tier]) / float(by_tier[baseline])
    trace = derived(
        assumption_trace(assumptions, "construction-usd-per-mw-it"),
        assumption_trace(assumptions, "construction-baseline-tier"),
        assumption_trace(assumptions, "construction-tier-usd-per-kw"),
    )
    return base * ratio, trace


def facility_lines(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> list[CostLine]:
    """Construction of an owned data hall at each site that hosts GPUs (on-prem only), sized
    to the site's provisioned IT load (facility engine)."""
    facility = inputs.spec.facility
    redundancy = f"{facility.power_redundancy} power / {facility.cooling_redundancy} cooling"
    out = []
    for site in inputs.sites:
        per_mw, trace = construction_usd_per_mw(assumptions, site.uptime_tier)
        cooling = catalog.cooling.get(site.cooling_id)  # what the facility engine built
        it_kw = site.it_power_kw
        out.append(
            CostLine(
                part="facility",
                item=f"data-hall construction, Tier {site.uptime_tier} ({redundancy}), "
                f"site {site.id}",
                catalog_id=None,
                quantity=it_kw / 1000.0,
                unit="MW IT",
                unit_price_usd=per_mw,
                total_usd=per_mw * it_kw / 1000.0,
                trace=trace,
                depreciation=FACILITY,
                site=site.id,
                note="critical power and cooling plant, shell, site and white space; "
                "excludes land, fit-out and soft costs",
            )
        )
        if cooling is not None and cooling.capex_usd_per_kw is not None:
            out.append(
                CostLine(
                    part="facility",
                    item=f"cooling ({cooling.id}), site {site.id}",
                    catalog_id=cooling.id,
                    quantity=it_kw,
                    unit="kW IT",
                    unit_price_usd=cooling.capex_usd_per_kw,
                    total_usd=cooling.capex_usd_per_kw * it_kw,
                    trace=catalog_trace("cooling", cooling),
                    depreciation=FACILITY,
                    site=site.id,
                )
            )
    return out


def fraction_of_hardware_lines(
    inputs: CostInputs,
    assumptions: Assumptions,
    hardware: list[CostLine],
    *,
    assumption_id: str,
    part: str,
    item: str,
    cluster_item: str = "",
    **extra,
) -> list[CostLine]:
    """One line per site (and one for the cluster-wide lines): an assumed fraction of that
    site's priced hardware capex."""
    fraction = assumptions.number(assumption_id)
    trace = assumption_trace(assumptions, assumption_id)
    out = []
    for site_id, lines in _by_site(hardware, [site.id for site in inputs.sites]).items():
        if not lines:
            continue
        base = total(lines)
        out.append(
            CostLine(
                part=part,
                item=item + (f", site {site_id}" if site_id is not None else cluster_item),
                catalog_id=None,
                quantity=base,
                unit="USD of priced hardware capex",
                unit_price_usd=fraction,
                total_usd=fraction * base,
                trace=trace,
                site=site_id,
                **extra,
            )
        )
    return out


def installation_lines(inputs: CostInputs, assumptions: Assumptions) -> list[CostLine]:
    """Installation, cabling, burn-in and commissioning of each site's racks: technician hours
    per rack (facility engine's rack count) at the facility technician's loaded hourly rate."""
    hours = assumptions.number("installation-hours-per-rack")
    rate = assumptions.number("facility-staff-usd-per-fte-year") / PAID_HOURS_PER_FTE_YEAR
    trace = derived(
        assumption_trace(assumptions, "installation-hours-per-rack"),
        assumption_trace(assumptions, "facility-staff-usd-per-fte-year"),
    )
    return [
        CostLine(
            part="installation",
            item=f"installation, cabling, burn-in and commissioning, site {site.id}",
            catalog_id=None,
            quantity=site.racks * hours,
            unit="technician hours",
            unit_price_usd=rate,
            total_usd=site.racks * hours * rate,
            trace=trace,
            depreciation=HARDWARE,
            site=site.id,
            note=f"{site.racks} racks x {hours:g} h x ${rate:,.2f}/h",
        )
        for site in inputs.sites
    ]


def spares_line(inputs: CostInputs, hardware: list[CostLine]) -> CostLine:
    """The reliability engine's hot-spare nodes for the job, at the cluster's compute price
    per node (a cluster-wide line: the engine sizes spares for the whole job)."""
    compute = [line for line in hardware if line.part == "compute"]
    spares = inputs.hot_spare_nodes
    priced = all(line.priced for line in compute)
    per_node = total(compute) / inputs.nodes if priced else None
    return CostLine(
        part="spares",
        item="hot-spare nodes (reliability engine)",
        catalog_id=compute[0].catalog_id if compute else None,
        quantity=spares,
        unit="nodes",
        unit_price_usd=per_node,
        total_usd=None if per_node is None else per_node * spares,
        trace=derived(*(line.trace for line in compute)) if priced else UNPRICED,
        depreciation=HARDWARE,
        gpu_content_usd=sum(line.gpu_content_usd for line in compute) * spares / inputs.nodes,
    )
