"""Constants of the logical-network plan, each with its source or derivation."""

from __future__ import annotations

# --- Numbering (a stated scheme, not a standard: any unique numbers work) -------------------
L2_VNI_BASE = 10_000  # tenant i (from 1) gets L2 VNI 10000 + i
L3_VNI_BASE = 50_000  # and L3 (symmetric IRB) VNI 50000 + i
VLAN_BASE = 100  # local VLAN 100 + i carries the L2 VNI on each leaf
# InfiniBand partition keys: a 15-bit key with the full-membership bit 0x8000 set (IBTA spec
# vol. 1, partitioning); 0x7fff is the default partition, so tenants take 0x0001 upwards.
PKEY_FULL_MEMBER = 0x8000
DEFAULT_PKEY = 0x7FFF

# --- Traffic classes --------------------------------------------------------------------------
# NVIDIA's RoCE lossless default (Cumulus Linux `nv set qos roce`, Onyx `roce lossless`): RDMA
# data marked DSCP 26 on switch priority 3, congestion notification packets DSCP 48 on
# priority 6 (strict). Network control (BGP, BFD) CS7 = DSCP 56 (RFC 4594 table 3 puts
# routing in CS6; CS7 keeps it off the CNP code point here: a stated choice).
ROCE_DSCP = 26
CNP_DSCP = 48
CNP_PRIORITY = 6
NETWORK_CONTROL_DSCP = 56
NETWORK_CONTROL_PRIORITY = 7  # IEEE 802.1Q traffic types: priority 7 = network control

# --- Frame overheads -------------------------------------------------------------------------
# VXLAN adds outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 = 50 bytes to the inner frame's IP
# packet (RFC 7348 section 5 layout); the switch L2 MTU must carry host MTU + 50.
VXLAN_OVERHEAD_BYTES = 50
# RoCEv2 packet around an RDMA payload: IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4 = 60 bytes
# (IBTA Annex A17, RoCEv2); RDMA path MTUs are 256..4096 bytes (IBTA vol. 1).
ROCE_HEADERS_BYTES = 60
RDMA_MTUS = (4096, 2048, 1024, 512, 256)

# --- PFC headroom (IEEE 802.1Qbb Annex N delay model, as tabulated in Cisco's "Priority Flow
# Control: Build Reliable Layer 2 Infrastructure" white paper): the bytes a port must absorb
# after it sends PAUSE = a max frame it is receiving + the PAUSE frame + interface delay +
# 2 x cable delay + the peer's response delay + a max frame the peer is sending.
PFC_PAUSE_FRAME_BITS = 672  # 64-byte frame + 12-byte IFG + 8-byte preamble, in bit times
FRAME_OVERHEAD_BITS = 160  # IFG + preamble/SFD around any frame, bit times
CABLE_NS_PER_M = 5.0  # propagation in fibre / copper at ~2/3 c
# Interface (PHY/MAC) delay and the peer's response delay, bit times, per line rate (Gb/s):
# the 802.3/802.1Qbb upper bounds of the table above. Rates beyond it (200, 800 and 1600 Gb/s
# interface delay) are an ASSUMPTION: the nearest rate's delay held constant in time, so the
# bit times scale with the line rate.
INTERFACE_DELAY_BITS = {10: 8_192, 25: 6_144, 40: 24_576, 100: 122_880}
RESPONSE_DELAY_BITS = {10: 30_720, 25: 40_960, 40: 60_416, 100: 201_728, 400: 463_360}

# --- Switch packet buffers: the catalog's `packet_buffer_mb` per switch SKU (with its sources);
# a switch without one gets no headroom-vs-buffer check (a finding says so).
# Lossless priorities that reserve headroom on every port: the RDMA class only (CNPs ride a
# strict-priority lossy queue; vendor "roce lossless" default, fabric data.py).
LOSSLESS_PRIORITIES_PER_PORT = 1

# --- Routing ----------------------------------------------------------------------------------
# FRR's `frr defaults datacenter` profile (FRR user guide, "defaults"): keepalive 3 s, hold 9 s.
BGP_KEEPALIVE_S = 3
BGP_HOLD_S = 9

# --- InfiniBand subnet management --------------------------------------------------------------
# OpenSM routing engines: ftree for fat trees and leaf-spine (OpenSM man page: "ftree: fat tree
# routing"); a master and a standby SM (IBTA vol. 1 subnet management: one master SM, the
# others standby).
IB_ROUTING_ENGINE = "ftree"
IB_SUBNET_MANAGERS = 2

# --- SONiC / symmetric IRB rendering ----------------------------------------------------------
# SONiC maps an L3 VNI to a VLAN of its own (VXLAN_TUNNEL_MAP needs a VLAN): tenant i's L3 VNI
# rides VLAN 3000 + i (a stated numbering, like the VNIs above).
L3_VNI_VLAN_BASE = 3_000
# Distributed anycast gateway MAC shared by every leaf (locally administered, IEEE 802 bit 1 of
# the first octet set): a stated choice, any one value fabric-wide works.
ANYCAST_GATEWAY_MAC = "02:00:00:00:01:01"
# ECN marking probability at Kmax, percent: NVIDIA Cumulus Linux `nv set qos roce` default
# (min 150 KB, max 1500 KB, probability 100), the same Kmin/Kmax the fabric engine defaults to.
ECN_MARK_PROBABILITY_PCT = 100
# PFC xon: traffic resumes once two maximum frames fit below the xoff point. ASSUMPTION (vendor
# tables differ; SONiC's pg_profile_lookup.ini per platform); xoff is the 802.1Qbb headroom.
XON_MAX_FRAMES = 2
