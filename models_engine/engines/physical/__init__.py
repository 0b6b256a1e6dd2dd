"""Physical-plan engine: halls, rows and racks with every device at its U position, and the
cable schedule from port to port with cable type and length class.

    evaluate_physical(spec, catalog, *, fabric, facility, network) -> PhysicalResult
    cable_schedule(spec, catalog, physical, fabric, network) -> Iterator[Cable]
    placed_devices(spec, physical) -> per site, devices by group

Reads the fabric's switches, links, media and what they reach (`FabricResult`), the facility's
racks (compute, network, storage), their contents, power and CDUs (`FacilityResult`) and the
logical topology (`NetworkResult`); it never re-derives their counts. It owns each run's length
(the shared model in `models_engine/cable_runs.py`) and errors where a run exceeds its
medium's reach. The result keeps one template per distinct rack and the floor as runs; evaluate
counts runs with numpy (`runs.RunCounter`), and the full cable list is regenerated on demand
from the result (`cable_schedule`).
"""

from __future__ import annotations

from collections.abc import Iterator

from models_engine.engines.fabric.result import FabricResult, SiteFabric
from models_engine.engines.facility.result import FacilityResult, SiteFacility
from models_engine.engines.network.result import NetworkResult

from .cabling import (
    Cable,
    FloorGeometry,
    SiteCabling,
    cable_type_reach_m,
    chosen_types,
    tally_runs,
)
from .data import CABLE_TYPE_LABEL
from .devices import PlacedDevice, site_devices
from .elevation import compute_templates, gear_of, network_templates, storage_templates
from .findings import (
    assumptions_of,
    cable_findings,
    gear_height_assumptions,
    height_assumptions,
    rack_findings,
    reach_class_assumptions,
)
from .floor import lay_out, positions_from_floor, rack_names, rack_order
from .result import CableClass, PhysicalResult, SitePhysical
from .runs import RunCounter

__all__ = [
    "Cable",
    "PhysicalResult",
    "PlacedDevice",
    "cable_schedule",
    "evaluate_physical",
    "placed_devices",
]


def evaluate_physical(
    spec, catalog, *, fabric: FabricResult, facility: FacilityResult, network: NetworkResult
) -> PhysicalResult:
    sites = []
    for site_fabric in fabric.sites:
        sites.append(
            _site(
                spec,
                catalog,
                site_fabric,
                facility.site(site_fabric.site_id),
                _network_site(network, site_fabric.site_id),
                fabric,
            )
        )
    findings = [f for s in sites for f in s.findings]
    return PhysicalResult(
        sites=sites,
        assumptions=assumptions_of(spec)
        + height_assumptions(facility.sites)
        + gear_height_assumptions(fabric.bom)
        + reach_class_assumptions(fabric.sites),
        findings=findings,
        breakdown={
            "racks_by_kind": _sum_by_kind(sites),
            "cables_by_length_class": _cables_by(sites, "length_class"),
            "cables_by_type": _cables_by(sites, "cable_type"),
        },
    )


def _network_site(network: NetworkResult, site_id: str):
    return next((s for s in network.sites if s.site_id == site_id), None)


def _site(
    spec, catalog, fabric: SiteFabric, facility: SiteFacility, network, whole
) -> SitePhysical:
    physical = spec.physical
    height = physical.rack_height_u
    redundancy = spec.facility.power_redundancy
    bom = whole.site_bom(fabric.site_id)
    sku = catalog.systems.get(facility.system["id"]) if facility.system["id"] else None
    liquid = facility.cooling.liquid_loop is not None
    node_links = _node_links_per_node(fabric)
    templates = compute_templates(facility, sku, node_links, height, redundancy, liquid)
    templates += network_templates(facility, gear_of(fabric, bom), height, redundancy)
    templates += storage_templates(
        facility, _links_per_appliance(fabric, facility), height, redundancy
    )
    spans = _leaf_rack_spans(fabric, templates)
    liquid_templates = {t.template for t in templates if t.liquid_cooled}
    cdus = int((facility.cooling.liquid_loop or {}).get("cdus") or 0)
    floor, positions = lay_out(
        rack_order(templates, spans),
        physical.racks_per_row,
        physical.rows_per_hall,
        cdus,
        liquid_templates,
    )
    devices = site_devices(templates, positions)
    types = chosen_types(fabric, physical)
    counter = RunCounter(fabric, network, devices, FloorGeometry.of(physical), types)
    classes = _classes(counter.count(), types, catalog, fabric)
    rows = max((run.row for run in floor), default=0)
    halls = max((run.hall for run in floor), default=0)
    by_kind = {"compute": 0, "network": 0, "storage": 0}
    for t in templates:
        by_kind[t.kind] += t.racks
    findings = rack_findings(templates, fabric.site_id) + cable_findings(
        classes, types, fabric.site_id
    )
    return SitePhysical(
        site_id=fabric.site_id,
        site_name=fabric.site_name,
        rack_height_u=height,
        halls=halls,
        rows=rows,
        racks=sum(by_kind.values()),
        racks_by_kind=by_kind,
        cdus=cdus,
        templates=templates,
        floor=floor,
        cables=classes,
        cable_links=sum(c.links for c in classes),
        findings=findings,
    )


def _node_links_per_node(fabric: SiteFabric) -> int:
    """NIC links that leave a compute rack per node (every switch sits in a network rack)."""
    nodes = max(fabric.scale_out.nodes, 1)
    links = fabric.scale_out.links.get("node_leaf")
    total = links.links if links else 0
    for aux in (fabric.frontend_network, fabric.storage_network):
        if aux.mode == "separate" and aux.nic_ports:
            total += aux.nic_ports
    return -(-total // nodes)


def _links_per_appliance(fabric: SiteFabric, facility: SiteFacility) -> int:
    """Storage-network target ports per storage appliance (the fabric's target ports over the
    facility's appliances); 0 when the storage network is converged."""
    appliances = sum(
        int(r["items"][0]["what"].rpartition(" x")[2]) * r["count"]
        for r in facility.racks
        if r["kind"] == "storage"
    )
    targets = fabric.storage_network.storage_target_ports or 0
    return -(-targets // appliances) if appliances else 0


def _leaf_rack_spans(fabric: SiteFabric, templates) -> dict[str, tuple[int, int]]:
    """Leaf rack -> (first, last) compute rack index its leaves serve, for the compute fabric's
    leaves and the separate frontend and storage networks' leaves."""
    compute = [t for t in templates if t.kind == "compute"]
    nodes_per_rack = (
        max((sum(1 for d in t.devices if d.group == "node") for t in compute), default=1) or 1
    )
    out = fabric.scale_out
    spans: dict[str, tuple[int, int]] = {}
    group = out.links.get("node_leaf")
    if group and out.switches.leaf:
        rail = (out.nodes_per_su, out.leaves_per_su) if out.nodes_per_su else None
        spans |= _spans_of(
            templates,
            "compute/leaf",
            group.links,
            out.switches.leaf,
            out.nodes,
            nodes_per_rack,
            rail,
        )
    for name in ("frontend", "storage"):
        aux = getattr(fabric, f"{name}_network")
        links = aux.links.get("node_leaf")
        leaves = next((t["switches"] for t in aux.tiers if t["tier"] == "leaf"), 0)
        if aux.mode == "separate" and aux.nic_ports and links and leaves:
            spans |= _spans_of(
                templates,
                f"{name}/leaf",
                links["links"],
                leaves,
                out.nodes,
                nodes_per_rack,
                None,
                node_links=aux.nic_ports,
            )
    return spans


def _spans_of(templates, group, links, leaves, nodes, nodes_per_rack, rail, node_links=None):
    """Spans of the racks holding `group` leaves: leaf i serves the node ports packed onto
    it in order (or, on a rail-optimized fabric, the nodes of its scalable unit)."""
    per_node = max(1, (node_links or links) // max(nodes, 1))
    per_leaf = -(-links // leaves)
    spans, leaf = {}, 0
    for template in templates:
        here = sum(1 for d in template.devices if d.group == group)
        if not here:
            continue
        for name in rack_names(template):
            first_leaf, last_leaf = leaf, leaf + here - 1
            leaf += here
            if rail:
                nodes_per_su, leaves_per_su = rail
                first_node = first_leaf // leaves_per_su * nodes_per_su
                last_node = (last_leaf // leaves_per_su + 1) * nodes_per_su - 1
            else:
                first_node = first_leaf * per_leaf // per_node
                last_node = ((last_leaf + 1) * per_leaf - 1) // per_node
            last_node = max(first_node, min(last_node, nodes - 1))
            spans[name] = (first_node // nodes_per_rack, last_node // nodes_per_rack)
    return spans


def _summarise(cables, types, catalog, fabric) -> list[CableClass]:
    """The cable classes of a full schedule (the stored summary of `_site`, counted again)."""
    return _classes(tally_runs(cables), types, catalog, fabric)


def _classes(counts: dict[tuple, list], types, catalog, fabric) -> list[CableClass]:
    order = {"same rack": 0, "same row": 1, "cross-row": 2, "cross-hall": 3}
    rows = []
    for (network, cls, cable_type, where), (links, longest) in sorted(
        counts.items(), key=lambda kv: (kv[0][0], kv[0][1], order[kv[0][3]])
    ):
        reach = _reach_m(catalog, fabric, network, cls, cable_type, types)
        rows.append(
            CableClass(
                network=network,
                link_class=cls,
                cable_type=cable_type,
                cable_label=CABLE_TYPE_LABEL[cable_type],
                type_source=types[(network, cls)][1],
                length_class=where,
                links=links,
                max_length_m=longest,
                reach_m=reach,
                within_reach=longest <= reach,
            )
        )
    return rows


def _reach_m(catalog, fabric: SiteFabric, network: str, cls: str, cable_type, types) -> float:
    """What the link class's medium reaches: the fabric engine's figure for the medium it
    chose (its shortest module or its cable), or the catalog's for a type the design states."""
    if types[(network, cls)][1] == "fabric":
        if network == "compute":
            group = fabric.scale_out.links.get(cls)
            reach = group.reach_m if group else 0.0
        else:
            reach = getattr(fabric, f"{network}_network").links.get(cls, {}).get("reach_m", 0.0)
        if reach:
            return reach
    return cable_type_reach_m(catalog, cable_type, fabric)[0]


def _sum_by_kind(sites) -> dict[str, int]:
    out: dict[str, int] = {}
    for site in sites:
        for kind, count in site.racks_by_kind.items():
            out[kind] = out.get(kind, 0) + count
    return out


def _cables_by(sites, attr: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for site in sites:
        for row in site.cables:
            key = getattr(row, attr)
            out[key] = out.get(key, 0) + row.links
    return out


def placed_devices(spec, physical: PhysicalResult) -> dict[str, dict[str, list[PlacedDevice]]]:
    """Site id -> devices by group, regenerated from the stored templates and floor. Device
    names carry the site id when the design has several sites."""
    prefix_sites = len(physical.sites) > 1
    return {
        site.site_id: site_devices(
            site.templates,
            positions_from_floor(site.floor),
            f"{site.site_id}-" if prefix_sites else "",
        )
        for site in physical.sites
    }


def cable_schedule(
    spec, physical: PhysicalResult, fabric: FabricResult, network: NetworkResult
) -> Iterator[tuple[str, Cable]]:
    """(site id, cable) for every link of every site, generated lazily."""
    devices = placed_devices(spec, physical)
    for site in physical.sites:
        site_fabric = fabric.site(site.site_id)
        cabling = SiteCabling(
            site_fabric,
            _network_site(network, site.site_id),
            devices[site.site_id],
            FloorGeometry.of(spec.physical),
            chosen_types(site_fabric, spec.physical),
        )
        for cable in cabling.cables():
            yield site.site_id, cable


def dcim_export_zip(spec, physical: PhysicalResult, fabric: FabricResult, network) -> bytes:
    """NetBox CSV/YAML and Nautobot JSON of the plan and its IPAM, zipped (`netbox.py`)."""
    from .dcim import dcim_bundle
    from .netbox import dcim_zip

    return dcim_zip(dcim_bundle(spec, physical, fabric, network))
