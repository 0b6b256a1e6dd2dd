"""Every configuration file of a design, by dialect: FRR frr.conf, Arista EOS, SONiC
config_db.json per switch of each Ethernet site, OpenSM files per InfiniBand site, and a README
with the host-side (Linux) device commands the FRR configuration relies on. Written switch by
switch, so a large fabric streams into the archive."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

from models_engine.engines.fabric.result import FabricResult

from .data import ANYCAST_GATEWAY_MAC
from .render import MD5_PLACEHOLDER, RenderPlan, eos_config, frr_config, render_plans
from .render_opensm import opensm_files
from .render_sonic import sonic_config_db
from .result import NetworkResult

RENDERERS = {
    "frr": ("frr.conf", frr_config),
    "eos": ("eos.cfg", eos_config),
    "sonic": ("config_db.json", sonic_config_db),
}
DIALECTS = tuple(RENDERERS)


def site_configs(plan: RenderPlan, dialect: str) -> Iterator[tuple[str, str]]:
    """(file name, text) of every switch of one site in one dialect."""
    if dialect not in RENDERERS:
        raise ValueError(f"dialect {dialect!r}: allowed {list(RENDERERS)}")
    suffix, render = RENDERERS[dialect]
    for device in plan.topo.devices():
        yield f"{device.name}.{suffix}", render(plan, device)


def network_configs(
    fabric: FabricResult, network: NetworkResult, dialect: str = "frr"
) -> dict[str, str]:
    """Every switch's configuration: {"<site>/<dialect>/<switch>.<ext>": text}."""
    return {
        f"{plan.topo.site_id}/{dialect}/{name}": text
        for plan in render_plans(fabric, network)
        for name, text in site_configs(plan, dialect)
    }


def infiniband_configs(network: NetworkResult) -> dict[str, str]:
    """OpenSM files of every InfiniBand site: {"<site>/opensm/<file>": text}."""
    return {
        f"{site.site_id}/opensm/{name}": text
        for site in network.sites
        if site.subnet_manager is not None
        for name, text in opensm_files(site, network.tenants).items()
    }


def network_configs_zip(fabric: FabricResult, network: NetworkResult) -> bytes:
    """A zip of every switch's FRR, EOS and SONiC configuration and every InfiniBand site's
    OpenSM files, with the README."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for plan in render_plans(fabric, network):
            for dialect in DIALECTS:
                for name, text in site_configs(plan, dialect):
                    archive.writestr(f"{plan.topo.site_id}/{dialect}/{name}", text)
        for path, text in infiniband_configs(network).items():
            archive.writestr(path, text)
        archive.writestr("README.txt", readme(network))
    return buffer.getvalue()


def readme(network: NetworkResult) -> str:
    lines = [
        "Switch configurations rendered by Cluster Studio from the design's network plan.",
        "",
        "<site>/frr/<switch>.frr.conf    FRR 8.4+ (SONiC-style; ports Ethernet<N>)",
        "<site>/eos/<switch>.eos.cfg     Arista EOS running-config",
        "<site>/sonic/<switch>.config_db.json  SONiC config_db: ports, VLANs, VRFs, VXLAN maps,",
        "    QoS (DSCP_TO_TC_MAP, PORT_QOS_MAP pfc_enable, WRED_PROFILE ECN, BUFFER_PROFILE",
        "    headroom); routing is the frr.conf (docker_routing_config_mode: split)",
        "<site>/opensm/                   InfiniBand sites: partitions.conf and the master /",
        "    standby opensm.conf (add each tenant's HCA port GUIDs, set the M_Key)",
        "",
        f"Secrets are placeholders: replace {MD5_PLACEHOLDER} (BGP MD5, when enabled) and the",
        "OpenSM m_key before use.",
        "",
    ]
    lines += [
        f"tenant {t['tenant']}: "
        + ", ".join(f"{k}={v}" for k, v in t.items() if v is not None and k != "tenant")
        for t in network.tenants
    ]
    for site in network.sites:
        for row in site.tenant_subnets:
            lines.append(f"site {site.site_id} tenant {row['tenant']}: subnet {row['subnet']}")
    if any(site.tenant_subnets for site in network.sites):
        lines += ["", *host_side_commands(network)]
    return "\n".join(lines) + "\n"


def host_side_commands(network: NetworkResult) -> list[str]:
    """The README's host-side section: `irb_devices` of every tenant, as shell lines."""
    lines = [
        "Host side (Linux) on every leaf, before FRR starts (symmetric IRB; SONiC creates the",
        "same devices from config_db.json). LOOPBACK: the leaf's loopback (frr.conf lo).",
    ]
    for number, tenant in enumerate(network.tenants, start=1):
        lines.append(f"  # tenant {tenant['tenant']}")
        lines += ["  " + " ".join(argv) for argv in irb_devices(number, tenant, "$LOOPBACK")]
    return lines


def irb_devices(number: int, tenant: dict, loopback: str) -> list[list[str]]:
    """The Linux devices FRR expects on a leaf for one tenant (symmetric IRB), as `ip`
    argument lists: `l2_devices` then `l3_devices`."""
    return l2_devices(tenant, loopback) + l3_devices(number, tenant, loopback)


def _vxlan(vni: int, loopback: str) -> list[str]:
    return ["ip", "link", "add", f"vni{vni}", "type", "vxlan", "id", str(vni), "local",
            loopback, "dstport", "4789", "nolearning"]  # fmt: skip


def l2_devices(tenant: dict, loopback: str) -> list[list[str]]:
    """The tenant VLAN's bridge (anycast gateway MAC) with the L2 VNI's VXLAN device."""
    vlan, l2 = f"Vlan{tenant['vlan']}", tenant["l2_vni"]
    return [
        ["ip", "link", "add", vlan, "type", "bridge"],
        ["ip", "link", "set", vlan, "address", ANYCAST_GATEWAY_MAC, "up"],
        _vxlan(l2, loopback),
        ["ip", "link", "set", f"vni{l2}", "master", vlan, "up"],
    ]


def l3_devices(number: int, tenant: dict, loopback: str) -> list[list[str]]:
    """The tenant's VRF holding its VLAN bridge, and the L3 VNI's VXLAN device in a bridge of
    its own in the VRF (that bridge's MAC is this VTEP's router MAC in type-5 routes, so it
    stays unique per leaf)."""
    vrf, vlan, l3 = tenant["vrf"], f"Vlan{tenant['vlan']}", tenant["l3_vni"]
    l3_bridge = f"Vlan{tenant['l3_vni_vlan']}"
    return [
        ["ip", "link", "add", vrf, "type", "vrf", "table", str(1000 + number)],
        ["ip", "link", "set", vrf, "up"],
        ["ip", "link", "set", vlan, "master", vrf],
        ["ip", "link", "add", l3_bridge, "type", "bridge"],
        ["ip", "link", "set", l3_bridge, "master", vrf, "up"],
        _vxlan(l3, loopback),
        ["ip", "link", "set", f"vni{l3}", "master", l3_bridge, "up"],
    ]
