"""Bill-of-materials lines: one per item, with unit and total power and price.

`unit_power_w` is the typical (energy) figure, `unit_power_max_w` the provisioning figure
(fabric_power.md: "use max with active cables for provisioning and typical for energy").
Unknown figures are null, and totals built from them are null too, never a silent zero.
"""

from __future__ import annotations

from .data import CAGE_POWER_BUDGET_W, DEFAULT_CAGE_POWER_BUDGET_W


def _times(value: float | None, quantity: int) -> float | None:
    return None if value is None else value * quantity


def bom_line(
    *,
    item: str,
    catalog_id: str | None,
    category: str,
    network: str,
    quantity: int,
    unit_power_w: float | None,
    unit_power_max_w: float | None,
    unit_price_usd: float | None,
    placement: str | None = None,
    rack_units: int | None = None,
    note: str | None = None,
    power_basis: str | None = None,
    speed_gbps: float | None = None,
) -> dict:
    """One BOM row. `placement`: where the item draws power ("network rack", "compute rack",
    or None for passive cables); `rack_units`: height of one unit for rack-mounted gear;
    `power_basis`: where the power comes from (default: catalog, or allowance when the note
    says so; None when there is no figure)."""
    if power_basis is None and unit_power_w is not None:
        power_basis = "allowance" if (note or "").startswith("allowance") else "catalog"
    return {
        "item": item,
        "catalog_id": catalog_id,
        "category": category,
        "network": network,
        "quantity": quantity,
        "unit_power_w": unit_power_w,
        "unit_power_max_w": unit_power_max_w,
        "unit_price_usd": unit_price_usd,
        "total_power_w": _times(unit_power_w, quantity),
        "total_power_max_w": _times(unit_power_max_w, quantity),
        "total_price_usd": _times(unit_price_usd, quantity),
        "placement": placement,
        "rack_units": rack_units,
        "note": note,
        "power_basis": power_basis,
        "speed_gbps": speed_gbps,
    }


def switch_chassis_power_w(switch) -> tuple[float | None, float | None, str | None]:
    """(typical W, max W without optics, note) of one switch chassis.

    A max figure that already includes optics (QM9700: 1.72 kW "with active cables") is split
    into chassis + modules by the cage power budget, so optics are counted once, on their own
    BOM lines.
    """
    typical = switch.power_typical_w
    maximum = switch.power_max_w
    note = None
    if maximum is not None and switch.power_max_includes_optics:
        cages = switch.osfp_cages or switch.radix_ports
        budget = CAGE_POWER_BUDGET_W.get(switch.id, DEFAULT_CAGE_POWER_BUDGET_W)
        maximum = max(maximum - cages * budget, typical or 0.0)
        note = (
            f"max {switch.power_max_w:g} W includes optics; chassis = max - {cages} cages x "
            f"{budget:g} W (derived)"
        )
    elif maximum is None and typical is not None:
        maximum = typical
        note = "max power not published: typical used for provisioning"
    if typical is None and maximum is not None:
        typical = maximum  # errs high for energy, never a silent 0 W
        note = (note + "; " if note else "") + "typical power not published: max used for energy"
    return typical, maximum, note


def switch_power_allowance_w(switch, catalog) -> tuple[float, float, str] | None:
    """(typical W, max chassis W, note) for a switch with no published power: the watts per
    Tb/s of switching capacity of the newest catalog switch of the same protocol that has
    figures, times this switch's capacity. An allowance, marked so in the note; None when no
    peer has figures. Newer SerDes draw fewer W per Tb/s, so it errs high (safe for
    provisioning)."""
    peers = [
        entry
        for entry in catalog.switches.values()
        if entry.fabric == switch.fabric
        and entry.form == "switch"
        and entry.id != switch.id
        and entry.power_typical_w
    ]
    if not peers:
        return None
    peer = max(peers, key=lambda entry: (entry.port_speed_gbit_per_s, entry.id))
    peer_typical, peer_max, _ = switch_chassis_power_w(peer)
    scale = switch.switching_capacity_tbit_per_s / peer.switching_capacity_tbit_per_s
    note = (
        f"allowance: no published power; {peer.id} figures x {scale:.2f} "
        f"({switch.switching_capacity_tbit_per_s:g} / {peer.switching_capacity_tbit_per_s:g} "
        "Tb/s switching capacity)"
    )
    return peer_typical * scale, (peer_max or peer_typical) * scale, note


def sum_field(lines: list[dict], key: str, **where) -> float:
    """Sum of `key` over lines matching `where`, treating unknown (null) as 0."""
    total = 0.0
    for line in lines:
        if all(line.get(k) == v for k, v in where.items()):
            total += line.get(key) or 0.0
    return total
