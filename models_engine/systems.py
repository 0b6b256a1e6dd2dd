"""The system (server or rack-scale system) a design is built from, resolved once: power, height,
GPUs and compute nodes per system, cooling need. Catalog first, then a derivation from the GPU.

Shared by the fabric engine (node placement, NICs in the system) and the facility engine (racks,
power), next to `models_engine.hardware`, so neither engine imports the other.
References are to ../shared/reference/fabric_power.md [S..]."""

from __future__ import annotations

import math
from dataclasses import dataclass

# Host overhead of a GPU server: system max power / GPU TDP. DGX H100: 10.2 kW / (8 x 0.7 kW)
# = 1.82 ([S21] 10.2 kW; [S10] 700 W; the same ratio is Epoch's server power model, cost.md).
# Used only when neither the design nor the catalog gives the system's power.
HOST_POWER_OVERHEAD_FACTOR = 10.2 / (8 * 0.7)
# Rack space per GPU when the system's height is unknown: DGX H100 is 8U for 8 GPUs ([S20]).
RACK_UNITS_PER_GPU_DEFAULT = 1.0
# Usable height of a standard EIA-310 rack (assumption; PDUs mount 0U at the back).
RACK_USABLE_UNITS = 42


@dataclass(frozen=True)
class SystemFigures:
    id: str | None
    name: str
    form: str  # "server" or "rack"
    gpus_per_system: int
    nodes_per_system: int  # compute nodes (NVL72: 18 trays) per system
    power_max_kw: float  # one system, provisioning figure
    gpu_power_kw: float  # the GPUs' share of it (TDP)
    rack_units: int | None
    liquid_cooling_required: bool
    scale_out_nics_per_system: int | None
    price_usd: float | None
    power_source: str  # "catalog" or "derived"


def _candidate_sku(compute, catalog):
    if compute.system_sku:
        return catalog.get("systems", compute.system_sku)
    if compute.gpu_sku is None:
        return None
    matches = [s for s in catalog.systems.values() if s.gpu_id == compute.gpu_sku]
    want_rack = compute.nvlink_domain.gpus > compute.gpus_per_node
    matches.sort(key=lambda s: ((s.form == "rack") != want_rack, not s.id.startswith("dgx"), s.id))
    return matches[0] if matches else None


def resolve_system(compute, catalog, gpu) -> SystemFigures:
    """`compute` spec section, catalog and resolved GPU figures -> SystemFigures."""
    sku = _candidate_sku(compute, catalog)
    if sku is not None:
        gpus = sku.gpus_per_system
        gpu_kw = gpus * gpu.tdp_w / 1000.0
        power, source = sku.power_max_kw, "catalog"
        if power is None:
            power, source = gpu_kw * HOST_POWER_OVERHEAD_FACTOR, "derived"
        return SystemFigures(
            id=sku.id,
            name=sku.name,
            form=sku.form,
            gpus_per_system=gpus,
            nodes_per_system=max(1, gpus // compute.gpus_per_node),
            power_max_kw=power,
            gpu_power_kw=min(gpu_kw, power),
            rack_units=sku.rack_units,
            liquid_cooling_required=sku.liquid_cooling_required,
            scale_out_nics_per_system=sku.scale_out_nics_per_system,
            price_usd=sku.price_usd,
            power_source=source,
        )
    gpus = max(compute.gpus_per_node, compute.nvlink_domain.gpus)
    form = "rack" if gpus > compute.gpus_per_node else "server"
    gpu_kw = gpus * gpu.tdp_w / 1000.0
    return SystemFigures(
        id=None,
        name=f"{gpu.name} system ({gpus} GPUs, derived)",
        form=form,
        gpus_per_system=gpus,
        nodes_per_system=max(1, gpus // compute.gpus_per_node),
        power_max_kw=gpu_kw * HOST_POWER_OVERHEAD_FACTOR,
        gpu_power_kw=gpu_kw,
        rack_units=None if form == "rack" else math.ceil(gpus * RACK_UNITS_PER_GPU_DEFAULT),
        liquid_cooling_required=False,
        scale_out_nics_per_system=None,
        price_usd=None,
        power_source="derived",
    )


def systems_per_rack(system: SystemFigures, rack_limit_kw: float) -> int:
    """Systems in one rack: a rack-scale system fills its rack; servers are limited by the
    rack power limit and by height. Never less than one (a finding reports the overload)."""
    if system.form == "rack":
        return 1
    by_power = math.floor(rack_limit_kw / system.power_max_kw + 1e-9)
    by_space = RACK_USABLE_UNITS // system.rack_units if system.rack_units else by_power
    return max(1, min(by_power, by_space))


def nodes_per_rack(system: SystemFigures, rack_limit_kw: float) -> int:
    return systems_per_rack(system, rack_limit_kw) * system.nodes_per_system
