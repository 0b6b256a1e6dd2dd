"""Figures the fabric engine needs that the hardware catalog does not hold, each with its source.

Marks follow ../shared/reference/fabric_power.md: stated (printed in the source), derived
(arithmetic on stated inputs), secondary (third-party summary), assumption (a planning value
the user may want to change; no published oracle).
"""

# --- InfiniBand fabric manager (UFM) ---------------------------------------------------------
# DGX SuperPOD H100 RA Table 4: compute+UFM cables = nodes x 8 + 4 at every size, i.e. four UFM
# links on the compute fabric; the 4-SU bill lists 4 UFM appliances (fabric_power.md [S1],
# derived; appliance count via [S20], secondary). The UFM takes one node slot of the last SU
# when one is free (31 / 63 / 95 / 127 nodes in Table 4).
FABRIC_MANAGER_LINKS = 4
FABRIC_MANAGER_APPLIANCES = 4
# UFM Enterprise appliance (NDR), 0.689 kW max (fabric_power.md [S20], secondary).
FABRIC_MANAGER_APPLIANCE_POWER_MAX_W = 689.0
FABRIC_MANAGER_APPLIANCE_RACK_UNITS = 1  # assumption: 1U server appliance

# --- Transceiver cage power budget per switch, W per cage -------------------------------------
# Used to split a "max power with active cables / optics" figure into chassis + modules.
# QM9700 cages take Class 8 (17 W) modules (fabric_power.md [S29], stated); SN5000 ports support
# 18 W modules (NVIDIA SN5000 manual, Data Interfaces, stated; see catalog nvidia-sn5600 notes).
CAGE_POWER_BUDGET_W = {"nvidia-qm9700": 17.0, "nvidia-sn5600": 18.0, "nvidia-sn5610": 18.0}
DEFAULT_CAGE_POWER_BUDGET_W = 17.0  # assumption: Class 8 OSFP, as the QM9700

# --- Node-side cages -------------------------------------------------------------------------
# DGX H100/H200 and DGX B200 put two compute NIC ports behind one twin-port OSFP cage: 127 DGX
# H100 carry 508 transceivers = 4 per node for 8 ports (fabric_power.md [S1] via [S20], derived);
# "the compute fabric ports in the middle use a two-port transceiver to access all eight GPUs"
# (DGX SuperPOD GB200/B200 RA, Network Fabrics, stated). Other systems: one module per NIC port.
TWIN_PORT_NODE_SYSTEMS = frozenset({"dgx-h100", "dgx-h200", "dgx-b200"})

# --- Cable reach classes ------------------------------------------------------------------------
# The medium of each link class is chosen for the longest run the site's floor can need
# (models_engine/cable_runs.py, the physical plan's own length model, from the spec's `physical`
# section), so the plan's measured runs never exceed what the BOM bought. Top-of-rack leaves
# reach the nodes of their own rack: IN_RACK_LINK_M. Every other link class: the longest run
# of a floor of compute racks x FLOOR_POSITIONS_PER_COMPUTE_RACK positions.
IN_RACK_LINK_M = 2.0
# Positions per compute rack and extra positions, for the network racks, storage racks and in-row
# CDUs that share the floor (ASSUMPTION: 10 % plus 8 positions; the examples hold 6-8 network
# racks up to 64 compute racks and 46 beside 1,024). The physical plan measures the real floor
# and errors when a run exceeds what the chosen medium reaches.
FLOOR_POSITIONS_PER_COMPUTE_RACK = 1.1
FLOOR_EXTRA_POSITIONS = 8
# Passive DAC splitter 1-3 m (catalog dac-800g-to-2x400g-splitter, stated); multimode SR4 50 m
# (fabric_power.md [S30], stated); beyond it single-mode.
DAC_MAX_REACH_M = 3.0
MULTIMODE_MAX_REACH_M = 50.0
# Reach classes of a module the catalog lacks, by fiber: IEEE 802.3 400GBASE-SR4 (OM4) 100 m /
# SR8 100 m rounded down to the 50 m of the 800G 2xSR4 catalog part, 400GBASE-DR4 500 m,
# 400GBASE-FR4 2 km, LR4 10 km (IEEE 802.3bs/cu, stated reach classes).
GENERIC_MODULE_REACH_M = {
    "multimode": (("SR", 50.0),),
    "single-mode": (("DR", 500.0), ("FR", 2000.0), ("LR", 10000.0)),
}

# Optics power when no catalog module fits, W per Gb/s of module speed: 15 W / 800 Gb/s
# multimode twin-port and 17 W / 800 Gb/s single-mode twin-port (fabric_power.md [S30],
# derived scaling; the generic 800G range 14-20 W [S31] brackets it).
FALLBACK_OPTIC_W_PER_GBPS = {"multimode": 15.0 / 800.0, "single-mode": 17.0 / 800.0}

# --- Scale-up (NVLink) domain ------------------------------------------------------------------
# NVSwitch chips per 8-GPU baseboard, keyed by the GPU's NVLink bandwidth (GB/s, both ways).
# HGX H100/H200: 4 third-generation NVSwitch chips; HGX B200: 2 (catalog nvswitch-gen3 sources,
# secondary). HGX A100: 6 second-generation NVSwitch chips (NVIDIA A100 HGX product brief;
# not in the shared references: secondary).
NVSWITCH_CHIPS_PER_HGX8 = {600.0: 6, 900.0: 4, 1800.0: 2}
# NVL72 rack: 9 NVLink switch trays x 2 NVLink switch chips = 18 (DGX SuperPOD GB200 RA,
# Network Fabrics, stated: "Each NVLink switch tray is equipped with 2 NVLink switch chips").
NVL72_SWITCH_TRAYS = 9
NVL72_SWITCH_CHIPS_PER_TRAY = 2

# --- RoCE lossless defaults ---------------------------------------------------------------------
# NVIDIA Onyx / Cumulus Linux "roce lossless": RoCE on switch priority 3 (PFC on), CNP on
# priority 6 (strict), ECN absolute thresholds min 150 KB, max 1500 KB.
# https://docs.nvidia.com/networking/display/onyxv3103004/roce+commands (stated);
# https://docs.nvidia.com/networking-ethernet-software/cumulus-linux-58/Layer-1-and-Switch-Ports/
# Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE (stated).
ROCE_RECOMMENDED_PRIORITY = 3
ROCE_CNP_PRIORITY = 6
ROCE_NETWORK_CONTROL_PRIORITY = 7
# DCTCP marking threshold K > C x RTT / 7 (Alizadeh et al., "Data Center TCP", SIGCOMM 2010,
# stated); DCQCN inherits the rule for Kmin. Base RTT of the fabric: assumption of 1 us per
# switch hop each way plus 2 us of NIC/host time (a 3-hop leaf-spine path = 8 us round trip).
DCTCP_K_DIVISOR = 7.0
RTT_US_PER_SWITCH_HOP_ONE_WAY = 1.0
RTT_US_HOST = 2.0

# --- Frontend and storage networks ---------------------------------------------------------------
# The spec gives NIC speed and count only; the switch is chosen from the catalog: the compute
# fabric's InfiniBand switch for an InfiniBand storage fabric (DGX SuperPOD storage fabric is
# NDR InfiniBand, fabric_power.md [S1]) and the Spectrum-4 SN5600 for Ethernet (assumption).
ETHERNET_AUX_SWITCH = "nvidia-sn5600"

# --- WAN / data-centre interconnect ---------------------------------------------------------------
# Router at each end of the WAN links: a fixed 800GE transport router whose cages take 400G
# coherent pluggables (catalog juniper-ptx10002-36qdd; assumption: the engine's default DCI router).
WAN_ROUTER_SKU = "juniper-ptx10002-36qdd"
# Coherent pluggables by reach: 400ZR up to 120 km (OIF 400ZR, catalog qsfpdd-400g-zr), OpenZR+
# beyond it over an amplified line system (catalog qsfpdd-400g-zrp). Picked by the catalog reach.
WAN_OPTICS_BY_REACH = ("qsfpdd-400g-zr", "qsfpdd-400g-zrp")
# Half of a DCI router's ports face the WAN, half face the site's fabric at the same bandwidth, so
# the router is not a bottleneck (assumption: non-blocking DCI edge; the site-side ports and their
# grey optics are not sized here).
WAN_PORT_SHARE_OF_ROUTER = 0.5
# At least two routers per site with WAN links, so one router failure does not cut the site off
# (assumption: dual-homed DCI edge, the usual practice; no published oracle found).
WAN_MIN_ROUTERS_PER_SITE = 2
# Fibre route length from the link's round-trip time: light in silica fibre travels at c / 1.468
# = 204 km per ms (group index of G.652 fibre at 1550 nm ~1.468, stated in fibre data sheets),
# so one-way km = RTT / 2 x 204 (derived; an upper bound, as RTT also holds equipment delay).
FIBRE_KM_PER_MS_ONE_WAY = 299_792.458 / 1.468 / 1000.0
# 400ZR and OpenZR+ need mux/demux and amplifiers beyond 40 km at 400G (Cisco 400G coherent
# optics table, secondary): the line system is reported, not priced.
UNAMPLIFIED_COHERENT_REACH_KM = 40.0
