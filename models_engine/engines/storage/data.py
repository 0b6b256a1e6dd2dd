"""Storage-engine constants, each with its source or marked as an assumption."""

# Checkpoint size convention (the ONE convention: the storage engine owns checkpoint bytes; the
# reliability, regions and cost engines read `StorageResult.checkpoint.size_bytes`):
# 18 bytes per parameter = bf16 weights (2) + fp32 gradients (4) + fp32 master weights, Adam m
# and v (4 + 4 + 4 = 12): the model state Megatron keeps (performance/memory.py, EleutherAI
# "Transformer Math 101"). A weights+optimizer-only checkpoint is 14 B/param (reliability.md
# "Checkpoint size model": 14-16 B/param); it is reported beside it, never used as the size.
CHECKPOINT_BYTES_PER_PARAM = 18.0
CHECKPOINT_BYTES_PER_PARAM_WITHOUT_GRADIENTS = 14.0
# Bytes per weight when a serving fleet loads the model.
SERVING_BYTES_PER_WEIGHT = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0}

# GPU -> host copy of a checkpoint shard (the blocking part of an async checkpoint): PCIe Gen5
# x16 64 GB/s x 0.8 = 51.2 GB/s; Gen4 x16 25.6 GB/s (performance.md [S5] calbusbw.h).
D2H_GBYTES_PER_S = {"gen5": 51.2, "gen4": 25.6}
PCIE_GEN4_GPU_PREFIXES = ("a100",)

# Share of host RAM usable as page cache for training data, and for staging async
# checkpoints (assumption: half for each of the framework and the cache).
HOST_RAM_CACHE_FRACTION = 0.5
GIB_BYTES = 2**30
TB_BYTES = 1e12

# Placeholder checkpoint interval for capacity-over-horizon when the policy says "auto" (the
# reliability engine owns the Young/Daly optimum): 60 minutes (assumption).
PLACEHOLDER_INTERVAL_MIN = 60.0
HOURS_PER_YEAR = 8760.0

# Durability: failure unit per shared tier and the share of the tier's bandwidth a rebuild may
# take (assumptions: 15.36 TB NVMe drives in a flash parallel file system, 20 TB HDDs in an
# object store, rebuild throttled to 20% of the tier's write bandwidth).
FAILURE_UNIT_TB = {"parallel-fs": 15.36, "object-store": 20.0}
REBUILD_BANDWIDTH_SHARE = 0.2
