"""SONiC `config_db.json` of one switch: ports, addresses, VLANs, the tenants' VRFs and VXLAN
maps (symmetric IRB), and the lossless-QoS tables (DSCP to traffic class, PFC per port, the
WRED/ECN profile per link speed, PFC headroom buffer profiles). Routing itself is FRR's
(`docker_routing_config_mode: split`: the frr.conf beside it is the routing configuration).

Table and field names follow SONiC's configuration database (sonic-buildimage
`src/sonic-config-engine` / the SONiC Configuration guide, 202211 and later: plain object
names, not "[TABLE|key]" references)."""

from __future__ import annotations

import json

from .data import ECN_MARK_PROBABILITY_PCT, XON_MAX_FRAMES
from .qos_plan import PortQos, QosPlan
from .render import RenderPlan
from .topology import Device

QOS_MAP = "ROCE"  # one name for every map: the fabric has one QoS policy
DEVICE_TYPES = {"leaf": "ToRRouter", "spine": "LeafRouter", "core": "SpineRouter"}
QUEUES = range(8)


def sonic_config_db(plan: RenderPlan, device: Device) -> str:
    """config_db.json of one switch, as text (sorted keys: diffs stay readable)."""
    ports = _port_groups(plan, device)
    db: dict[str, dict] = {
        "DEVICE_METADATA": {
            "localhost": {
                "hostname": device.name,
                "bgp_asn": str(plan.asns.asn(device)),
                "type": DEVICE_TYPES[device.role],
                "docker_routing_config_mode": "split",
            }
        },
        "LOOPBACK_INTERFACE": {
            "Loopback0": {},
            f"Loopback0|{plan.addresses.loopback(device)}/32": {},
        },
        "PORT": {name: _port(plan, device, name, group) for name, group in ports.items()},
        "INTERFACE": _routed_interfaces(plan, device),
    }
    if device.role == "leaf":
        db.update(_leaf_tables(plan, device))
    if plan.qos is not None:
        db.update(_qos_tables(plan.qos, ports))
    return json.dumps(db, indent=2, sort_keys=True) + "\n"


def _port_groups(plan: RenderPlan, device: Device) -> dict[str, str]:
    """Every port in use: name -> its link group (host ports first on a leaf)."""
    groups = {}
    if device.role == "leaf":
        groups = {f"Ethernet{h}": "node_leaf" for h in range(plan.topo.hosts_per_leaf)}
    for port in plan.ports(device):
        roles = {device.role, port.peer.role}
        groups[f"Ethernet{port.number}"] = "spine_core" if "core" in roles else "leaf_spine"
    return groups


def _port(plan: RenderPlan, device: Device, name: str, group: str) -> dict:
    speed = plan.qos.groups[group].link_speed_gbps if plan.qos and group in plan.qos.groups else 0
    entry = {"admin_status": "up", "mtu": str(plan.switch_mtu), "description": group}
    if speed:
        entry["speed"] = str(int(speed * 1000))  # SONiC speeds are in Mb/s
    return entry


def _routed_interfaces(plan: RenderPlan, device: Device) -> dict:
    table: dict[str, dict] = {}
    for port in plan.ports(device):
        table[f"Ethernet{port.number}"] = {}
        table[f"Ethernet{port.number}|{port.address}/31"] = {}
    return table


def _leaf_tables(plan: RenderPlan, device: Device) -> dict:
    """GPU subnet VLAN with the host ports, and per tenant its VLAN (L2 VNI), its L3-VNI VLAN
    and VRF, all mapped onto the VTEP at the loopback."""
    addresses = plan.addresses
    gateway = f"{addresses.gateway(device)}/{addresses.gpu_prefix}"
    vlans = {"Vlan10": {"vlanid": "10"}}
    members = {
        f"Vlan10|Ethernet{h}": {"tagging_mode": "untagged"} for h in range(plan.topo.hosts_per_leaf)
    }
    interfaces: dict[str, dict] = {"Vlan10": {}, f"Vlan10|{gateway}": {}}
    vrfs, maps = {}, {}
    for number, tenant in plan.tenant_numbered():
        vlan, l3_vlan, vrf = tenant["vlan"], tenant["l3_vni_vlan"], tenant["vrf"]
        subnet = addresses.tenant_subnet(number)
        vlans[f"Vlan{vlan}"] = {"vlanid": str(vlan)}
        vlans[f"Vlan{l3_vlan}"] = {"vlanid": str(l3_vlan)}
        interfaces[f"Vlan{vlan}"] = {"vrf_name": vrf}
        interfaces[f"Vlan{vlan}|{addresses.tenant_gateway(number)}/{subnet.prefixlen}"] = {}
        interfaces[f"Vlan{l3_vlan}"] = {"vrf_name": vrf}
        vrfs[vrf] = {"vni": str(tenant["l3_vni"])}
        maps[f"vtep|map_{tenant['l2_vni']}_Vlan{vlan}"] = {
            "vlan": f"Vlan{vlan}",
            "vni": str(tenant["l2_vni"]),
        }
        maps[f"vtep|map_{tenant['l3_vni']}_Vlan{l3_vlan}"] = {
            "vlan": f"Vlan{l3_vlan}",
            "vni": str(tenant["l3_vni"]),
        }
    tables = {"VLAN": vlans, "VLAN_MEMBER": members, "VLAN_INTERFACE": interfaces}
    if vrfs:
        tables |= {
            "VRF": vrfs,
            "VXLAN_TUNNEL": {"vtep": {"src_ip": str(addresses.loopback(device))}},
            "VXLAN_EVPN_NVO": {"nvo": {"source_vtep": "vtep"}},
            "VXLAN_TUNNEL_MAP": maps,
        }
    return tables


# --- QoS --------------------------------------------------------------------------------------


def _qos_tables(qos: QosPlan, ports: dict[str, str]) -> dict:
    by_dscp = {c["dscp"]: c["priority"] for c in qos.classes}
    identity = {str(q): str(q) for q in QUEUES}
    tables: dict[str, dict] = {
        "DSCP_TO_TC_MAP": {QOS_MAP: {str(d): str(by_dscp.get(d, 0)) for d in range(64)}},
        "TC_TO_PRIORITY_GROUP_MAP": {QOS_MAP: identity},
        "TC_TO_QUEUE_MAP": {QOS_MAP: identity},
        "MAP_PFC_PRIORITY_TO_QUEUE": {QOS_MAP: identity},
        "SCHEDULER": {
            "scheduler.strict": {"type": "STRICT"},
            "scheduler.dwrr": {"type": "DWRR", "weight": "50"},
        },
        "PORT_QOS_MAP": {name: _port_qos_map(qos) for name in ports},
        "QUEUE": {},
    }
    wred = _wred_profiles(qos, ports)
    if wred:
        tables["WRED_PROFILE"] = wred
    for name, group in ports.items():
        tables["QUEUE"].update(_queues(qos, name, qos.groups.get(group)))
    if qos.pfc_priority is not None and qos.buffer_bytes is not None:
        tables.update(_buffer_tables(qos, ports))
    return tables


def _port_qos_map(qos: QosPlan) -> dict:
    entry = {
        "dscp_to_tc_map": QOS_MAP,
        "tc_to_pg_map": QOS_MAP,
        "tc_to_queue_map": QOS_MAP,
        "pfc_to_queue_map": QOS_MAP,
    }
    if qos.pfc_priority is not None:
        entry["pfc_enable"] = str(qos.pfc_priority)
    return entry


def _marks_ecn(qos: QosPlan) -> bool:
    return any(c["lossless"] and c["ecn"] for c in qos.classes)


def _wred_name(speed_gbps: float) -> str:
    return f"ROCE_ECN_{speed_gbps:g}G"


def _wred_profiles(qos: QosPlan, ports: dict[str, str]) -> dict:
    """One WRED/ECN profile per link speed in use: mark (never drop) between Kmin and Kmax."""
    if not _marks_ecn(qos):
        return {}
    profiles = {}
    for group in set(ports.values()):
        port = qos.groups.get(group)
        thresholds = qos.ecn_kb(port.link_speed_gbps) if port else None
        if thresholds is None:
            continue
        kmin_kb, kmax_kb = thresholds
        profiles[_wred_name(port.link_speed_gbps)] = {
            "ecn": "ecn_all",
            "wred_green_enable": "true",
            "green_min_threshold": str(round(kmin_kb * 1000)),
            "green_max_threshold": str(round(kmax_kb * 1000)),
            "green_drop_probability": str(ECN_MARK_PROBABILITY_PCT),
        }
    return profiles


def _queues(qos: QosPlan, name: str, port: PortQos | None) -> dict:
    queues = {}
    for c in qos.classes:
        entry = {
            "scheduler": "scheduler.strict" if c["scheduling"] == "strict" else "scheduler.dwrr"
        }
        if c["lossless"] and c["ecn"] and port is not None:
            entry["wred_profile"] = _wred_name(port.link_speed_gbps)
        queues[f"{name}|{c['priority']}"] = entry
    return queues


def _profile_name(port: PortQos) -> str:
    return f"pg_lossless_{int(port.link_speed_gbps * 1000)}_{port.cable_m:g}m_profile"


def _buffer_tables(qos: QosPlan, ports: dict[str, str]) -> dict:
    """Headroom per lossless priority group from the 802.1Qbb model (xoff), checked against
    the switch's buffer by the network engine; the pool is the whole shared buffer."""
    xon = XON_MAX_FRAMES * qos.mtu
    used = {group: qos.groups[group] for group in set(ports.values()) if group in qos.groups}
    headroom_total = sum(
        qos.groups[group].headroom_bytes for group in ports.values() if group in qos.groups
    )
    return {
        "BUFFER_POOL": {
            "ingress_lossless_pool": {
                "type": "ingress",
                "mode": "dynamic",
                "size": str(qos.buffer_bytes),
                "xoff": str(headroom_total),
            },
            "egress_lossy_pool": {
                "type": "egress",
                "mode": "dynamic",
                "size": str(qos.buffer_bytes),
            },
        },
        "BUFFER_PROFILE": {
            _profile_name(port): {
                "pool": "ingress_lossless_pool",
                "xon": str(xon),
                "xoff": str(port.headroom_bytes),
                "size": str(xon + port.headroom_bytes),
                "dynamic_th": "0",
            }
            for port in used.values()
        },
        "BUFFER_PG": {
            f"{name}|{qos.pfc_priority}": {"profile": _profile_name(qos.groups[group])}
            for name, group in ports.items()
            if group in qos.groups
        },
    }
