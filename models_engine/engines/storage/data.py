"""Storage-engine constants, each with its source or marked as an assumption."""

# Checkpoint size (the ONE definition: the storage engine owns checkpoint bytes; the
# reliability, regions and cost engines read `StorageResult.checkpoint.size_bytes`):
# 14 bytes per parameter = bf16 weights (2) + fp32 master weights, Adam m and v (4 + 4 + 4).
# Gradients are recomputed after a restart and are not saved (Megatron's distributed-optimizer
# checkpoint holds exactly these tensors); reliability.md "Checkpoint size model": 14-16
# B/param. Training MEMORY (performance engine) counts 18 B/param with fp32 gradients: that is
# a different quantity.
CHECKPOINT_BYTES_PER_PARAM = 14.0
# Bytes per weight when a serving fleet loads the model.
SERVING_BYTES_PER_WEIGHT = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0}

# GPU -> host copy of a checkpoint shard (the blocking part of an async checkpoint): PCIe Gen5
# x16 64 GB/s x 0.8 = 51.2 GB/s; Gen4 x16 25.6 GB/s (performance.md [S5] calbusbw.h).
D2H_GBYTES_PER_S = {"gen5": 51.2, "gen4": 25.6}
PCIE_GEN4_GPU_PREFIXES = ("a100",)

# Training time an async checkpoint still blocks, measured: PyTorch DCP async_save brought a 7B
# model's checkpoint down time from 148.8 s to 6.3 s (6-14 s for 7B-13B), the visible part being
# the GPU -> CPU phase with its planning collectives and staging (Pasqualin et al., PyTorch /
# IBM Research blog "Reducing Model Checkpointing Times by Over 10x with PyTorch Distributed
# Asynchronous Checkpointing", 2024-06). The bandwidth-only copy (shard / PCIe) is far below it
# at scale, so the measured figure is the floor.
ASYNC_BLOCKING_FLOOR_S = 6.3

# Share of host RAM usable as page cache for training data, and for staging async
# checkpoints (assumption: half for each of the framework and the cache).
HOST_RAM_CACHE_FRACTION = 0.5
GIB_BYTES = 2**30
TB_BYTES = 1e12

# Share of a tier's rated bandwidth a large job achieves (server side), by tier kind, when the
# design gives none. Shared tiers: Meta's Tectonic file system behind the Llama 3 405B run
# sustained 2 TB/s against a 7 TB/s peak (Dubey et al. 2024, arXiv 2407.21783, section 3.3.1):
# 2 / 7 = 0.29. Node-local NVMe: drives reach their sequential rating with one client and no
# shared service (assumption: 1.0).
ACHIEVED_FRACTION_BY_KIND = {"local-nvme": 1.0, "parallel-fs": 2.0 / 7.0, "object-store": 2.0 / 7.0}
ACHIEVED_FRACTION_SOURCE = {
    "local-nvme": "node-local drives at their rating (assumption)",
    "parallel-fs": "Llama 3 Tectonic: 2 TB/s sustained of 7 TB/s peak (Dubey et al. 2024)",
    "object-store": "Llama 3 Tectonic: 2 TB/s sustained of 7 TB/s peak (Dubey et al. 2024)",
}
HOURS_PER_YEAR = 8760.0

# Durability: failure unit per shared tier and the share of the tier's bandwidth a rebuild may
# take (assumptions: 15.36 TB NVMe drives in a flash parallel file system, 20 TB HDDs in an
# object store, rebuild throttled to 20% of the tier's write bandwidth).
FAILURE_UNIT_TB = {"parallel-fs": 15.36, "object-store": 20.0}
REBUILD_BANDWIDTH_SHARE = 0.2
