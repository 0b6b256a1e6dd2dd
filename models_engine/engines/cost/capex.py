"""Capex lines of an owned build: compute, scale-up, network, storage, facility, installation,
spares. Each line carries its trace; a line nobody can price keeps `total_usd = None`.

Compute: systems x system price, or GPUs x GPU price plus host content at Epoch's server
overhead (1.64 x the GPU price). Network: every BOM line at its catalog price; a part that a
system's price includes is priced at zero with an `included` trace; when every compute-fabric
line of a category (switches, optics) is unpriced, one allowance line per GPU (Cheah's
spreadsheet) stands in for them and the lines are marked as covered. Storage: per tier, on raw
TB after the durability overhead. Facility: construction $/MW of IT load by redundancy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from models_engine.catalog import Catalog

from .assumptions import Assumptions
from .fabric_fallback import BomLine
from .inputs import CostInputs
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
    """Systems (or GPUs + hosts); `gpu_scale` multiplies the GPU content (sensitivity)."""
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
                item=system.name,
                catalog_id=system.id,
                quantity=inputs.systems,
                unit="systems",
                unit_price_usd=unit_scaled,
                total_usd=unit_scaled * inputs.systems,
                trace=trace,
                depreciation=HARDWARE,
                gpu_content_usd=content * gpu_scale * inputs.systems,
                extra={"gpus_per_system": per_system},
            )
        ]
    if gpu.usd is None:
        item = system.name if system is not None else inputs.gpu.name
        return [
            CostLine(
                part="compute",
                item=item,
                catalog_id=system.id if system is not None else inputs.gpu.id,
                quantity=inputs.systems if system is not None else inputs.gpu_count,
                unit="systems" if system is not None else "GPUs",
                unit_price_usd=None,
                total_usd=None,
                trace=UNPRICED,
                depreciation=HARDWARE,
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
            item=f"GPU {inputs.gpu.name}",
            catalog_id=gpu_id,
            quantity=inputs.gpu_count,
            unit="GPUs",
            unit_price_usd=unit,
            total_usd=unit * inputs.gpu_count,
            trace=gpu.trace,
            depreciation=HARDWARE,
            note=note,
            gpu_content_usd=unit * inputs.gpu_count,
        ),
        CostLine(
            part="compute",
            item="host content per GPU (CPUs, DRAM, NVSwitch board, NICs, SSD, PSU)",
            catalog_id=None,
            quantity=inputs.gpu_count,
            unit="GPUs",
            unit_price_usd=host_unit,
            total_usd=host_unit * inputs.gpu_count,
            trace=derived(gpu.trace, overhead_trace),
            depreciation=HARDWARE,
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


def _included_nic_ports(inputs: CostInputs, bundled: set[str]) -> float:
    if "nics" not in bundled:
        return 0.0
    if _priced_by_system(inputs):
        system = inputs.system
        per_system = (system.scale_out_nics_per_system or 0) + (system.storage_nics_per_system or 0)
        return float(per_system * inputs.systems)
    fabric = inputs.spec.fabric
    storage = fabric.storage_network
    per_node = fabric.nics_per_node + (storage.nics_per_node if storage.mode == "separate" else 0)
    return float(per_node * inputs.nodes)


def _included_trace(inputs: CostInputs) -> Trace:
    if not _priced_by_system(inputs):
        return Trace("included", "compute host content", "part of the derived host content")
    system = inputs.system
    return Trace("included", f"systems/{system.id}", f"included in the {system.name} price")


def _catalog_unit_price(catalog: Catalog, line: BomLine) -> Price | None:
    for kind in ("switches", "nics", "optics"):
        entry = getattr(catalog, kind).get(line.catalog_id) if line.catalog_id else None
        if entry is not None and entry.price_usd is not None:
            return Price(entry.price_usd, catalog_trace(kind, entry))
    return None


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
        note=note,
        extra={
            "bom_category": line.category,
            "network": line.network,
            "unit_power_w": line.unit_power_w,
        },
    )


def _allocate_included_nics(bom: tuple[BomLine, ...], ports: float) -> dict[int, float]:
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


def bom_lines(inputs: CostInputs, catalog: Catalog, assumptions: Assumptions) -> list[CostLine]:
    """Scale-up and network lines from the BOM (every line listed, priced or not)."""
    bundled = _bundled(inputs, assumptions)
    included_nics = _allocate_included_nics(inputs.bom, _included_nic_ports(inputs, bundled))
    out: list[CostLine] = []
    for index, line in enumerate(inputs.bom):
        part = "scale_up" if line.category == "scale-up" else "network"
        if line.category == "scale-up" and "scale-up" in bundled:
            out.append(_bom_line(line, part, Price(0.0, _included_trace(inputs))))
            continue
        included = included_nics.get(index, 0.0)
        if included > 0:
            out.append(
                _bom_line(
                    replace(line, quantity=included),
                    part,
                    Price(0.0, _included_trace(inputs)),
                )
            )
            if included >= line.quantity:
                continue
            line = replace(line, quantity=line.quantity - included)
        price = _catalog_unit_price(catalog, line)
        if price is None and line.unit_price_usd is not None:
            price = Price(
                line.unit_price_usd,
                Trace(
                    "engine",
                    "fabric.bom",
                    "unit price given by the fabric engine (not in the catalog)",
                ),
            )
        out.append(_bom_line(line, part, price or Price(None, UNPRICED)))
    out += _default_scale_up(inputs, out)
    return _with_allowances(inputs, assumptions, out)


def _default_scale_up(inputs: CostInputs, lines: list[CostLine]) -> list[CostLine]:
    """Scale-up switching when the BOM has none: inside the system, or unpriced for a custom
    multi-node domain."""
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
                item=f"scale-up switching for a {domain.gpus}-GPU custom NVLink domain",
                catalog_id=None,
                quantity=inputs.gpu_count / domain.gpus,
                unit="domains",
                unit_price_usd=None,
                total_usd=None,
                trace=UNPRICED,
                depreciation=HARDWARE,
            )
        ]
    if system is not None and system.nvlink_switch_trays:
        item, catalog_id = "NVLink switch trays", "nvlink5-switch-tray"
        quantity = float(system.nvlink_switch_trays * inputs.systems)
        unit = "trays"
    else:
        item, catalog_id, quantity, unit = (
            "NVSwitch baseboard",
            None,
            float(inputs.systems),
            "boards",
        )
    return [
        CostLine(
            part="scale_up",
            item=item,
            catalog_id=catalog_id,
            quantity=quantity,
            unit=unit,
            unit_price_usd=0.0,
            total_usd=0.0,
            trace=_included_trace(inputs),
            depreciation=HARDWARE,
        )
    ]


def _allowance(
    assumptions: Assumptions, category: str, inputs: CostInputs, uncovered: list[CostLine]
) -> CostLine:
    if category == "nic":
        quantity = sum(line.quantity or 0.0 for line in uncovered)
        unit_price = assumptions.number("nic-allowance-usd-per-port")
        assumption_id, unit, label = "nic-allowance-usd-per-port", "NIC ports", "NICs"
    else:
        key = ALLOWANCE_KEYS[category]
        quantity = float(inputs.gpu_count)
        unit_price = assumptions.number(
            "network-allowance-usd-per-gpu", f"{key}-{inputs.fabric_tiers}-tier"
        )
        assumption_id, unit = "network-allowance-usd-per-gpu", "GPUs"
        label = f"{key.replace('-', ' and ')} ({inputs.fabric_tiers}-tier)"
    return CostLine(
        part="network",
        item=f"allowance for unpriced compute-fabric {label}",
        catalog_id=None,
        quantity=quantity,
        unit=unit,
        unit_price_usd=unit_price,
        total_usd=unit_price * quantity,
        trace=assumption_trace(assumptions, assumption_id),
        depreciation=HARDWARE,
        note="stands in for the unpriced lines marked covered_by_allowance",
    )


def _with_allowances(
    inputs: CostInputs, assumptions: Assumptions, lines: list[CostLine]
) -> list[CostLine]:
    """One allowance line per category whose compute-fabric lines are all unpriced."""
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
        if not compute or any(out[i].priced for i in compute):
            continue
        for i in compute:
            out[i] = replace(out[i], covered_by_allowance=True)
        out.append(_allowance(assumptions, category, inputs, [out[i] for i in compute]))
    return out


def storage_lines(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> tuple[list[CostLine], list[CostLine]]:
    """(capex lines, service lines in USD per year) for every storage tier."""
    bundled = _bundled(inputs, assumptions)
    capex: list[CostLine] = []
    services: list[CostLine] = []
    for tier in inputs.tiers:
        label = f"storage tier {tier.index} ({tier.kind})"
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
                    note="service price per usable TB-month x 12 (durability included)",
                    extra=extra,
                )
            )
            continue
        quantity = tier.raw_tb if (sku.price_basis or "raw") == "raw" else tier.usable_tb
        unit_price = sku.price_usd_per_tb
        if unit_price is not None and tier.usable_tb:
            extra = {**extra, "usd_per_usable_tb": unit_price * quantity / tier.usable_tb}
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
                note=note if unit_price is not None else "no price per TB in the catalog",
                extra=extra,
            )
        )
    return capex, services


def construction_usd_per_mw(assumptions: Assumptions, redundancy: str) -> tuple[float, Trace]:
    base = assumptions.number("construction-usd-per-mw-it")
    share = assumptions.number("construction-critical-capacity-share")
    factors = assumptions.value("redundancy-installed-capacity-factor")
    baseline = assumptions.value("construction-baseline-redundancy")
    ratio = float(factors[redundancy]) / float(factors[baseline])
    trace = derived(
        assumption_trace(assumptions, "construction-usd-per-mw-it"),
        assumption_trace(assumptions, "construction-critical-capacity-share"),
        assumption_trace(assumptions, "redundancy-installed-capacity-factor"),
    )
    return base * (1.0 - share + share * ratio), trace


def facility_lines(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> list[CostLine]:
    """Construction of an owned data hall at each site that hosts GPUs (on-prem only)."""
    redundancy = inputs.spec.facility.power_redundancy
    per_mw, trace = construction_usd_per_mw(assumptions, redundancy)
    cooling = catalog.cooling.get(inputs.spec.facility.cooling)
    out = []
    for site in inputs.sites:
        if site.gpu_share <= 0:
            continue
        it_kw = inputs.it_power_kw * site.gpu_share
        out.append(
            CostLine(
                part="facility",
                item=f"data-hall construction, {redundancy} power, site {site.id}",
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


def installation_and_spares(
    inputs: CostInputs, assumptions: Assumptions, hardware: list[CostLine]
) -> list[CostLine]:
    hardware_usd = total(hardware)
    compute = [line for line in hardware if line.part == "compute"]
    compute_usd = total(compute)
    fraction = assumptions.number("installation-fraction-of-hardware-capex")
    lines = [
        CostLine(
            part="installation",
            item="installation, integration and burn-in",
            catalog_id=None,
            quantity=hardware_usd,
            unit="USD of priced hardware",
            unit_price_usd=fraction,
            total_usd=fraction * hardware_usd,
            trace=assumption_trace(assumptions, "installation-fraction-of-hardware-capex"),
            depreciation=HARDWARE,
        )
    ]
    if inputs.hot_spare_nodes is not None and inputs.nodes:
        per_node = compute_usd / inputs.nodes
        lines.append(
            CostLine(
                part="spares",
                item="hot-spare nodes (reliability engine)",
                catalog_id=compute[0].catalog_id if compute else None,
                quantity=inputs.hot_spare_nodes,
                unit="nodes",
                unit_price_usd=per_node,
                total_usd=per_node * inputs.hot_spare_nodes,
                trace=derived(*(line.trace for line in compute)),
                depreciation=HARDWARE,
                gpu_content_usd=sum(line.gpu_content_usd for line in compute)
                * inputs.hot_spare_nodes
                / inputs.nodes,
            )
        )
    else:
        spare = assumptions.number("spares-fraction-of-compute")
        lines.append(
            CostLine(
                part="spares",
                item="spare compute capacity",
                catalog_id=None,
                quantity=compute_usd,
                unit="USD of priced compute",
                unit_price_usd=spare,
                total_usd=spare * compute_usd,
                trace=assumption_trace(assumptions, "spares-fraction-of-compute"),
                depreciation=HARDWARE,
                gpu_content_usd=spare * sum(line.gpu_content_usd for line in compute),
            )
        )
    return lines
