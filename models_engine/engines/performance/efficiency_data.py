"""Per-SKU efficiency: which kernel measurement a GPU uses (kernel_data.py), its generation
(which stack losses apply, stacks.py) and the software stack its published runs used (what
`workload.software_stack: auto` picks). No validation case has a constant of its own.

The mechanisms around these figures (GEMM roofline with a tile ramp, attention FLOPs with
causal masking, element-wise HBM traffic counted op by op, TP / CP / EP / PP / DP
communication through the collectives model, pipeline bubble, optimizer sweep) are explicit
in the other modules; the end-to-end losses of a real step are named terms of the stack.
"""

from models_engine.engines.performance.stacks import (
    MEGATRON_2022,
    MEGATRON_CORE_2024,
    NEMO_BLACKWELL_2025,
    SOFTWARE_STACKS,
)

__all__ = [
    "ATTENTION_HEAD_DIM_FACTOR",
    "ATTENTION_LENGTH_RAMP",
    "ATTENTION_RATE_OF",
    "DEFAULT_EFFICIENCY",
    "GEMM_KERNEL_FIXED_US",
    "GEMM_TILE_RAMP",
    "SKU_EFFICIENCY",
    "SOFTWARE_STACKS",
]

# GEMM size ramp shared by all SKUs, efficiency factor M/(M + m0) x N/(N + n0) x K/(K + k0):
# wave / tile quantisation and the prologue + epilogue. MEASURED on one H100 SXM (700 W,
# PyTorch 2.11, cuBLAS): the 96 GPT-layer GEMMs of h100-pytorch-2.11-bf16-2026-11-26.json
# (every edge 2048-49152) and the 180 MoE expert GEMMs of
# h100-calibrate-experts-2026-11-26.json (models_engine.calibrate --only experts: expert
# shapes of Qwen3-30B / 235B, gpt-oss-120b, DeepSeek-V3 and Mixtral with 256-8192 rows, kernel
# time from CUDA-graph replays). Grid fit of (fraction, m0, n0, k0, fixed time) on log time:
# m0 = 32, n0 = 0, k0 = 128 and 2.5 us per GEMM kernel, mean |error| 6.2 % (10.7 % with the
# former half-tile guess 32 / 64 / 64 and no fixed time, which was 25 % fast on expert GEMMs
# under ~20 GFLOP). The fixed time (GEMM_KERNEL_FIXED_US: the prologue, epilogue and last
# partial wave a small GEMM cannot hide) is then what a calibration import derives for that
# file, the median over the expert GEMMs of measured minus fraction x ramp time
# (catalog/measured.py `_gemm_fixed_us`): 2.9 us. tests/engine/test_calibrate.py holds both.
GEMM_TILE_RAMP = {"m0": 32.0, "n0": 0.0, "k0": 128.0}
GEMM_KERNEL_FIXED_US = 2.9

# Flash-attention efficiency ramp over the key/value length each kernel sees (fewer tiles
# per head on short sequences): L / (L + 256). FlashAttention-2 paper (Dao 2023) Fig. 5/6
# H100 and A100 curves fall from ~97% of their 16k value at 8k to ~65% at 512.
ATTENTION_LENGTH_RAMP = 256.0

# Fused-attention throughput by head dimension, relative to head dim 128 (where every measured
# fraction in kernel_data was taken: gpu_microbench attention is head dim 128), (forward,
# backward) per backend. MEASURED on one H100 SXM (700 W, PyTorch 2.11, cuDNN 9.19;
# tests/fixtures/gpu_microbench/h100-calibrate-head-dims-2026-11-26.json, `calibrate --only
# head-dims`): causal SDPA at hidden 4096 as 64 heads of 64 or 32 of 128 (equal FLOPs), sequence
# 2048 / 4096 / 8192, median of the three ratios: cuDNN forward 0.736 / 0.778 / 0.753, backward
# 0.786 / 0.770 / 0.798; PyTorch's flash 0.890 / 0.926 / 0.943 and 0.923 / 0.915 / 0.930.
# Cross-check: the FlashAttention-3 paper (Shah et al. 2024, arXiv 2407.08608, Fig. 5-6, H100
# BF16) gives cuDNN 0.685 / 0.835 and FlashAttention-2 0.87 / 0.90. A head-dim-64 tile does half
# the MMA work per loaded K/V row and per softmax element, so the non-matmul work weighs twice
# as much. Between the two points the factor is interpolated in log2(head dim); below 64 it
# stays at 64's (ASSUMPTION), above 128 it is 1.0 (not measured).
ATTENTION_HEAD_DIM_FACTOR = {
    "cudnn": {64: (0.753, 0.786), 128: (1.0, 1.0)},
    "flash": {64: (0.926, 0.923), 128: (1.0, 1.0)},
}

# Backends priced at another backend's measured rate. PyTorch FlexAttention (compiled) runs at
# PyTorch's flash kernel's: on an H200 at GPT-OSS's shape (2 x 4096 tokens, 64 query / 8
# key-value heads of 64) its kernel alone takes 0.84 / 1.02 of flash's time forward / backward,
# 0.88 / 0.84 at head dim 128 (tests/fixtures/gpu_microbench/h200-calibrate-flex-2026-11-27.json,
# `calibrate --only flex`; tests/engine/test_attention_windows.py).
ATTENTION_RATE_OF = {"flex": "flash"}


def _entry(stack: str, generation: str, kernels: str, note: str = "") -> dict:
    return {"stack": stack, "generation": generation, "kernels": kernels, "note": note}


# Blackwell Ultra is not given the GB200 fit: a 1,100-1,400 W part with twice the SFU
# throughput for softmax (NVIDIA Technical Blog "Making Softmax More Efficient with NVIDIA
# Blackwell Ultra", 2026: ~35 % faster FP8 attention forward on DeepSeek-V3). Without a
# measurement it runs the H100 kernel fractions of its peaks (UNCERTAIN), with the attention
# gain derived from that blog (kernel_data ULTRA_ATTENTION_GAIN).
ULTRA = "Blackwell Ultra: H100 kernel fractions with faster softmax, not the GB200 fit"

SKU_EFFICIENCY = {
    "a100-sxm-80gb": _entry(MEGATRON_2022, "ampere", "a100-fitted"),
    "h100-sxm-80gb": _entry(MEGATRON_CORE_2024, "hopper", "h100-measured"),
    "h200-sxm-141gb": _entry(MEGATRON_CORE_2024, "hopper", "h200-measured"),
    "h100-pcie-80gb": _entry(
        MEGATRON_CORE_2024, "hopper", "h100-measured", "SXM measurement on a 350 W part"
    ),
    "b200-sxm-180gb": _entry(NEMO_BLACKWELL_2025, "blackwell", "blackwell-fitted"),
    "gb200-nvl72": _entry(NEMO_BLACKWELL_2025, "blackwell", "blackwell-fitted"),
    "b300-sxm": _entry(NEMO_BLACKWELL_2025, "blackwell", "blackwell-ultra", ULTRA),
    "gb300-nvl72": _entry(NEMO_BLACKWELL_2025, "blackwell", "blackwell-ultra", ULTRA),
    "mi300x-192gb": _entry(
        MEGATRON_CORE_2024, "cdna3", "mi300x-published", "ROCm Megatron fork assumed"
    ),
}
# Inline custom GPUs: a modern stack on the H100 fractions of the catalog peaks; UNCERTAIN.
DEFAULT_EFFICIENCY = _entry(MEGATRON_CORE_2024, "hopper", "unmeasured", "custom GPU")
