"""Latency, message-size and bandwidth-share constants of the collective model, each with its
source.

Latencies follow NCCL's own cost model, src/graph/tuning.cc (NVIDIA/nccl 2.18+, reference
[S12]): time = baseLat(algorithm, protocol) + steps x hwLat(link, algorithm, protocol)
+ size / bandwidth. We take the LL protocol for ring and tree (the protocol NCCL picks for
small messages, so it sets the latency floor) and Simple for NVLS, NVLS tree and CollNet (their
only protocol).
"""

# baseLat, microseconds (tuning.cc: Tree LL 6.8, Ring LL 6.6; NVLS, NVLS tree, CollNet 0).
BASE_LATENCY_US = {"ring": 6.6, "tree": 6.8, "nvls": 0.0, "nvls_tree": 0.0, "collnet": 0.0}

# hwLat per step, microseconds (tuning.cc): NVLink ring LL 0.6, tree LL 0.6, NVLS Simple 25;
# network ring LL 2.7, tree LL 5.0. PCIe ring LL 1.0. From tuning.cc at NVIDIA/nccl commit
# b6475625 (Simple protocol): CollNet chain 2.8 per NVLink / PCIe hop and 30 over the network,
# NVLS tree 14 and NVLS (multi-node, with SHARP) 18 over the network.
HOP_LATENCY_US = {
    "nvlink": {"ring": 0.6, "tree": 0.6, "nvls": 25.0, "collnet": 2.8},
    "pcie": {"ring": 1.0, "tree": 1.0, "collnet": 2.8},
    "network": {"ring": 2.7, "tree": 5.0, "nvls_tree": 14.0, "collnet": 30.0, "nvls_sharp": 18.0},
}

# Message-size ramp (protocol switch LL -> LL128 -> Simple, channel count, pipeline fill):
#   extra_time = 1 / (SMALL_MESSAGE_BW_FRACTION x busbw / bus_bytes + 1 / PIPELINE_FILL_S)
# Small messages see a lower effective bandwidth, and the extra time saturates at the
# pipeline fill + drain time for large ones. Both constants were fitted ONCE to the DGX H100
# all_reduce_perf curve (reference C01, 1 MiB .. 8 GiB) with the NCCL latencies above and the
# catalog's 480 GB/s NVLS / 370.8 GB/s ring busbw: max error 4.0% from 1 MiB up, 9.7% at the
# 8 B latency floor. They are shared by every link level and SKU.
SMALL_MESSAGE_BW_FRACTION = 0.72
PIPELINE_FILL_S = 85e-6

# NVLS (NVLink SHARP) all-reduce algbw relative to the one-direction NVLink line rate, from
# H100: 480.2 GB/s busbw on 8 GPUs (C01) = 274.4 algbw, / 450 GB/s (18 links x 25 GB/s). NVLS
# algbw hardly depends on the group size (C02: algbw 258 / 265 / 270 / 273 on 5 / 6 / 7 / 8
# GPUs, busbw 420 -> 480), so busbw = algbw x 2 (n - 1) / n. The NVLink switch's own catalog
# figure (nvls_algbw_per_line_rate) comes first; this is the fallback for one without.
NVLS_ALGBW_PER_LINE_RATE = 480.2 / 1.75 / 450.0

# NCCL app-level ring busbw relative to the one-direction NVLink line rate: H100 18 x 20.6 /
# 450 = 0.824 (tuning.cc per-link constants, reference [S12]). Used for custom GPUs.
RING_BUSBW_PER_LINE_RATE = 370.8 / 450.0

# Scale-up links that are not NVLink, by catalog architecture: usable share of the rated
# one-direction link rate. AMD xGMI (MI300X, CDNA 3): 64 GB/s rated per link, ~48 GB/s usable
# after CRC and protocol overhead, 75 % (AMD ROCm blog "Understanding RCCL Bandwidth and xGMI
# Performance on AMD Instinct MI300X", 2025-03-02, section "Theoretical Performance Claims vs.
# Achievable"); RCCL's rings use all seven links of the full mesh, so 7 x 48 = 336 GB/s.
RING_BUSBW_PER_LINE_RATE_BY_ARCHITECTURE = {"CDNA 3": 48.0 / 64.0}

# The NVLink switch generation of each catalog GPU architecture (catalog switches.yaml ids; the
# switch entry's in_network_reduction says whether it reduces in-switch). HGX B200/B300 boards
# carry the same NVSwitch gen4 ASIC as the NVL72 switch tray. Ampere's NVSwitch gen2 has no
# in-switch reduction and no catalog entry.
NVLINK_SWITCH_BY_ARCHITECTURE = {
    "Hopper": "nvswitch-gen3",
    "Blackwell": "nvlink5-switch-tray",
    "Blackwell Ultra": "nvlink5-switch-tray",
}

# A chain inside the domain (NCCL tree and CollNet chain) carries the message up to the head
# and the result back down every link, so its algbw is half the per-GPU link bandwidth
# (tuning.cc converts tree / CollNet bus bandwidth to algbw with ratio 0.5).
CHAIN_ALGBW_PER_LINK_BW = 0.5

# Across more than two domains a double binary tree makes each domain's NICs carry the message
# twice (every domain is an inner node of one of the two trees); two domains exchange it once
# (tuning.cc: NVLS tree bw = min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2)). In-network
# reduction (SHARP) removes the factor: each domain sends its share up once and receives the
# result once, at any domain count.
TREE_INTER_DOMAIN_SHARE_MANY = 0.5

# PCIe x16 usable bandwidth for GPUs without a scale-up link, GB/s (SimAI calbusbw.h:
# Gen5 64 GB/s x 0.8, Gen4 32 x 0.8, reference [S5]). Catalog PCIe SKUs (H100 PCIe) are
# Gen5; inline custom GPUs are taken as Gen4 (L40S-class cards), the conservative choice.
PCIE_GEN5_BUSBW_GB_PER_S = 51.2
PCIE_GEN4_BUSBW_GB_PER_S = 25.6
