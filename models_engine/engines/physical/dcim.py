"""The physical plan and the logical network as DCIM data: locations (site, halls), racks,
manufacturers, device types with their interfaces, roles, devices at their U, cables between
interfaces, and the IPAM (prefixes, IP addresses, VLANs with their VNIs).

One neutral bundle (`dcim_bundle`, plain rows) feeds both exports: NetBox's documented bulk
import formats (CSV per object type, device types as device-type-library YAML; `netbox.py`) and
Nautobot (the same rows as JSON, imported through its REST API; `tests/integration`). Rows are
generated from the stored results, so the export of a 16k-GPU design streams its cables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace

from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.network.addressing import AddressPlan
from models_engine.engines.network.result import NetworkResult
from models_engine.engines.network.topology import SiteTopology

from . import cable_schedule, placed_devices
from .result import PhysicalResult

# NetBox / Nautobot interface types by (technology family, speed); cable types by our types.
_IB_TYPES = {400.0: "infiniband-ndr", 800.0: "infiniband-xdr"}
_ETH_TYPES = {
    100.0: "100gbase-x-qsfp28",
    200.0: "200gbase-x-qsfp56",
    400.0: "400gbase-x-osfp",
    800.0: "800gbase-x-osfp",
}
DCIM_CABLE_TYPES = {
    "dac": "dac-passive",
    "acc": "dac-active",
    "aec": "dac-active",
    "aoc": "aoc",
    "fibre-multimode": "mmf-om4",
    "fibre-single-mode": "smf-os2",
}
_ROLE_OF_GROUP = {
    "node": ("GPU node", "76b900"),
    "leaf": ("Leaf switch", "2196f3"),
    "spine": ("Spine switch", "3f51b5"),
    "core": ("Core switch", "673ab7"),
    "appliance": ("Fabric manager", "9e9e9e"),
    "storage-system": ("Storage system", "009688"),
    "router": ("WAN router", "795548"),
    "patch-panel": ("Patch panel", "607d8b"),
    "power-shelf": ("Power shelf", "ff9800"),
    "nvlink-switch-tray": ("NVLink switch tray", "8bc34a"),
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:100]


def _interface_type(port: str, speed: float) -> str:
    table = _IB_TYPES if port.startswith("IB") else _ETH_TYPES
    return table.get(speed, "other")


@dataclass
class DcimBundle:
    sites: list[dict] = field(default_factory=list)
    locations: list[dict] = field(default_factory=list)
    racks: list[dict] = field(default_factory=list)
    manufacturers: list[dict] = field(default_factory=list)
    device_types: list[dict] = field(default_factory=list)
    roles: list[dict] = field(default_factory=list)
    devices: list[dict] = field(default_factory=list)
    prefixes: list[dict] = field(default_factory=list)
    ip_addresses: list[dict] = field(default_factory=list)
    vlans: list[dict] = field(default_factory=list)
    cables: Iterator[dict] | None = None


def _manufacturer(model: str, catalog_id: str | None) -> str:
    if (catalog_id and catalog_id.startswith("nvidia")) or model.startswith("NVIDIA"):
        return "NVIDIA"
    return model.split()[0] if model else "Generic"


def dcim_bundle(
    spec, physical: PhysicalResult, fabric: FabricResult, network: NetworkResult | None
) -> DcimBundle:
    """Everything but the cables as lists; the cables as a generator (one row per link)."""
    devices = placed_devices(spec, physical)
    bundle = DcimBundle()
    ports = _ports_by_model(spec, physical, fabric, network)
    types: dict[str, dict] = {}
    roles: dict[str, dict] = {}
    for site in physical.sites:
        bundle.sites.append({"name": site.site_name, "slug": slug(site.site_id)})
        for hall in range(1, site.halls + 1):
            bundle.locations.append(
                {"name": f"{site.site_id} hall {hall}", "site": site.site_name, "hall": hall}
            )
        positions = {}
        for group in devices[site.site_id].values():
            for d in group:
                positions.setdefault(d.rack, d.position)
        for template in site.templates:
            for rack in _names(template):
                pos = positions.get(rack)
                bundle.racks.append(
                    {
                        "name": _rack_name(rack, site, physical),
                        "site": site.site_name,
                        "location": f"{site.site_id} hall {pos.hall if pos else 1}",
                        "u_height": template.height_u,
                        "facility_id": rack,
                        "row": pos.row if pos else None,
                        "slot": pos.slot if pos else None,
                        "kind": template.kind,
                    }
                )
        for group, members in devices[site.site_id].items():
            role_key = group.split("/")[-1]
            role_name, colour = _ROLE_OF_GROUP.get(role_key, (role_key.title(), "9e9e9e"))
            roles.setdefault(
                role_name, {"name": role_name, "slug": slug(role_name), "color": colour}
            )
            for d in members:
                model = d.model
                if model not in types:
                    types[model] = {
                        "manufacturer": _manufacturer(model, d.catalog_id),
                        "model": model,
                        "slug": slug(model),
                        "u_height": d.height_u,
                        "is_full_depth": True,
                        "part_number": d.catalog_id or "",
                        "interfaces": [
                            {"name": name, "type": kind} for name, kind in ports.get(model, [])
                        ],
                    }
                bundle.devices.append(
                    {
                        "name": d.name,
                        "role": role_name,
                        "manufacturer": types[model]["manufacturer"],
                        "device_type": model,
                        "site": site.site_name,
                        "location": f"{site.site_id} hall {d.position.hall}",
                        "rack": _rack_name(d.rack, site, physical),
                        "position": d.u,
                        "face": "front",
                        "status": "planned",
                    }
                )
    bundle.device_types = list(types.values())
    bundle.manufacturers = [
        {"name": m, "slug": slug(m)} for m in sorted({t["manufacturer"] for t in types.values()})
    ]
    bundle.roles = list(roles.values())
    if network is not None:
        _ipam(bundle, fabric, network, physical)
    bundle.cables = _cables(spec, physical, fabric, network)
    return bundle


def _names(template) -> list[str]:
    prefix, first = template.first_rack[0], int(template.first_rack[1:])
    return [f"{prefix}{first + i:04d}" for i in range(template.racks)]


def _rack_name(rack: str, site, physical) -> str:
    return f"{site.site_id}-{rack}" if len(physical.sites) > 1 else rack


def _ports_by_model(spec, physical, fabric, network) -> dict[str, list[tuple[str, str]]]:
    """Interfaces each device type needs: every port name the schedule uses on it."""
    devices = placed_devices(spec, physical)
    model_of = {d.name: d.model for site in devices.values() for g in site.values() for d in g}
    used: dict[str, dict[str, str]] = {}
    for _, cable in cable_schedule(spec, physical, fabric, network):
        for name, port in ((cable.a_device, cable.a_port), (cable.b_device, cable.b_port)):
            used.setdefault(model_of[name], {})[port] = _interface_type(port, cable.speed_gbps)
    return {
        model: sorted(ports.items(), key=lambda kv: _port_key(kv[0]))
        for model, ports in used.items()
    }


def _port_key(name: str) -> tuple[str, int]:
    match = re.match(r"([A-Za-z-]+)(\d+)$", name)
    return (match.group(1), int(match.group(2))) if match else (name, 0)


def _cables(spec, physical, fabric, network) -> Iterator[dict]:
    multi = len(physical.sites) > 1
    for site_id, cable in cable_schedule(spec, physical, fabric, network):
        yield {
            "site": site_id,
            "side_a_device": cable.a_device,
            "side_a_type": "dcim.interface",
            "side_a_name": cable.a_port,
            "side_b_device": cable.b_device,
            "side_b_type": "dcim.interface",
            "side_b_name": cable.b_port,
            "type": DCIM_CABLE_TYPES[cable.cable_type],
            "status": "planned",
            "length": cable.length_m,
            "length_unit": "m",
            "label": f"{cable.network} {cable.link_class.replace('_', '-')}",
            "a_rack": f"{site_id}-{cable.a_rack}" if multi else cable.a_rack,
            "b_rack": f"{site_id}-{cable.b_rack}" if multi else cable.b_rack,
            "length_class": cable.length_class,
        }


def _ipam(bundle: DcimBundle, fabric: FabricResult, network: NetworkResult, physical) -> None:
    """Pools as container prefixes, each site's GPU subnet per leaf, switch loopbacks and the
    /31 ends of each switch-to-switch link (Ethernet sites), tenants' VLANs with their VNIs."""
    for pool, cidr in network.pools.items():
        bundle.prefixes.append(
            {"prefix": cidr, "status": "container", "description": f"{pool} pool"}
        )
    pools = SimpleNamespace(**network.pools)
    devices = placed_devices(None, physical)
    for site in network.sites:
        if site.underlay.protocol != "ebgp":
            continue
        out = fabric.site(site.site_id).scale_out
        topo = SiteTopology(
            site_id=site.site_id,
            technology=site.technology,
            leaves=site.leaves,
            spines=site.spines,
            cores=site.cores,
            pods=max(site.pods, 1),
            leaf_uplinks=site.leaf_uplinks,
            spine_uplinks=site.spine_uplinks,
            hosts_per_leaf=site.hosts_per_leaf,
            rails=site.rails,
            nodes=out.nodes,
            link_speed_gbps=out.link_speed_gbps,
        )
        plan = AddressPlan(pools, topo, {use.pool: use.offset for use in site.pools})
        names = _switch_names(devices.get(site.site_id, {}))
        for leaf in (topo.leaf(i) for i in range(topo.leaves)):
            bundle.prefixes.append(
                {
                    "prefix": str(plan.gpu_subnet(leaf)),
                    "status": "active",
                    "description": f"GPU subnet {names.get(leaf.name, leaf.name)}",
                }
            )
        for device in topo.devices():
            bundle.ip_addresses.append(
                {
                    "address": f"{plan.loopback(device)}/32",
                    "status": "active",
                    "description": f"loopback {names.get(device.name, device.name)}",
                }
            )
        for link in topo.all_links():
            upper, lower = plan.p2p(link)
            for end, ip in ((link.upper, upper), (link.lower, lower)):
                bundle.ip_addresses.append(
                    {
                        "address": f"{ip}/31",
                        "status": "active",
                        "description": f"p2p {names.get(end.name, end.name)}",
                    }
                )
    for tenant in network.tenants:
        if tenant.get("vlan"):
            bundle.vlans.append(
                {
                    "vid": tenant["vlan"],
                    "name": f"{tenant['tenant']}-vni{tenant['l2_vni']}",
                    "status": "active",
                    "description": f"tenant {tenant['tenant']}: L2 VNI {tenant['l2_vni']}, "
                    f"L3 VNI {tenant['l3_vni']}",
                }
            )


def _switch_names(groups) -> dict[str, str]:
    """network-engine name (leaf1) -> DCIM device name (with the site prefix when there is one)."""
    out = {}
    for role in ("leaf", "spine", "core"):
        for d in groups.get(f"compute/{role}", []):
            out[f"{role}{d.index + 1}"] = d.name
    return out
