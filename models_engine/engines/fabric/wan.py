"""WAN / data-centre-interconnect equipment between sites, from `regions.wan_links`.

Rules (constants and their sources in `data.py`):
- Coherent pluggable by the link's fibre route: 400ZR up to its 120 km reach, OpenZR+ beyond it up
  to its reach over an amplified line system; beyond that a line system or a leased wavelength is
  needed: reported as a finding and an unpriced BOM line, never skipped.
- Per link: ports per end = ceil(bandwidth / module speed); transceivers = 2 x ports (one module
  per port at each end).
- Per site: routers = max(WAN_MIN_ROUTERS_PER_SITE, ceil(WAN ports at the site / WAN ports per
  router)), WAN ports per router = the router's cages x WAN_PORT_SHARE_OF_ROUTER (the other half
  faces the site's fabric).
- The amplifiers, mux/demux and the fibre itself are not priced (findings say so).
"""

from __future__ import annotations

import math

from .bom import bom_line
from .data import (
    FIBRE_KM_PER_MS_ONE_WAY,
    UNAMPLIFIED_COHERENT_REACH_KM,
    WAN_MIN_ROUTERS_PER_SITE,
    WAN_OPTICS_BY_REACH,
    WAN_PORT_SHARE_OF_ROUTER,
    WAN_ROUTER_SKU,
)
from .result import BomLine, WanLinkPlan, WanPlan
from .roce import finding

BEYOND_REACH = "beyond-pluggable-reach"
_REACH_CLASS = {"qsfpdd-400g-zr": "400zr", "qsfpdd-400g-zrp": "openzr+"}


def fibre_km(rtt_ms: float) -> float:
    """One-way fibre route length implied by a round-trip time (upper bound)."""
    return rtt_ms / 2.0 * FIBRE_KM_PER_MS_ONE_WAY


def _optic_for(catalog, km: float):
    """The shortest-reach coherent pluggable that spans `km`, or None beyond all of them."""
    optics = sorted(
        (catalog.get("optics", i) for i in WAN_OPTICS_BY_REACH), key=lambda o: o.reach_m
    )
    return next((optic for optic in optics if km * 1000.0 <= optic.reach_m), None)


def _link_plan(link, router, catalog, port_gbps: float) -> WanLinkPlan:
    km = fibre_km(link.rtt_ms)
    optic = _optic_for(catalog, km)
    ports = math.ceil(link.bandwidth_gbps / port_gbps)
    return WanLinkPlan(
        from_site=link.from_site,
        to_site=link.to_site,
        bandwidth_gbps=link.bandwidth_gbps,
        rtt_ms=link.rtt_ms,
        fibre_km_estimate=km,
        reach_class=_REACH_CLASS[optic.id] if optic else BEYOND_REACH,
        ports_per_end=ports,
        port_speed_gbps=port_gbps,
        transceivers=2 * ports if optic else 0,
        router_sku=router.id,
        optic_sku=optic.id if optic else None,
        line_system_needed=optic is None or km > UNAMPLIFIED_COHERENT_REACH_KM,
    )


def build_wan(spec, catalog) -> WanPlan | None:
    """The WAN equipment of a design, or None when it has no WAN links."""
    links = spec.regions.wan_links
    if not links:
        return None
    router = catalog.get("switches", WAN_ROUTER_SKU)
    # One 400G coherent module per router cage (the coherent pluggables are all 400G).
    port_gbps = catalog.get("optics", WAN_OPTICS_BY_REACH[0]).speed_gbit_per_s
    plans = [_link_plan(link, router, catalog, port_gbps) for link in links]
    cages = router.osfp_cages or router.radix_ports
    per_router = max(1, math.floor(cages * WAN_PORT_SHARE_OF_ROUTER))

    ports: dict[str, int] = {}
    modules: dict[tuple[str, str], int] = {}
    for plan in plans:
        for site in (plan.from_site, plan.to_site):
            ports[site] = ports.get(site, 0) + plan.ports_per_end
            if plan.optic_sku:
                key = (site, plan.optic_sku)
                modules[key] = modules.get(key, 0) + plan.ports_per_end
    routers = {
        site: max(WAN_MIN_ROUTERS_PER_SITE, math.ceil(count / per_router))
        for site, count in ports.items()
    }
    bom = _bom(catalog, router, routers, modules, plans)
    return WanPlan(
        router_sku=router.id,
        wan_ports_per_router=per_router,
        links=plans,
        ports_by_site=ports,
        routers_by_site=routers,
        transceivers=sum(plan.transceivers for plan in plans),
        bom=bom,
        findings=_findings(spec, plans, routers),
    )


UNPRICED_HERE = "no public price: unpriced here, priced by a cost-engine allowance"


def _bom(catalog, router, routers, modules, plans) -> list[BomLine]:
    lines = []
    for site, count in routers.items():
        lines.append(
            bom_line(
                item=f"WAN / DCI router: {router.name}",
                catalog_id=router.id,
                category="router",
                network="wan",
                quantity=count,
                unit_power_w=router.power_typical_w,
                unit_power_max_w=router.power_max_w or router.power_typical_w,
                unit_price_usd=router.price_usd,
                placement="network rack",
                rack_units=router.rack_units,
                note=None if router.price_usd else UNPRICED_HERE,
            )
            | {"site": site}
        )
    for (site, optic_id), count in modules.items():
        optic = catalog.get("optics", optic_id)
        lines.append(
            bom_line(
                item=f"WAN coherent optic: {optic.name}",
                catalog_id=optic.id,
                category="transceiver",
                network="wan",
                quantity=count,
                unit_power_w=optic.power_w,
                unit_power_max_w=optic.power_max_w
                if optic.power_max_w is not None
                else optic.power_w,
                unit_price_usd=optic.price_usd,
                placement="network rack",
                note=None if optic.price_usd else UNPRICED_HERE,
            )
            | {"site": site}
        )
    for plan in plans:
        if plan.optic_sku is None:
            lines.append(
                bom_line(
                    item=f"long-haul transport {plan.from_site}-{plan.to_site} "
                    "(leased wavelengths or a DWDM line system)",
                    catalog_id=None,
                    category="wan-transport",
                    network="wan",
                    quantity=plan.ports_per_end,
                    unit_power_w=None,
                    unit_power_max_w=None,
                    unit_price_usd=None,
                    placement=None,
                    note=f"~{plan.fibre_km_estimate:,.0f} km is beyond coherent pluggable reach: "
                    "a carrier's line system (its power is not on site)",
                    power_basis="external",
                )
                | {"site": plan.from_site}
            )
    return [BomLine.model_validate(line) for line in lines]


def _findings(spec, plans: list[WanLinkPlan], routers: dict[str, int]) -> list[dict]:
    out = []
    for index, plan in enumerate(plans):
        path = f"regions.wan_links.{index}"
        if plan.optic_sku is None:
            out.append(
                finding(
                    "wan-beyond-pluggable-reach",
                    "warning",
                    f"{plan.from_site}-{plan.to_site}: ~{plan.fibre_km_estimate:,.0f} km of fibre "
                    f"(from {plan.rtt_ms:g} ms RTT) is beyond coherent pluggable reach: "
                    f"{plan.ports_per_end} x {plan.port_speed_gbps:g}G leased wavelengths or a "
                    "long-haul line system are needed (not priced)",
                    path,
                )
            )
        elif plan.line_system_needed:
            out.append(
                finding(
                    "wan-line-system-not-priced",
                    "info",
                    f"{plan.from_site}-{plan.to_site}: ~{plan.fibre_km_estimate:,.0f} km needs "
                    f"amplifiers and mux/demux for {plan.reach_class} beyond "
                    f"{UNAMPLIFIED_COHERENT_REACH_KM:g} km: the line system and the fibre are "
                    "not priced",
                    path,
                )
            )
    gpu_sites = {site.id for site in spec.regions.sites if site.gpu_share > 0}
    for site in sorted(set(routers) - gpu_sites):
        out.append(
            finding(
                "wan-site-without-facility",
                "info",
                f"site {site} hosts no GPUs: its {routers[site]} WAN router(s) are in the BOM "
                "but in no site's racks or IT power",
                "regions.sites",
            )
        )
    return out
