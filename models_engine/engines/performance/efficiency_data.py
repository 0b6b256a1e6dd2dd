"""Per-SKU achieved-throughput constants and the software stacks they assume.

The catalog gives peaks (dense TFLOP/s, HBM TB/s); what a training step achieves also depends
on kernel efficiency and on the software that ran the published measurements. Those figures
live here, one entry per SKU, fixed once: no validation case has a constant of its own. The
mechanisms around them (GEMM roofline with a tile ramp, attention FLOPs with causal masking,
element-wise HBM traffic counted op by op, TP / CP / EP / PP / DP communication through the
collectives model, pipeline bubble, optimizer sweep) are explicit in the other modules.

How they were fixed: each SKU's handful of constants is the single set that best fits all the
published runs on that SKU at once (mean |error| + 0.3 x max |error| minimised), then rounded;
each entry's `calibration` names the runs, the resulting errors and the public kernel
benchmarks the values agree with, which is the check that they are kernel efficiencies and
not fudge factors. SKUs without published runs reuse the constants of their nearest
calibrated relative and are marked UNCERTAIN.
"""

# GEMM size ramp shared by all SKUs (cuBLAS/CUTLASS tiles are 128 x 256 x 64 on Ampere and
# Hopper): on average half a tile of the M and N edges is wasted (wave/tile quantisation) and
# the prologue + epilogue cost about two 64-deep k-steps. Efficiency factor:
#     M / (M + 64) x N / (N + 128) x K / (K + 128)
GEMM_TILE_RAMP = {"m0": 64.0, "n0": 128.0, "k0": 128.0}

# Flash-attention efficiency ramp over the key/value length each kernel sees (fewer tiles
# per head on short sequences): L / (L + 256). FlashAttention-2 paper (Dao 2023) Fig. 5/6
# H100 and A100 curves fall from ~97% of their 16k value at 8k to ~65% at 512.
ATTENTION_LENGTH_RAMP = 256.0

SOFTWARE_STACKS = {
    "megatron-lm-2022": {
        "description": (
            "Megatron-LM as in Narayanan et al. 2021 and Korthikanti et al. 2022 (the published "
            "A100 runs): unfused softmax attention with dropout, fp16/bf16 only, no overlap of "
            "tensor-parallel, data-parallel or pipeline communication with compute."
        ),
        "attention_kernel": "unfused",
        "dropout": True,
        "tp_comm_overlap": False,
        "dp_comm_overlap": False,
        "pp_p2p_overlap": False,
        # Megatron's fp32 main_grad buffers are reduced in fp32.
        "grad_reduce_bytes": 4,
    },
    "megatron-core-te-2024": {
        "description": (
            "NeMo 24.x / Megatron-Core with Transformer Engine (the published H100 runs): "
            "flash (cuDNN) attention in BF16 also for FP8 runs, no dropout, TP communication "
            "overlapped with GEMMs (userbuffers), distributed optimizer with gradient "
            "reduce-scatter and parameter all-gather overlapped, overlapped pipeline P2P."
        ),
        "attention_kernel": "flash",
        "dropout": False,
        "tp_comm_overlap": True,
        "dp_comm_overlap": True,
        "pp_p2p_overlap": True,
        # NeMo distributed_fused_adam reduces gradients in bf16.
        "grad_reduce_bytes": 2,
    },
}

# Per SKU: gemm = large-GEMM fraction of the dense peak, per precision; gemm_fixed_us = fixed
# time per GEMM call, microseconds (launch and tail wave; for FP8 also Transformer Engine's
# scaling update and cast / transpose kernels); attention_forward / attention_backward =
# flash-attention kernels' fraction of the BF16 peak; hbm = fraction of catalog HBM bandwidth
# the element-wise kernels reach.
_A100 = {
    "stack": "megatron-lm-2022",
    "gemm": {"bf16": 0.80, "fp16": 0.80},
    "gemm_fixed_us": {"bf16": 0.0, "fp16": 0.0},
    # Not used by the unfused stack (attention runs as batched GEMMs + HBM-bound softmax);
    # FlashAttention-2 on A100 reaches 50-70% forward, 40-50% backward (Dao 2023).
    "attention_forward": 0.60,
    "attention_backward": 0.45,
    "hbm": 0.60,
    "calibration": (
        "Fitted on Korthikanti 2022 Table 5 (8 runs: mean |error| 1.9%, max 3.2%). gemm 0.80 = "
        "250 of 312 TFLOP/s, inside the 250-280 cuBLAS fp16 reaches on large A100 GEMMs; hbm "
        "0.60 = the 2022 stack's unfused element-wise kernels (PyTorch dropout with its RNG, "
        "apex LayerNorm, fused softmax) at 1.2 of 2.04 TB/s. Cross-check, not fitted: the "
        "Narayanan et al. 2021 weak-scaling runs (1.7B-1T, 32-3072 GPUs) land within ~10%."
    ),
}
_H100 = {
    "stack": "megatron-core-te-2024",
    "gemm": {"bf16": 0.60, "fp16": 0.60, "fp8": 0.63},
    "gemm_fixed_us": {"bf16": 4.0, "fp16": 4.0, "fp8": 155.0},
    "attention_forward": 0.69,
    "attention_backward": 0.60,
    "hbm": 0.85,
    "calibration": (
        "Fitted jointly on the NVIDIA DGX Cloud H100 recipes [S15]: the Llama 3.1 8B and 70B "
        "fixtures (v24.11, 22 runs: mean |error| 1.4%, max 4.1%) and, from the same source, "
        "GPT-3 175B, Nemotron-4 15B and 340B, Llama 3.1 405B (v24.11 and v25.05; 46 runs: mean "
        "3.4%, max 9.0%), BF16 and FP8. gemm bf16 0.60 = 593 TFLOP/s, the sustained rate of "
        "BF16 GEMMs at 700 W (cuBLAS microbenchmarks 600-750). FP8 0.63 of 1979 on large GEMMs "
        "plus ~155 us per GEMM call of Transformer Engine FP8 work: it is why FP8 speeds the "
        "8B / 70B / 15B steps up 1.34-1.38x but the 175B-405B ones 1.46-1.53x. Flash attention "
        "0.69 forward / 0.60 backward of the BF16 peak: cuDNN 9 and FlashAttention-3 reach "
        "0.60-0.75 forward and 0.50-0.60 backward at 8k tokens."
    ),
}
_GB200 = {
    **_H100,
    "calibration": (
        "H100 constants (same software stack), UNCERTAIN. Cross-check, not fitted: DGX Cloud "
        "v25.05 Llama 3.1 405B on 128-512 GB200 (BF16 and FP8) lands within 7%; the "
        "DeepSeek-V3 (MoE) GB200 runs are ~3x slower than modelled even with the MoE "
        "mechanisms (all-to-all, permutes, load imbalance): NVIDIA attributes that software "
        "generation's GB200 MoE step to CPU kernel-launch overhead (Megatron-LM "
        "docs/discussions/deepseek-v3-gb200-optimization), which this model does not carry."
    ),
}

SKU_EFFICIENCY = {
    "a100-sxm-80gb": _A100,
    "h100-sxm-80gb": _H100,
    # Same GH100 die and clocks as H100 SXM; only HBM differs (and is modelled).
    "h200-sxm-141gb": {**_H100, "calibration": "as h100-sxm-80gb (same die); UNCERTAIN"},
    "h100-pcie-80gb": {**_H100, "calibration": "as h100-sxm-80gb; UNCERTAIN (350 W part)"},
    # No published Blackwell runs in the references: H100 fractions, UNCERTAIN.
    "b200-sxm-180gb": {**_H100, "calibration": "as h100-sxm-80gb; UNCERTAIN"},
    "gb200-nvl72": _GB200,
    "b300-sxm": {**_H100, "calibration": "as h100-sxm-80gb; UNCERTAIN"},
    "gb300-nvl72": {**_H100, "calibration": "as h100-sxm-80gb; UNCERTAIN"},
    "mi300x-192gb": {**_H100, "calibration": "as h100-sxm-80gb; UNCERTAIN (ROCm stack)"},
}
# Inline custom GPUs: the H100 fractions of the catalog peaks (a modern stack); UNCERTAIN.
DEFAULT_EFFICIENCY = {**_H100, "calibration": "default for custom GPUs: H100 fractions; UNCERTAIN"}
