"""Tenants: EVPN-VXLAN on Ethernet (VRF, L2 and L3 VNIs, route targets) or InfiniBand
partitions (PKeys), and the isolation facts the security engine can read."""

from __future__ import annotations

from .data import L2_VNI_BASE, L3_VNI_BASE, L3_VNI_VLAN_BASE, PKEY_FULL_MEMBER, VLAN_BASE
from .result import IsolationFacts


def tenant_rows(tenants, ethernet: bool, rt_asn: int) -> list[dict]:
    rows = []
    for number, tenant in enumerate(tenants, start=1):
        if ethernet:
            l2, l3 = L2_VNI_BASE + number, L3_VNI_BASE + number
            rows.append(
                {
                    "tenant": tenant.name,
                    "vrf": f"Vrf-{tenant.name}",
                    "vlan": VLAN_BASE + number,
                    "l3_vni_vlan": L3_VNI_VLAN_BASE + number,
                    "l2_vni": l2,
                    "l3_vni": l3,
                    "route_target_l2": f"{rt_asn}:{l2}",
                    "route_target_l3": f"{rt_asn}:{l3}",
                    "pkey": None,
                }
            )
        else:
            rows.append(
                {
                    "tenant": tenant.name,
                    "vrf": None,
                    "vlan": None,
                    "l3_vni_vlan": None,
                    "l2_vni": None,
                    "l3_vni": None,
                    "route_target_l2": None,
                    "route_target_l3": None,
                    "pkey": f"0x{PKEY_FULL_MEMBER | number:04x}",
                }
            )
    return rows


def isolation_facts(rows: list[dict], ethernet: bool, intent, management_in_band: bool):
    """How tenants and planes are kept apart, as the security engine reads it.

    Management is out of band when its addresses come from their own pool (never announced
    in the underlay or a tenant VRF: the renderers announce only loopbacks, GPU and tenant
    subnets) and no in-band management rides the compute fabric (`management_in_band`: a
    converged frontend, or a network the design declares flat)."""
    protection = []
    if ethernet and intent.bgp_gtsm:
        protection.append("gtsm")
    if ethernet and intent.bgp_authentication != "none":
        protection.append(intent.bgp_authentication)
    return IsolationFacts(
        tenants=len(rows),
        mechanism="evpn-vxlan-vrf" if ethernet else "infiniband-pkey",
        tenants_share_fabric=len(rows) > 1,
        tenant_segments=len({r["l3_vni"] or r["pkey"] for r in rows}),
        management_out_of_band=not management_in_band,
        bgp_underlay=ethernet,
        bgp_session_protection=protection,
    )
