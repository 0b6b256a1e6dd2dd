"""A simple network BOM derived from the spec, used only when the fabric engine's BOM is absent.

Clos sizing from the switch radix: leaves hold `R x o / (1 + o)` endpoints (o = leaf
oversubscription), each spine has R ports; a third tier is added when the leaves outnumber the
radix. Optics: a single-port module at the NIC and twin-port modules at the switch (DGX
SuperPOD NDR practice) for 400G NICs; other speeds get generic, uncatalogued link-end lines.
Good to a few switches; the fabric engine is the authority.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from models_engine.catalog import Catalog, SwitchSku

# Catalog optics used for 400G NIC ports (SuperPOD NDR): one OSFP 400G at the HCA, one twin-port
# 800G (2 x 400G) module per two switch ports.
NIC_END_400G = "osfp-400g-sr4-mm"
SWITCH_END_2X400G = "osfp-800g-2xsr4-mm"


@dataclass(frozen=True)
class BomLine:
    """One bill-of-materials line as the cost engine reads it (from the fabric engine or here)."""

    item: str
    catalog_id: str | None
    category: str  # switch | nic | optics | scale-up | other
    quantity: float
    unit_price_usd: float | None
    unit_power_w: float | None
    network: str | None = None  # compute | storage | frontend


@dataclass(frozen=True)
class ClosSize:
    tiers: int
    leaves: int
    spines: int
    cores: int
    links: int  # switch-to-switch links

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.cores


def clos_size(endpoints: int, radix: int, leaf_oversubscription: float = 1.0) -> ClosSize:
    """Switch counts of a folded Clos for `endpoints` ports on switches of `radix` ports."""
    if endpoints <= 0:
        return ClosSize(0, 0, 0, 0, 0)
    if endpoints <= radix:
        return ClosSize(1, 1, 0, 0, 0)
    down = max(1, math.floor(radix * leaf_oversubscription / (1.0 + leaf_oversubscription)))
    up = radix - down
    leaves = math.ceil(endpoints / down)
    leaf_uplinks = leaves * up
    if leaves <= radix:
        spines = math.ceil(leaf_uplinks / radix)
        return ClosSize(2, leaves, spines, 0, leaf_uplinks)
    # Three tiers: spines split their ports half down, half up to the core.
    spines = math.ceil(leaf_uplinks / (radix // 2))
    spine_uplinks = spines * (radix // 2)
    cores = math.ceil(spine_uplinks / radix)
    return ClosSize(3, leaves, spines, cores, leaf_uplinks + spine_uplinks)


def _effective_radix(switch: SwitchSku | None, port_speed_gbps: float) -> int:
    if switch is None:
        return 64
    if (
        switch.breakout_ports
        and switch.breakout_port_speed_gbit_per_s
        and port_speed_gbps <= switch.breakout_port_speed_gbit_per_s < switch.port_speed_gbit_per_s
    ):
        return switch.breakout_ports
    return switch.radix_ports


def _price(catalog: Catalog, kind: str, catalog_id: str | None) -> float | None:
    entry = getattr(catalog, kind).get(catalog_id) if catalog_id else None
    return getattr(entry, "price_usd", None) if entry is not None else None


def _power(catalog: Catalog, kind: str, catalog_id: str | None) -> float | None:
    entry = getattr(catalog, kind).get(catalog_id) if catalog_id else None
    if entry is None:
        return None
    return getattr(entry, "power_typical_w", None) or getattr(entry, "power_w", None)


def _network_lines(
    catalog: Catalog,
    *,
    network: str,
    ports: int,
    speed_gbps: int,
    nic_id: str | None,
    switch_id: str | None,
    oversubscription: float,
) -> tuple[list[BomLine], ClosSize]:
    switch = catalog.switches.get(switch_id) if switch_id else None
    size = clos_size(ports, _effective_radix(switch, speed_gbps), oversubscription)
    lines = [
        BomLine(
            item=f"{network} NIC port ({speed_gbps} Gb/s)",
            catalog_id=nic_id,
            category="nic",
            quantity=ports,
            unit_price_usd=_price(catalog, "nics", nic_id),
            unit_power_w=_power(catalog, "nics", nic_id),
            network=network,
        )
    ]
    if size.switches:
        lines.append(
            BomLine(
                item=f"{network} fabric switch ({size.tiers} tier(s))",
                catalog_id=switch_id,
                category="switch",
                quantity=size.switches,
                unit_price_usd=_price(catalog, "switches", switch_id),
                unit_power_w=_power(catalog, "switches", switch_id),
                network=network,
            )
        )
    switch_ports = ports + 2 * size.links
    if speed_gbps == 400:
        lines += [
            BomLine(
                item=f"{network} optics, NIC end (400G OSFP)",
                catalog_id=NIC_END_400G,
                category="optics",
                quantity=ports,
                unit_price_usd=_price(catalog, "optics", NIC_END_400G),
                unit_power_w=_power(catalog, "optics", NIC_END_400G),
                network=network,
            ),
            BomLine(
                item=f"{network} optics, switch end (twin-port 2 x 400G OSFP)",
                catalog_id=SWITCH_END_2X400G,
                category="optics",
                quantity=math.ceil(switch_ports / 2),
                unit_price_usd=_price(catalog, "optics", SWITCH_END_2X400G),
                unit_power_w=_power(catalog, "optics", SWITCH_END_2X400G),
                network=network,
            ),
        ]
    else:
        lines.append(
            BomLine(
                item=f"{network} optics / cable ends ({speed_gbps} Gb/s links)",
                catalog_id=None,
                category="optics",
                quantity=ports + switch_ports,
                unit_price_usd=None,
                unit_power_w=None,
                network=network,
            )
        )
    return lines, size


def fallback_bom(spec, catalog: Catalog) -> tuple[list[BomLine], int]:
    """(BOM lines, compute-fabric tiers) derived from the spec's fabric section."""
    compute, fabric = spec.compute, spec.fabric
    nodes = compute.gpu_count // compute.gpus_per_node
    lines, size = _network_lines(
        catalog,
        network="compute",
        ports=nodes * fabric.nics_per_node,
        speed_gbps=fabric.nic_speed_gbps,
        nic_id=fabric.nic_sku,
        switch_id=fabric.switch_sku,
        oversubscription=fabric.oversubscription.leaf,
    )
    for name, aux in (("storage", fabric.storage_network), ("frontend", fabric.frontend_network)):
        if aux.mode != "separate":
            continue
        aux_lines, _ = _network_lines(
            catalog,
            network=name,
            ports=nodes * aux.nics_per_node,
            speed_gbps=aux.nic_speed_gbps,
            nic_id=None,
            switch_id=None,
            oversubscription=1.0,
        )
        lines += aux_lines
    return lines, max(size.tiers, 1)
