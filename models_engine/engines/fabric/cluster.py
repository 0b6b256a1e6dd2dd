"""The cluster's networks: one compute fabric per site plus the WAN equipment between sites,
with the cluster BOM (every line tagged with its site) and totals."""

from __future__ import annotations

from models_engine.sites import SiteSlice, site_slices

from .report import power_block
from .result import (
    FabricPower,
    FabricPrice,
    FabricResult,
    FabricTotals,
    SiteFabric,
    SwitchCounts,
    WanPlan,
)
from .wan import build_wan


def size_site_fabric(site: SiteSlice, catalog) -> SiteFabric:
    """Every network of one site, sized to that site's GPUs."""
    from . import evaluate_site_networks

    return SiteFabric(
        site_id=site.site_id,
        site_name=site.site_name,
        gpus=site.gpus,
        **evaluate_site_networks(site.spec, catalog),
    )


def evaluate_fabric(spec, catalog, sites: list[SiteSlice] | None = None) -> FabricResult:
    """The networks of a design (`DesignSpec`): a fabric per GPU site, the WAN between them."""
    sites = site_slices(spec) if sites is None else sites
    fabrics = [size_site_fabric(site, catalog) for site in sites]
    wan = build_wan(spec, catalog)
    bom = [
        line.model_copy(update={"site": fabric.site_id})
        for fabric in fabrics
        for line in fabric.bom
    ] + (list(wan.bom) if wan else [])
    lines = [line.model_dump() for line in bom]
    return FabricResult(
        sites=fabrics,
        wan=wan,
        totals=_totals(fabrics, wan),
        bom=bom,
        power_w=FabricPower(**power_block(lines)),
        price_usd=FabricPrice(
            known_total=sum(line.total_price_usd or 0.0 for line in bom),
            items_without_price=sorted({line.item for line in bom if line.unit_price_usd is None}),
        ),
        findings=[
            {**finding, "site": fabric.site_id} for fabric in fabrics for finding in fabric.findings
        ]
        + [{**finding, "site": None} for finding in (wan.findings if wan else [])],
    )


def _totals(fabrics: list[SiteFabric], wan: WanPlan | None) -> FabricTotals:
    def total(attribute) -> int:
        return sum(attribute(fabric.scale_out) for fabric in fabrics)

    leaf = total(lambda so: so.switches.leaf)
    spine = total(lambda so: so.switches.spine)
    core = total(lambda so: so.switches.core)
    return FabricTotals(
        sites=len(fabrics),
        gpus=sum(fabric.gpus for fabric in fabrics),
        nodes=total(lambda so: so.nodes),
        switches=SwitchCounts(leaf=leaf, spine=spine, core=core, total=leaf + spine + core),
        transceivers=total(lambda so: so.transceivers.total),
        cables=total(lambda so: so.cables["total"]),
        nic_cards=total(lambda so: so.nics.cards),
        wan_routers=sum(wan.routers_by_site.values()) if wan else 0,
        wan_transceivers=wan.transceivers if wan else 0,
    )
